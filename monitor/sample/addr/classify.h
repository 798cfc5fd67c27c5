/* SPDX-License-Identifier: BSD-3-Clause */
/* classify — IN_MPI or OUT_MPI from frames (design.md §2). A frame is in MPI when its address
 * lies in an MPI module or an MPI_* function. A thread decides its rank's state only if it is
 * the main thread or runs application code somewhere on its stack: Open MPI's progress and
 * PMIx threads live entirely in runtime libraries and would make every rank look IN_MPI. A
 * rank is IN_MPI when any deciding thread is in MPI. */
#ifndef PARASTACK_CLASSIFY_H
#define PARASTACK_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "maps.h"

enum rank_state {
	RANK_UNKNOWN = 0,
	RANK_IN_MPI,
	RANK_OUT_MPI,
};

/* The address to look up for frame i of ips (innermost first): every frame but the innermost
 * holds a return address, which may be the first byte after the call, so look at the call. */
static inline uint64_t frame_lookup_pc(const uint64_t *ips, int i)
{
	return i > 0 && ips[i] ? ips[i] - 1 : ips[i];
}

/* ips innermost first; all but ips[0] are return addresses. */
void classify_thread(const struct maps *mp, const uint64_t *ips, int n, bool main_thread,
		     bool *counted, bool *in_mpi);
const char *rank_state_name(enum rank_state s);

#endif
