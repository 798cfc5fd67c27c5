/* SPDX-License-Identifier: BSD-3-Clause */
/* torchrecord — reading a rank's collective record (torchrecord.h). */
#include "torchrecord.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "../safe/textsafe.h"

#define MAPS_LINES 65536 /* a rank's maps read at most this far */

static const char *kind_name(uint32_t k)
{
	switch (k) {
	case TORCHREC_COLL: return "collective";
	case TORCHREC_DDP: return "ddp";
	case TORCHREC_P2P: return "p2p";
	default: return NULL;
	}
}

/* Where the record is mapped in pid, 0 when it is not. */
static uint64_t record_address(pid_t pid)
{
	char path[64], line[4096];
	uint64_t addr = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	for (int n = 0; !addr && n < MAPS_LINES && fgets(line, sizeof(line), f); n++) {
		unsigned long long start, end;

		if (strstr(line, TORCHREC_MAPPING) && sscanf(line, "%llx-%llx", &start, &end) == 2 &&
		    end - start >= TORCHREC_SIZE)
			addr = start;
	}
	fclose(f);
	return addr;
}

/* len bytes at addr in pid into buf: 0, or -1. */
static int copy_from(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

json_t *torchrecord_json(pid_t pid)
{
	static __thread struct torchrec_area a;
	uint32_t gen;
	uint64_t addr = record_address(pid);

	if (!addr)
		return NULL;
	/* A write under way (gen odd, or changed during the copy) is over within microseconds: a
	 * few tries. */
	for (int tries = 0; tries < 4; tries++) {
		if (copy_from(pid, addr, &a, sizeof(a)) < 0 ||
		    copy_from(pid, addr + offsetof(struct torchrec_header, gen), &gen, sizeof(gen)) < 0)
			return NULL;
		if (gen % 2 == 0 && a.h.gen == gen)
			return torchrecord_area_json(&a);
	}
	return NULL;
}

static json_t *text_json(const char *s, size_t n)
{
	char out[160];

	text_escape(out, sizeof(out), s, strnlen(s, n));
	return json_string(out);
}

static json_t *group_json(const struct torchrec_group *g)
{
	json_t *ranks = json_array();

	for (int i = 0; i < TORCHREC_LISTED && g->ranks[i] >= 0 && (uint32_t)i < g->size; i++)
		json_array_append_new(ranks, json_integer(g->ranks[i]));
	return json_pack("{s:i, s:i, s:o, s:b, s:o, s:[I,I], s:[I,I]}", "slot", (int)g->slot, "size",
			 (int)g->size, "ranks", ranks, "member", g->member == 1, "backend",
			 text_json(g->backend, sizeof(g->backend)), "collectives", (json_int_t)g->coll_entered,
			 (json_int_t)g->coll_left, "ddp", (json_int_t)g->ddp_entered, (json_int_t)g->ddp_left);
}

static bool counts_sane(const struct torchrec_group *g)
{
	uint64_t cap = (uint64_t)1 << 52;

	return g->coll_left <= g->coll_entered && g->ddp_left <= g->ddp_entered && g->coll_entered < cap &&
	       g->ddp_entered < cap && g->size > 0 && g->size < (1u << 24) && g->member <= 1;
}

json_t *torchrecord_area_json(const struct torchrec_area *a)
{
	const struct torchrec_header *h = &a->h;

	if (memcmp(h->magic, TORCHREC_MAGIC, 8) || h->version != TORCHREC_VERSION || h->size != TORCHREC_SIZE ||
	    h->ngroups == 0 || h->ngroups > TORCHREC_GROUPS || h->rank < 0 || h->world <= h->rank ||
	    h->in_op > 1)
		return NULL;

	json_t *groups = json_array();

	for (uint32_t i = 0; i < h->ngroups; i++) {
		if (a->g[i].slot != i || !counts_sane(&a->g[i])) {
			json_decref(groups);
			return NULL;
		}
		json_array_append_new(groups, group_json(&a->g[i]));
	}

	json_t *o = json_pack("{s:i, s:i, s:I, s:b, s:o}", "rank", h->rank, "world", h->world, "ops",
			      (json_int_t)(h->ops < ((uint64_t)1 << 52) ? h->ops : 0), "in_op", h->in_op == 1,
			      "groups", groups);
	const char *kind = kind_name(h->cur_kind);

	if (kind && h->cur_group >= 0 && (uint32_t)h->cur_group < h->ngroups && h->cur_seq < ((uint64_t)1 << 52)) {
		char site[100], file[80];

		text_escape(file, sizeof(file), h->cur_file, strnlen(h->cur_file, sizeof(h->cur_file)));
		snprintf(site, sizeof(site), "%s:%u", file, h->cur_line);
		json_object_set_new(o, "current", json_pack("{s:i, s:s, s:I, s:o, s:I, s:s}", "group", h->cur_group,
							    "kind", kind, "seq", (json_int_t)h->cur_seq, "op",
							    text_json(h->cur_op, sizeof(h->cur_op)), "numel",
							    (json_int_t)(h->cur_numel < ((uint64_t)1 << 52) ? h->cur_numel : 0),
							    "site", site));
		if (h->cur_peer >= 0 && h->cur_peer < h->world)
			json_object_set_new(json_object_get(o, "current"), "peer", json_integer(h->cur_peer));
	}
	kind = kind_name(h->prev_kind);
	if (kind && h->prev_group >= 0 && (uint32_t)h->prev_group < h->ngroups && h->prev_seq < ((uint64_t)1 << 52))
		json_object_set_new(o, "previous", json_pack("{s:i, s:s, s:I}", "group", h->prev_group, "kind", kind,
							     "seq", (json_int_t)h->prev_seq));
	return o;
}
