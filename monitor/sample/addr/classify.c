/* SPDX-License-Identifier: BSD-3-Clause */
/* classify — address checks only; no symbols. */
#include "classify.h"

void classify_thread(const struct maps *mp, const uint64_t *ips, int n, bool main_thread,
		     bool *counted, bool *in_mpi)
{
	bool app = false, mpi = false;

	for (int i = 0; i < n && !(mpi && (app || main_thread)); i++) {
		int kind = maps_kind_at(mp, frame_lookup_pc(ips, i));

		mpi |= kind == MODULE_MPI;
		app |= kind == MODULE_APP;
	}
	*counted = main_thread || app;
	*in_mpi = mpi;
}

const char *rank_state_name(enum rank_state s)
{
	switch (s) {
	case RANK_IN_MPI: return "IN_MPI";
	case RANK_OUT_MPI: return "OUT_MPI";
	case RANK_UNKNOWN: break;
	}
	return "UNKNOWN";
}
