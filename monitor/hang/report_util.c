/* SPDX-License-Identifier: BSD-3-Clause */
/* report_util — the small readers report.c, report_text.c and culprits.c share (report_util.h). */
#include "report_util.h"


static bool listed(json_t *ranks, int rank)
{
	size_t i;
	json_t *v;

	json_array_foreach(ranks, i, v)
		if (json_integer_value(v) == rank)
			return true;
	return false;
}

const char *report_start_up_call(json_t *snap, json_t *faulty)
{
	const char *call = NULL;
	size_t i;
	json_t *r;
	int waiting = 0;

	if (json_array_size(faulty) == 0)
		return NULL;
	json_array_foreach(snap, i, r) {
		bool starting = json_is_true(json_object_get(r, "in_init"));

		if (same(str(r, "state"), "EXITED"))
			continue;
		if (listed(faulty, rank_of(r)) ? starting : !starting)
			return NULL;
		/* A training job's start-up is init_process_group, whichever of its calls (the
		 * TCPStore's, gloo's rendezvous) a rank waits in; one starting outside any call
		 * waits in torch's TCPStore (MPI_Init is always a call), retrying its connect. */
		if (starting && !call) {
			const char *mpi = str(r, "mpi_call"), *runtime = str(r, "runtime");

			call = mpi && (!runtime || same(runtime, "MPI")) ? mpi : "init_process_group";
		}
		waiting += starting;
	}
	return waiting > 0 ? (call ? call : "the start-up") : NULL;
}

/* The rank's object in a snapshot: snapshots are sorted by rank (report_sort_by_rank), so a
 * binary search, which keeps reports of large jobs linear; a linear look when unsorted. */
json_t *report_find_rank(json_t *snap, int rank)
{
	size_t lo = 0, hi = json_array_size(snap), i;
	json_t *o;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = rank_of(json_array_get(snap, mid));

		if (r == rank)
			return json_array_get(snap, mid);
		if (r < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	json_array_foreach(snap, i, o)
		if (rank_of(o) == rank)
			return o;
	return NULL;
}
