/* SPDX-License-Identifier: BSD-3-Clause */
/* culprits — whom the report names, and on what evidence: the one list faulty_ranks is made of
 * (design.md §7, "faulty_ranks is exactly what the diagnosis names"). In order:
 *   - a computation hang's faulty ranks: out of MPI, frozen or dead in every snapshot (certain);
 *   - the wait-for analysis's culprits (the recording layer: certain, or likely), beside ranks
 *     that died;
 *   - where no record explains the waits: ranks that left (MPI_Finalize on their stack) while
 *     the others wait, else the one stack group smaller than every other, stopped somewhere
 *     else than the rest (STAT's reading of equivalence classes). Evidence "likely" when some
 *     ranks have records, "stacks" when none has.
 *   - never a rank on the ground that it could not be read (not sampled, its record unreadable):
 *     where the records leave only such a rank, they name no culprit (wait_for.unknown); its
 *     stack, where it has one, is evidence as any rank's, and a rank not sampled is in no group.
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
	const char *start_up = report_start_up_call(snap, faulty);
	char not_there[160];

	snprintf(not_there, sizeof(not_there), "it has not reached %s, unmoving,", start_up ? start_up : "");

	json_array_foreach(faulty, i, v) {
		int rank = (int)json_integer_value(v);
		json_t *r = report_find_rank(snap, rank);
		const char *state = r ? str(r, "state") : NULL;

		wf_culprit(culprits, rank, "certain", "%s in every snapshot while the others wait",
			   same(state, "EXITED") ? "it has died" :
			   json_is_true(json_object_get(r, "in_kernel")) ? "it is blocked in the kernel" :
			   json_is_true(json_object_get(r, "stopped")) ? "it is stopped (SIGSTOP)" :
			   start_up ? not_there : "it stays in application code, unmoving,");
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

		/* Ranks not sampled are no group of their own: nothing says where they are. */
		if (same(str(g, "state"), "EXITED") || same(str(g, "state"), "UNKNOWN"))
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
		if (json_object_get(r, "record") || json_object_get(r, "collectives"))
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

/* Where a live rank is, for grouping: its recorded call ("MPI_Alltoall #12 on communicator
 * …"), else its stack ("MPI_Alltoall (main > run > MPI_Alltoall)"). */
static void position_of(json_t *r, char *buf, size_t len)
{
	json_t *rec = json_object_get(r, "record"), *call = NULL, *c;
	size_t i;

	json_array_foreach(json_object_get(rec, "calls"), i, c)
		if (!call || json_is_true(json_object_get(c, "main")))
			call = c;
	if (call && wf_is_collective_call(call)) {
		char name[160];

		wf_comm_name(wf_comm_of(rec, str(call, "comm")), str(call, "comm"), name, sizeof(name));
		snprintf(buf, len, "%s #%lld on %s", str(call, "func"), num(call, "coll_seq"), name);
	} else if (call) {
		snprintf(buf, len, "%s at %s", str(call, "func"), str(call, "at") ? str(call, "at") : "?");
	} else {
		snprintf(buf, len, "%s (%s)", str(r, "mpi_call") ? str(r, "mpi_call") : "application code",
			 str(r, "path") ? str(r, "path") : "?");
	}
}

/* The live ranks grouped by position: each group's ranks (sorted) in a JSON object keyed by the
 * position's words. */
static json_t *positions(json_t *snap)
{
	json_t *by = json_object(), *r;
	size_t i;

	json_array_foreach(snap, i, r) {
		char key[700];

		if (same(str(r, "state"), "EXITED") || same(str(r, "state"), "UNKNOWN"))
			continue;
		position_of(r, key, sizeof(key));
		if (!json_object_get(by, key))
			json_object_set_new(by, key, json_array());
		json_array_append_new(json_object_get(by, key), json_integer(rank_of(r)));
	}
	return by;
}

/* Is every rank of the list one of the culprits? (Sorted and searched: a job of 100,000.) */
static bool among(json_t *culprits, json_t *ranks)
{
	size_t i, n = json_array_size(culprits);
	int *v = calloc(n + 1, sizeof(int));
	bool all = v != NULL;
	json_t *x;

	json_array_foreach(culprits, i, x)
		if (v)
			v[i] = rank_of(x);
	if (v)
		qsort(v, n, sizeof(int), wf_compare_int);
	json_array_foreach(ranks, i, x) {
		int key = (int)json_integer_value(x);

		all &= v && bsearch(&key, v, n, sizeof(int), wf_compare_int) != NULL;
	}
	free(v);
	return all;
}

