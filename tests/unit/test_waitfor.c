/* Tests of the wait-for analysis (monitor/hang/waitfor.c) on synthetic records as mpirecord.c makes
 * them: a point-to-point cycle, a collective with different data sizes (counts), ranks a
 * collective behind, a rank in MPI_Finalize, nothing recorded, and a large job. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/hang/waitfor.h"
#include "suites.h"

#define WORLD "0000000000000001"

/* A rank in a call: func, peer (-2 none), tag, coll_seq (0: not a collective), bytes; its
 * WORLD collective count world_seq, with history entries (func, bytes) for the numbers
 * world_seq - n + 1 .. world_seq. */
static json_t *rank_rec(int rank, int size, const char *func, int peer, int tag, long long seq,
			long long bytes, long long world_seq, json_t *history)
{
	char members[32];
	json_t *calls = json_array();

	snprintf(members, sizeof(members), "0-%d", size - 1);
	if (func)
		json_array_append_new(calls, json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:I, s:I, s:s, s:i, s:[], s:b}",
						       "tid", 100 + rank, "func", func, "comm", WORLD, "peer", peer,
						       "tag", tag, "root", -1, "bytes", (json_int_t)bytes, "coll_seq",
						       (json_int_t)seq, "at", "a.c:10", "nreqs", 0, "reqs", "main", 1));
	return json_pack("{s:i, s:s, s:i, s:s, s:{s:s, s:i, s:b, s:i, s:o, s:[], s:[{s:s, s:i, s:I, s:s, s:o}]}}",
			 "rank", rank, "host", "n1", "pid", 1000 + rank, "state", "IN_MPI", "record",
			 "library", "test", "world_rank", rank, "finalized", 0, "dropped", 0, "calls", calls,
			 "requests", "comms", "id", WORLD, "size", size, "coll_seq", (json_int_t)world_seq,
			 "members", members, "history", history ? history : json_array());
}

static json_t *hist(long long seq, const char *func, long long bytes, const char *at)
{
	return json_pack("[{s:I, s:s, s:i, s:I, s:s}]", "coll_seq", (json_int_t)seq, "func", func, "root",
			 -1, "bytes", (json_int_t)bytes, "at", at);
}

static bool faulty_is(json_t *wf, const char *want)
{
	char *got = json_dumps(json_object_get(wf, "faulty_ranks"), JSON_COMPACT);
	bool same = got && !strcmp(got, want);

	if (!same)
		fprintf(stderr, "faulty_ranks %s, want %s\n", got ? got : "?", want);
	free(got);
	return same;
}

START_TEST(no_records_no_analysis)
{
	json_t *s = json_pack("[{s:i, s:s}]", "rank", 0, "state", "IN_MPI");

	ck_assert_ptr_null(waitfor_analyze(s));
	json_decref(s);
}
END_TEST

