/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_torchrec — libFuzzer target for torch.distributed's collective records as hostile ranks
 * may leave them (issue 67): the input overwrites a plausible record (record/torch_format.h)
 * from its first byte, torchrecord.c reads it, and four ranks carrying it (each its own rank)
 * are matched by torchwait.c. Whatever the bytes, the reader returns a record or nothing and the
 * matcher a bounded answer: no crash, no loop, no read past the area. */
#include <stdio.h>
#include <string.h>

#include "../../monitor/sample/record/torchrecord.h"
#include "../../monitor/hang/torchwait.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void plausible(struct torchrec_area *a)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->h.magic, TORCHREC_MAGIC, 8);
	a->h.version = TORCHREC_VERSION;
	a->h.size = TORCHREC_SIZE;
	a->h.world = 4;
	a->h.ngroups = 2;
	a->h.cur_kind = TORCHREC_COLL;
	a->h.cur_seq = 2;
	a->h.in_op = 1;
	for (int g = 0; g < 2; g++) {
		a->g[g].slot = (uint32_t)g;
		a->g[g].size = 4;
		a->g[g].member = 1;
		for (int i = 0; i < TORCHREC_LISTED; i++)
			a->g[g].ranks[i] = i < 4 ? i : -1;
		a->g[g].coll_entered = 2;
		a->g[g].coll_left = 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct torchrec_area a;
	json_t *snap = json_array();

	for (int r = 0; r < 4; r++) {
		plausible(&a);
		memcpy(&a, data, size < sizeof(a) ? size : sizeof(a));
		a.h.rank = r;

		json_t *rec = torchrecord_area_json(&a);

		if (rec)
			json_array_append_new(snap, json_pack("{s:i, s:s, s:o}", "rank", r, "state", "IN_MPI",
							      "collectives", rec));
	}

	json_t *out = torchwait_analyze(snap);
	size_t len = out ? json_dumpb(out, NULL, 0, JSON_COMPACT) : 0;

	if (len > (1u << 20))
		__builtin_trap();
	json_decref(out);
	json_decref(snap);
	return 0;
}