/* The ranks of an array (integers, or objects with "rank") as ranges (malloc'd, or NULL). */
static char *ranges_of_array(json_t *a)
{
	int *v = calloc(json_array_size(a) + 1, sizeof(int)), n = 0;
	size_t i;
	json_t *x;
	char *r;

	if (!v)
		return NULL;
	json_array_foreach(a, i, x)
		v[n++] = json_is_integer(x) ? (int)json_integer_value(x) : rank_of(x);
	r = wf_ranges_of(v, n);
	free(v);
	return r;
}

/* The position fewer ranks are in than any other (NULL: none), and the one most are in. */
static json_t *smallest_position(json_t *by, const char **small_key, json_t **big, const char **big_key)
{
	json_t *small = NULL, *ranks;
	const char *key;
	size_t least = 0, second = 0;

	*big = NULL;
	json_object_foreach(by, key, ranks) {
		size_t n = json_array_size(ranks);

		if (!small || n < least) {
			second = small ? least : second;
			least = n;
			small = ranks;
			*small_key = key;
		} else if (!second || n < second) {
			second = n;
		}
		if (!*big || n > json_array_size(*big)) {
			*big = ranks;
			*big_key = key;
		}
	}
	return small && second && least < second ? small : NULL;
}

/* The ranks of position small (key sk) as the culprits, beside the one most are in (big, bk). */
static json_t *position_culprits(json_t *snap, json_t *by, json_t *small, const char *sk, json_t *big, const char *bk)
{
	const char *evidence = any_record(snap) ? "likely" : "stacks";
	size_t n = json_array_size(small), i;
	char *mr = ranges_of_array(small);
	json_t *out = json_array(), *x;

	json_array_foreach(small, i, x)
		if (json_object_size(by) == 2)
			wf_culprit(out, (int)json_integer_value(x), evidence,
				   "%s %s %s the only rank%s outside %s, where the %zu others are: %s in %s",
				   n > 1 ? "ranks" : "rank", mr ? mr : "?", n > 1 ? "are" : "is", n > 1 ? "s" : "", bk,
				   json_array_size(big), n > 1 ? "they are" : "it is", sk);
		else
			wf_culprit(out, (int)json_integer_value(x), evidence,
				   "fewer ranks are in %s (%s %s) than in any other place; the most, %zu, are in %s", sk,
				   n > 1 ? "ranks" : "rank", mr ? mr : "?", json_array_size(big), bk);
	free(mr);
	wf_culprits_unique(out);
	return out;
}

/* Too many culprits to be a diagnosis: the one position smaller than every other instead, as
 * likely (records) or stacks, and *note says so. Returns the new list (or culprits). */
static json_t *narrow(json_t *snap, json_t *culprits, char **note)
{
	size_t live = 0, i;
	json_t *r, *c, *by, *small, *big;
	const char *small_key = NULL, *big_key = NULL;
	char *all, text[1800];

	json_array_foreach(snap, i, r)
		live += !same(str(r, "state"), "EXITED");
	if (live < 3 || 2 * json_array_size(culprits) <= live)
		return culprits;
	/* A proven deadlock of most of the job is a finding, not a failure to separate. */
	json_array_foreach(culprits, i, c)
		if (same(str(c, "evidence"), "certain"))
			return culprits;
	by = positions(snap);
	small = smallest_position(by, &small_key, &big, &big_key);
	if (small && (json_array_size(small) >= json_array_size(culprits) || !among(culprits, small)))
		small = NULL;
	all = ranges_of_array(culprits);
	snprintf(text, sizeof(text), "the analysis cannot separate ranks %s (%zu of the %zu live ranks)%s", all ? all : "?",
		 json_array_size(culprits), live, small ? "; it names the ranks in the one position fewer ranks are in" : "");
	*note = strdup(text);
	if (small) {
		json_decref(culprits);
		culprits = position_culprits(snap, by, small, small_key, big, big_key);
	}
	free(all);
	json_decref(by);
	return culprits;
}

json_t *culprits_find(json_t *snap, json_t *groups, json_t *faulty, json_t *wf, char **note)
{
	json_t *culprits = culprits_of(snap, groups, faulty, wf);

	*note = NULL;
	if (!json_array_size(faulty))
		culprits = narrow(snap, culprits, note);
	return sorted(culprits);
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
	wf_culprits_unique(culprits);
	if (live)
		return culprits;
	json_array_foreach(json_object_get(wf, "culprits"), i, c)
		wf_culprit(culprits, (int)json_integer_value(json_object_get(c, "rank")), str(c, "evidence"), "%s",
			   str(c, "why"));
	if (json_array_size(culprits)) {
		wf_culprits_unique(culprits);
		return culprits;
	}

	const char *evidence = any_record(snap) ? "likely" : "stacks";

	if (!finalize_culprits(snap, culprits, evidence))
		minority_culprits(snap, groups, culprits, evidence);
	wf_culprits_unique(culprits);
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