START_TEST(p2p_cycle_is_a_deadlock)
{
	json_t *s = json_array();

	json_array_append_new(s, rank_rec(0, 3, "MPI_Recv", 1, 5, 0, 4, 3, NULL));
	json_array_append_new(s, rank_rec(1, 3, "MPI_Recv", 0, 5, 0, 4, 3, NULL));
	json_array_append_new(s, rank_rec(2, 3, "MPI_Barrier", -2, 0, 4, 0, 4, NULL));

	json_t *wf = waitfor_analyze(s);

	ck_assert_ptr_nonnull(wf);
	ck_assert(faulty_is(wf, "[0,1]"));
	ck_assert_int_eq(json_array_size(json_object_get(wf, "cycles")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(wf, "collectives"), 0),
							   "not_entered")), "0-1");
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* Same collective, different data sizes (MPI_Allreduce of 2 ints on rank 2, 1 elsewhere). */
START_TEST(different_counts_are_a_mismatch)
{
	json_t *s = json_array();

	for (int r = 0; r < 4; r++)
		json_array_append_new(s, rank_rec(r, 4, "MPI_Allreduce", -2, 0, 7, r == 2 ? 8 : 4, 7,
						  hist(7, "MPI_Allreduce", r == 2 ? 8 : 4, r == 2 ? "a.c:20" : "a.c:10")));

	json_t *wf = waitfor_analyze(s);
	json_t *m = json_array_get(json_object_get(wf, "mismatches"), 0);

	ck_assert(faulty_is(wf, "[2]"));
	ck_assert_int_eq(json_integer_value(json_object_get(m, "coll_seq")), 7);
	ck_assert_int_eq(json_array_size(json_object_get(m, "sides")), 2);
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* The v-variants: sizes that differ by rank (bytes -1) are no mismatch; another operation is,
 * and its sides say "sizes by rank". */
START_TEST(v_collectives_compare_operations_not_sizes)
{
	json_t *s = json_array();

	for (int r = 0; r < 4; r++)
		json_array_append_new(s, rank_rec(r, 4, r == 3 ? "MPI_Scatterv" : "MPI_Gatherv", -2, 0, 9, -1, 9,
						  hist(9, r == 3 ? "MPI_Scatterv" : "MPI_Gatherv", -1, "a.c:30")));

	json_t *wf = waitfor_analyze(s);
	char *text = json_dumps(json_object_get(wf, "diagnosis"), 0);

	ck_assert(faulty_is(wf, "[3]"));
	ck_assert_ptr_nonnull(strstr(text, "rank 3 calls MPI_Scatterv (sizes by rank) at a.c:30"));
	free(text);
	json_decref(wf);
	json_decref(s);
	s = json_array();
	for (int r = 0; r < 4; r++)
		json_array_append_new(s, rank_rec(r, 4, "MPI_Gatherv", -2, 0, 9, -1, 9, hist(9, "MPI_Gatherv", -1, "a.c:30")));
	wf = waitfor_analyze(s);
	ck_assert_int_eq(json_array_size(json_object_get(wf, "mismatches")), 0);
	json_decref(wf);
	json_decref(s);
}
END_TEST

START_TEST(rank_in_finalize_is_waited_for)
{
	json_t *s = json_array();

	json_array_append_new(s, rank_rec(0, 3, "MPI_Barrier", -2, 0, 9, 0, 9, NULL));
	json_array_append_new(s, rank_rec(1, 3, "MPI_Finalize", -2, 0, 0, 0, 8, NULL));
	json_array_append_new(s, rank_rec(2, 3, "MPI_Barrier", -2, 0, 9, 0, 9, NULL));

	json_t *wf = waitfor_analyze(s);

	ck_assert(faulty_is(wf, "[1]"));
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* A rank in a call the layer does not record is named with the call its stack shows, and with
 * why there is no record: never a bare "unrecorded". */
START_TEST(an_unrecorded_call_is_named_from_the_stack)
{
	json_t *s = json_array();
	json_t *r1 = rank_rec(1, 3, NULL, -2, 0, 0, 0, 8, NULL);

	json_object_set_new(r1, "mpi_call", json_string("MPI_Alltoall"));
	json_object_set_new(r1, "recording_layer", json_true());
	json_array_append_new(s, rank_rec(0, 3, "MPI_Barrier", -2, 0, 9, 0, 9, NULL));
	json_array_append_new(s, r1);
	json_array_append_new(s, rank_rec(2, 3, "MPI_Barrier", -2, 0, 9, 0, 9, NULL));

	json_t *wf = waitfor_analyze(s);
	char *text = json_dumps(wf, 0);

	ck_assert_ptr_nonnull(strstr(text, "rank 1 is in MPI_Alltoall, which the recording layer does not record"));
	ck_assert_ptr_null(strstr(text, "unrecorded"));
	free(text);
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* A rank that finalized early: its neighbours wait for its messages (point to point) and have
 * not entered the collective the others wait in either; only the rank that left is at fault. */
START_TEST(neighbours_of_a_rank_that_left_are_not_at_fault)
{
	json_t *s = json_array();

	/* 0 <- 1 <- 2 (finalized) -> 3 -> 4: neighbours and theirs wait for halos; 5 waits in
	 * the collective. */
	json_array_append_new(s, rank_rec(0, 6, "MPI_Sendrecv", 1, 0, 0, 4, 8, NULL));
	json_array_append_new(s, rank_rec(1, 6, "MPI_Sendrecv", 2, 0, 0, 4, 8, NULL));
	json_array_append_new(s, rank_rec(2, 6, "MPI_Finalize", -2, 0, 0, 0, 8, NULL));
	json_array_append_new(s, rank_rec(3, 6, "MPI_Sendrecv", 2, 1, 0, 4, 8, NULL));
	json_array_append_new(s, rank_rec(4, 6, "MPI_Sendrecv", 3, 1, 0, 4, 8, NULL));
	json_array_append_new(s, rank_rec(5, 6, "MPI_Allreduce", -2, 0, 9, 4, 9, NULL));

	json_t *wf = waitfor_analyze(s);

	ck_assert(faulty_is(wf, "[2]"));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(wf, "why")), "left"));
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* 4,096 ranks, one behind in MPI_Allreduce: found, and the text stays bounded. */
START_TEST(large_job_one_behind)
{
	json_t *s = json_array();

	for (int r = 0; r < 4096; r++)
		json_array_append_new(s, r == 1234 ? rank_rec(r, 4096, "MPI_Recv", 1235, 3, 0, 4, 41, NULL) :
						     rank_rec(r, 4096, "MPI_Allreduce", -2, 0, 42, 4, 42, NULL));

	json_t *wf = waitfor_analyze(s);

	ck_assert(faulty_is(wf, "[1234]"));
	ck_assert_int_eq(json_array_size(json_object_get(wf, "collectives")), 1);
	json_decref(wf);
	json_decref(s);
}
END_TEST

Suite *waitfor_suite(void)
{
	Suite *s = suite_create("waitfor");
	TCase *tc = tcase_create("analysis");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, no_records_no_analysis);
	tcase_add_test(tc, p2p_cycle_is_a_deadlock);
	tcase_add_test(tc, different_counts_are_a_mismatch);
	tcase_add_test(tc, v_collectives_compare_operations_not_sizes);
	tcase_add_test(tc, rank_in_finalize_is_waited_for);
	tcase_add_test(tc, an_unrecorded_call_is_named_from_the_stack);
	tcase_add_test(tc, large_job_one_behind);
	tcase_add_test(tc, neighbours_of_a_rank_that_left_are_not_at_fault);
	suite_add_tcase(s, tc);
	return s;
}
