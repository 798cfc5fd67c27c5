/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of ranks the hang report could not read (issue 72): a rank not sampled (its process
 * exec'd, a thread slow to stop) or whose record was unreadable is no evidence either way —
 * "no record" is not "has not entered". Built from the report of NPB FT at 16 ranks through a
 * wrapper script: rank 5 skipped MPI_Alltoall #12 on FT's duplicate of the world and waits in
 * MPI_Reduce on the world, ranks 0-4,6-14 wait in the Alltoall, and rank 15 has no record (it
 * was found while still the wrapper shell). Before the change rank 15 was named, likely, as the
 * rank every collective waited for. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/hang/culprits.h"
#include "../../monitor/hang/report.h"
#include "../../monitor/hang/waitfor.h"
#include "suites.h"

#define WORLD "0000000000000001"
#define FT "00000000000000aa"
#define NOT_SAMPLED "(not sampled: process 31764 now runs another program (it called exec); not sampled)"

/* A rank of the FT job, with its record: rank 5 past the Alltoall, the others in it. */
static json_t *ft_rank(int r, bool skipper)
{
	json_t *h_ft = json_array(), *h_world = json_array();
	long long ft_seq = skipper ? 11 : 12, world_seq = skipper ? 18 : 17;

	for (long long n = ft_seq - 3; n <= ft_seq; n++)
		json_array_append_new(h_ft, json_pack("{s:I, s:s, s:i, s:i, s:s}", "coll_seq", (json_int_t)n, "func",
						      "MPI_Alltoall", "root", -1, "bytes", 8, "at", "ft.f:123"));
	for (long long n = world_seq - 3; n <= world_seq; n++)
		json_array_append_new(h_world, json_pack("{s:I, s:s, s:i, s:i, s:s}", "coll_seq", (json_int_t)n,
							 "func", "MPI_Reduce", "root", 0, "bytes", 8, "at", "ft.f:300"));
	return json_pack("{s:i, s:s, s:i, s:s, s:s, s:s, s:b, s:{s:s, s:i, s:i, s:i, "
			 "s:[{s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:I, s:s, s:i, s:[], s:b}], s:[], "
			 "s:[{s:s, s:i, s:I, s:s, s:o}, {s:s, s:i, s:I, s:s, s:o}], s:[], s:b}}",
			 "rank", r, "host", "n1", "pid", 31700 + r, "state", "IN_MPI", "mpi_call",
			 skipper ? "MPI_Reduce" : "MPI_Alltoall", "path",
			 skipper ? "main > MAIN__ > checksum_ > MPI_Reduce" : "main > MAIN__ > fft_ > MPI_Alltoall",
			 "recording_layer", 1, "record", "library", "test", "world_rank", r, "finalized", 0, "dropped", 0,
			 "calls", "tid", 100, "func", skipper ? "MPI_Reduce" : "MPI_Alltoall", "comm",
			 skipper ? WORLD : FT, "peer", -2, "tag", 0, "root", skipper ? 0 : -1, "bytes", 8, "coll_seq",
			 (json_int_t)(skipper ? world_seq : ft_seq), "at", skipper ? "ft.f:300" : "ft.f:123", "nreqs", 0,
			 "reqs", "main", 1, "requests", "comms", "id", FT, "size", 16, "coll_seq", (json_int_t)ft_seq,
			 "members", "0-15", "history", h_ft, "id", WORLD, "size", 16, "coll_seq", (json_int_t)world_seq,
			 "members", "0-15", "history", h_world, "channels", "channels_complete", 1);
}

/* Rank r as a snapshot that could not sample it: no stack, no record. */
static json_t *unsampled_rank(int r)
{
	return json_pack("{s:i, s:s, s:i, s:s, s:n, s:s, s:[], s:b, s:b}", "rank", r, "host", "n1", "pid", 31764,
			 "state", "UNKNOWN", "mpi_call", "path", NOT_SAMPLED, "frames", "stopped", 0, "recording_layer",
			 1);
}

/* Rank r sampled in MPI, its record unreadable (it failed its check). */
static json_t *unreadable_rank(int r)
{
	return json_pack("{s:i, s:s, s:i, s:s, s:s, s:s, s:[], s:b, s:b, s:s}", "rank", r, "host", "n1", "pid",
			 31700 + r, "state", "IN_MPI", "mpi_call", "MPI_Alltoall", "path",
			 "main > MAIN__ > fft_ > MPI_Alltoall", "frames", "stopped", 0, "recording_layer", 1,
			 "record_unreadable", "its sequence numbers changed while it was read");
}

/* The whole report's culprits, as report.c makes them: the analysis, then the stacks. */
static json_t *report_culprits(json_t *snap, json_t *wf)
{
	json_t *groups = report_groups(snap), *faulty = json_array();
	char *note = NULL;
	json_t *c = culprits_find(snap, groups, faulty, wf, &note), *ranks = culprits_ranks(c);

	free(note);
	json_decref(c);
	json_decref(faulty);
	json_decref(groups);
	return ranks;
}

static bool says(json_t *wf, const char *key, const char *words)
{
	char *text = json_dumps(json_object_get(wf, key), 0);
	bool found = text && strstr(text, words);

	if (!found)
		fprintf(stderr, "%s without \"%s\": %s\n", key, words, text ? text : "?");
	free(text);
	return found;
}

/* The FT job of 15 ranks read (rank skipper past the Alltoall, or -1: none) and rank 15 as last
 * makes it; the analysis's faulty ranks and the whole report's are both want. The analysis is
 * returned (the caller frees it); s is freed. */
static json_t *expect_ft(int skipper, json_t *(*last)(int), const char *want)
{
	json_t *s = json_array();

	for (int r = 0; r < 15; r++)
		json_array_append_new(s, ft_rank(r, r == skipper));
	json_array_append_new(s, last(15));

	json_t *wf = waitfor_analyze(s), *all = report_culprits(s, wf);
	char *got = json_dumps(json_object_get(wf, "faulty_ranks"), JSON_COMPACT);
	char *named = json_dumps(all, JSON_COMPACT);

	ck_assert_str_eq(got, want);
	ck_assert_str_eq(named, want);
	free(got);
	free(named);
	json_decref(all);
	json_decref(s);
	return wf;
}

/* The report's shape: rank 15 not sampled. Rank 5 is named, certain, as it is with every rank
 * read; rank 15 is not. */
START_TEST(an_unsampled_rank_is_not_the_late_one)
{
	json_t *wf = expect_ft(5, unsampled_rank, "[5]");

	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(wf, "culprits"), 0),
							   "evidence")), "certain");
	ck_assert(says(wf, "diagnosis", "rank 15 could not be read"));
	json_decref(wf);
}
END_TEST

