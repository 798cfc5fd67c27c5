/* SPDX-License-Identifier: BSD-3-Clause */
/* forged_areas — the records of a 3-rank job as a hostile rank may leave them, for the fuzz
 * targets of what ranks control (fuzz_record, fuzz_waitfor). Each starts from a plausible record
 * (every rank in MPI_Recv from the next on MPI_COMM_WORLD, a deadlock cycle, with counters, a
 * request and collective history, so that the analysis is reached with no input at all); the
 * input then overwrites it: a list of patches, each [area: 1 byte][offset: 4 bytes, little
 * endian, taken modulo the area's size][length: 1 byte][that many bytes]. */
#ifndef PARASTACK_FORGED_AREAS_H
#define PARASTACK_FORGED_AREAS_H

#include <stdint.h>
#include <string.h>

#include "../../record/record_format.h"

#define FORGED_RANKS 3

static inline void forged_base(struct psrec_area *a, int rank)
{
	int next = (rank + 1) % FORGED_RANKS, prev = (rank + 2) % FORGED_RANKS;

	memset(a, 0, sizeof(*a));
	a->magic = PSREC_MAGIC;
	a->version = PSREC_VERSION;
	a->size = sizeof(*a);
	a->world_rank = rank;
	a->world_size = FORGED_RANKS;
	a->nthreads = 1;
	a->runs_used = 1;
	strcpy(a->mpi_library, "Open MPI v4.1.4");
	a->runs[0] = (struct psrec_run){ 0, 0, 1, FORGED_RANKS };
	a->comms[0] = (struct psrec_comm){ .used = 1, .handle = 0x1000, .id = 1, .size = FORGED_RANKS,
					   .first = 0, .nruns = 1, .coll_seq = 2 };
	a->comms[0].history[1] = (struct psrec_coll){ 1, PSREC_BARRIER, -1, 0, 0x401000 };
	a->comms[0].history[2] = (struct psrec_coll){ 2, PSREC_ALLREDUCE, -1, 8, 0x401100 };
	a->calls[0] = (struct psrec_call){ .tid = 100 + rank, .func = PSREC_RECV, .comm = 0, .peer = next,
					   .tag = 5, .root = -1, .bytes = 8, .coll_seq = 2, .caller = 0x401200 };
	a->reqs[0] = (struct psrec_req){ .used = 1, .handle = 0x2000, .func = PSREC_ISEND, .comm = 0,
					 .peer = prev, .tag = 7, .caller = 0x401300, .active = 1, .chan = 1,
					 .bytes = 8 };
	a->chans[0] = (struct psrec_chan){ .used = 2, .peer = next, .tag = 5, .comm = 1, .posted = 3, .done = 2 };
	a->chans[1] = (struct psrec_chan){ .used = 2, .peer = prev, .tag = 5, .comm = 1, .sent = 2 };
}

/* Apply the input's patches to areas[0 .. n). */
static inline void forged_patch(struct psrec_area *areas, int n, const uint8_t *data, size_t size)
{
	while (size >= 6) {
		int which = data[0] % n;
		uint32_t off = (uint32_t)data[1] | (uint32_t)data[2] << 8 | (uint32_t)data[3] << 16 |
			       (uint32_t)data[4] << 24;
		size_t len = data[5];

		data += 6;
		size -= 6;
		if (len > size)
			len = size;
		off %= sizeof(struct psrec_area);
		if (len > sizeof(struct psrec_area) - off)
			len = sizeof(struct psrec_area) - off;
		memcpy((uint8_t *)&areas[which] + off, data, len);
		data += len;
		size -= len;
	}
}

#endif
