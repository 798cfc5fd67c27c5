/* culprits — whom the report names, and on what evidence: the one list faulty_ranks is made of
 * (design.md §7, "faulty_ranks is exactly what the diagnosis names"). In order:
 *   - a computation hang's faulty ranks: out of MPI, frozen or dead in every snapshot (certain);
 *   - the wait-for analysis's culprits (the recording layer: certain, or likely), beside ranks
 *     that died;
 *   - where no record explains the waits: ranks that left (MPI_Finalize on their stack) while
 *     the others wait, else the one stack group smaller than every other, stopped somewhere
 *     else than the rest (STAT's reading of equivalence classes). Evidence "likely" when some
 *     ranks have records, "stacks" when none has.
 * Each culprit: {"rank", "evidence", "why"}. */
#include "culprits.h"
#include "report_util.h"
#include "waitfor_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void computation_culprits(json_t *snap, json_t *faulty, json_t *culprits)
{
	size_t i;
	json_t *v;

	json_array_foreach(faulty, i, v) {
		int rank = (int)json_integer_value(v);
		json_t *r = report_find_rank(snap, rank);
		const char *state = r ? str(r, "state") : NULL;

		wf_culprit(culprits, rank, "certain", "%s in every snapshot while the others wait",
			   same(state, "EXITED") ? "it has died" :
			   json_is_true(json_object_get(r, "in_kernel")) ? "it is blocked in the kernel" :
			   json_is_true(json_object_get(r, "stopped")) ? "it is stopped (SIGSTOP)" :
									 "it stays in application code, unmoving,");
	}
}

/* Ranks whose stack shows MPI_Finalize while other live ranks wait elsewhere in MPI. */
static int finalize_culprits(json_t *snap, json_t *culprits, const char *evidence)
{
	int *fin = NULL, nfin = 0, others = 0;
	size_t i;
	json_t *r;

	json_array_foreach(snap, i, r) {
		if (same(str(r, "state"), "EXITED"))
			continue;
		if (same(str(r, "mpi_call"), "MPI_Finalize"))
			wf_push_int(&fin, &nfin, rank_of(r));
		else if (same(str(r, "state"), "IN_MPI"))
			others++;
	}
	for (int k = 0; others && k < nfin; k++)
		wf_culprit(culprits, fin[k], evidence, "it is in MPI_Finalize while %d other rank%s still wait%s in MPI: "
			   "it left the computation early", others, others > 1 ? "s" : "", others > 1 ? "" : "s");
	free(fin);
	return others ? nfin : 0;
}

/* The one live group smaller than every other, when there are at least three ranks. */
static void minority_culprits(json_t *snap, json_t *groups, json_t *culprits, const char *evidence)
{
	json_t *small = NULL, *g;
	long long least = -1, second = -1, total = 0;
	size_t i;

	json_array_foreach(groups, i, g) {
		long long n = json_integer_value(json_object_get(g, "count"));

		if (same(str(g, "state"), "EXITED"))
			continue;
		total += n;
		if (least < 0 || n < least) {
			second = least;
			least = n;
			small = g;
		} else if (second < 0 || n < second) {
			second = n;
		}
	}
	if (!small || second < 0 || least >= second || total < 3 || 2 * least >= total)
		return;

	json_t *rl = json_object_get(small, "rank_list"), *v;

	json_array_foreach(rl, i, v) {
		json_t *r = report_find_rank(snap, (int)json_integer_value(v));

		wf_culprit(culprits, (int)json_integer_value(v), evidence,
			   "it is %s%s%s, where every other rank is elsewhere (no record explains the others' waits: "
			   "the smallest stack group is the suspect)", str(r, "mpi_call") ? "in " : "in application code",
			   str(r, "mpi_call") ? str(r, "mpi_call") : "", "");
	}
}

static bool any_record(json_t *snap)
{
	size_t i;
	json_t *r;

	json_array_foreach(snap, i, r)
		if (json_object_get(r, "record"))
			return true;
	return false;
}

static int compare_culprits(const void *x, const void *y)
{
	long long a = json_integer_value(json_object_get(*(json_t *const *)x, "rank"));
	long long b = json_integer_value(json_object_get(*(json_t *const *)y, "rank"));

	return (a > b) - (a < b);
}

static json_t *sorted(json_t *culprits)
{
	size_t n = json_array_size(culprits), i;
	json_t **v = calloc(n + 1, sizeof(*v)), *c, *out = json_array();

	json_array_foreach(culprits, i, c)
		if (v)
			v[i] = json_incref(c);
	if (v)
		qsort(v, n, sizeof(*v), compare_culprits);
	for (i = 0; v && i < n; i++)
		json_array_append_new(out, v[i]);
	free(v);
	json_decref(culprits);
	return out;
}

static json_t *culprits_of(json_t *snap, json_t *groups, json_t *faulty, json_t *wf);

json_t *culprits_find(json_t *snap, json_t *groups, json_t *faulty, json_t *wf)
{
	return sorted(culprits_of(snap, groups, faulty, wf));
}

static json_t *culprits_of(json_t *snap, json_t *groups, json_t *faulty, json_t *wf)
{
	json_t *culprits = json_array(), *c;
	bool live = false;
	size_t i;

	json_array_foreach(faulty, i, c) {
		json_t *r = report_find_rank(snap, (int)json_integer_value(c));

		live |= !(r && same(str(r, "state"), "EXITED"));
	}
	computation_culprits(snap, faulty, culprits);
	if (live)
		return culprits;
	json_array_foreach(json_object_get(wf, "culprits"), i, c)
		wf_culprit(culprits, (int)json_integer_value(json_object_get(c, "rank")), str(c, "evidence"), "%s",
			   str(c, "why"));
	if (json_array_size(culprits))
		return culprits;

	const char *evidence = any_record(snap) ? "likely" : "stacks";

	if (!finalize_culprits(snap, culprits, evidence))
		minority_culprits(snap, groups, culprits, evidence);
	return culprits;
}

json_t *culprits_ranks(json_t *culprits)
{
	json_t *ranks = json_array(), *c;
	size_t i;

	json_array_foreach(culprits, i, c)
		json_array_append_new(ranks, json_integer(json_integer_value(json_object_get(c, "rank"))));
	return ranks;
}
