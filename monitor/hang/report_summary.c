/* SPDX-License-Identifier: BSD-3-Clause */
/* report_summary — the JSON report cut to what a reader needs (report_summary.h). */
#include "report_summary.h"

#include <stdlib.h>

#include "report_util.h"

static int compare_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* The ranks kept in full: the faulty ones, the culprits, the first of each group. Sorted; the
 * count. */
static int kept_ranks(json_t *report, int **out)
{
	json_t *faulty = json_object_get(report, "faulty_ranks"), *culprits = json_object_get(report, "culprits");
	json_t *groups = json_object_get(report, "groups"), *v;
	size_t i, max = json_array_size(faulty) + json_array_size(culprits) + json_array_size(groups) + 1;
	int n = 0, *keep = malloc(max * sizeof(int));

	if (!keep)
		return -1;
	json_array_foreach(faulty, i, v)
		keep[n++] = (int)json_integer_value(v);
	json_array_foreach(culprits, i, v)
		keep[n++] = rank_of(v);
	json_array_foreach(groups, i, v)
		if (str(v, "ranks"))
			keep[n++] = atoi(str(v, "ranks"));
	qsort(keep, (size_t)n, sizeof(int), compare_int);
	*out = keep;
	return n;
}

/* The members of arr (objects with "rank") whose rank is kept, into a new array; *dropped
 * counts the others. */
static json_t *filter_ranks(json_t *arr, const int *keep, int nkeep, size_t *dropped)
{
	json_t *kept = json_array(), *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		int r = rank_of(v);

		if (bsearch(&r, keep, (size_t)nkeep, sizeof(int), compare_int))
			json_array_append(kept, v);
		else
			(*dropped)++;
	}
	return kept;
}

void report_summarize(json_t *report, bool all)
{
	int *keep = NULL, nkeep;
	size_t dropped = 0, waits_dropped = 0;
	json_t *wf = json_object_get(report, "wait_for");

	if (all || (nkeep = kept_ranks(report, &keep)) < 0) {
		json_object_set_new(report, "ranks_detail", json_string("all"));
		return;
	}
	json_object_set_new(report, "ranks", filter_ranks(json_object_get(report, "ranks"), keep, nkeep, &dropped));
	if (json_is_array(json_object_get(wf, "waits"))) {
		json_object_set_new(wf, "waits", filter_ranks(json_object_get(wf, "waits"), keep, nkeep, &waits_dropped));
		json_object_set_new(wf, "waits_omitted", json_integer(json_integer_value(json_object_get(wf, "waits_omitted")) +
								       (json_int_t)waits_dropped));
	}
	json_object_set_new(report, "ranks_detail", json_string("summary"));
	json_object_set_new(report, "ranks_omitted", json_integer((json_int_t)dropped));
	free(keep);
}
