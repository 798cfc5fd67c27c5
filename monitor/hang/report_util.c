/* SPDX-License-Identifier: BSD-3-Clause */
/* report_util — the small readers report.c, report_text.c and culprits.c share (report_util.h). */
#include "report_util.h"


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
