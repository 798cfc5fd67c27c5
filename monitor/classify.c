/* classify — address checks only; no symbols. */
#include "classify.h"

void classify_thread(const struct maps *mp, const uint64_t *ips, int n, bool main_thread,
		     bool *counted, bool *in_mpi)
{
	bool app = false, mpi = false;

	for (int i = 0; i < n && !(mpi && (app || main_thread)); i++) {
		/* A return address may be the first byte after the call: look at the call. */
		uint64_t pc = i > 0 && ips[i] ? ips[i] - 1 : ips[i];

		if (maps_in_mpi(mp, pc))
			mpi = true;
		else if (maps_in_app(mp, pc))
			app = true;
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