/* The same with rank 15 sampled but its record unreadable. */
START_TEST(an_unreadable_record_is_not_the_late_one)
{
	json_decref(expect_ft(5, unreadable_rank, "[5]"));
}
END_TEST

/* Every read rank waits in MPI_Alltoall #12 and only rank 15 could be the late one, not sampled:
 * no culprit on that absence, from the records or the stacks; the culprit is said to be unknown
 * for rank 15, and why, with the ranks the records prove waiting. */
START_TEST(the_only_candidate_unread_is_unknown_not_named)
{
	json_t *wf = expect_ft(-1, unsampled_rank, "[]");

	ck_assert(says(wf, "unknown", "\"rank\": 15"));
	ck_assert(says(wf, "unknown", "now runs another program"));
	ck_assert(says(wf, "diagnosis", "ranks 0-14 wait in MPI_Alltoall #12"));
	ck_assert(says(wf, "diagnosis", "rank 15 could not be read"));
	json_decref(wf);
}
END_TEST

Suite *unread_ranks_suite(void)
{
	Suite *s = suite_create("unread_ranks");
	TCase *t = tcase_create("absence");

	tcase_add_test(t, an_unsampled_rank_is_not_the_late_one);
	tcase_add_test(t, an_unreadable_record_is_not_the_late_one);
	tcase_add_test(t, the_only_candidate_unread_is_unknown_not_named);
	suite_add_tcase(s, t);
	return s;
}
