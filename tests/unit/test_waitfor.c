/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the wait-for analysis (monitor/hang/waitfor.c) on synthetic records as mpirecord.c makes
 * them: a point-to-point cycle, a collective with different data sizes (counts), ranks a
 * collective behind, a rank in MPI_Finalize, nothing recorded, and a large job. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/hang/culprits.h"
#include "../../monitor/hang/report.h"
#include "../../monitor/hang/snapclass.h"
#include "../../monitor/hang/waitfor.h"
#include "suites.h"
#include "waitfor_records.h"


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
	return json_pack("{s:i, s:s, s:i, s:s, s:{s:s, s:i, s:b, s:i, s:o, s:[], s:[{s:s, s:i, s:I, s:s, s:o}], "
			 "s:[], s:b}}",
			 "rank", rank, "host", "n1", "pid", 1000 + rank, "state", "IN_MPI", "record",
			 "library", "test", "world_rank", rank, "finalized", 0, "dropped", 0, "calls", calls,
			 "requests", "comms", "id", WORLD, "size", size, "coll_seq", (json_int_t)world_seq,
			 "members", members, "history", history ? history : json_array(), "channels",
			 "channels_complete", 1);
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

/* A rank's counters for one envelope (record/channels.c): sends to peer with tag, receives
 * from peer (or -1: any) posted and completed. */
static void chan(json_t *rank, int peer, int tag, long long sent, long long posted, long long done)
{
	json_array_append_new(json_object_get(json_object_get(rank, "record"), "channels"),
			      json_pack("{s:s, s:i, s:i, s:I, s:I, s:I}", "comm", WORLD, "peer", peer, "tag", tag,
					"sent", (json_int_t)sent, "posted", (json_int_t)posted, "done", (json_int_t)done));
}

/* A live request of the rank, waited on by its current call. */
static void req(json_t *rank, int slot, const char *func, int peer, int tag, long long bytes)
{
	json_t *rec = json_object_get(rank, "record"), *call = json_array_get(json_object_get(rec, "calls"), 0);

	json_array_append_new(json_object_get(rec, "requests"),
			      json_pack("{s:i, s:s, s:s, s:i, s:i, s:I, s:b, s:s}", "slot", slot, "func", func, "comm",
					WORLD, "peer", peer, "tag", tag, "bytes", (json_int_t)bytes, "persistent", 0,
					"at", "halo.f90:30"));
	json_array_append_new(json_object_get(call, "reqs"), json_integer(slot));
	json_object_set_new(call, "nreqs", json_integer((json_int_t)json_array_size(json_object_get(call, "reqs"))));
}

/* s as the leader has it after the monitors' tree: in classes (snapclass.h), expanded. */
static json_t *through_classes(json_t *s)
{
	struct snapclass *c = snapclass_new();
	size_t i;
	json_t *r;

	json_array_foreach(s, i, r)
		snapclass_add_rank(c, r);

	json_t *form = snapclass_form(c), *back = snapclass_expand(form);

	json_decref(form);
	snapclass_free(c);
	return back;
}

/* The analysis of s names exactly faulty, rank with evidence, and names the same culprits for
 * the same reasons when s came through the monitors' classes; frees s. */
static void expect_culprit(json_t *s, const char *faulty, int rank, const char *evidence)
{
	json_t *wf = waitfor_analyze(s), *back = through_classes(s), *wf2 = waitfor_analyze(back);

	ck_assert(faulty_is(wf, faulty));
	ck_assert_str_eq(evidence_of(wf, rank), evidence);
	ck_assert(json_equal(json_object_get(wf, "culprits"), json_object_get(wf2, "culprits")));
	json_decref(wf2);
	json_decref(back);
	json_decref(wf);
	json_decref(s);
}

/* The ranks a rank's entry in "waits" names. */
static bool waits_for_is(json_t *wf, int rank, const char *want)
{
	size_t i;
	json_t *w;

	json_array_foreach(json_object_get(wf, "waits"), i, w)
		if (json_integer_value(json_object_get(w, "rank")) == rank) {
			char *got = json_dumps(json_object_get(w, "waits_for"), JSON_COMPACT);
			bool same = got && !strcmp(got, want);

			if (!same)
				fprintf(stderr, "rank %d waits for %s, want %s\n", rank, got ? got : "?", want);
			free(got);
			return same;
		}
	return !strcmp(want, "none");
}

/* Does the analysis say the records prove the hang (issue 68: a proven hang is confirmed at
 * once), with words containing want? NULL: no proof. */
static bool proof_is(json_t *wf, const char *want)
{
	const char *p = json_string_value(json_object_get(wf, "proof"));

	return want ? p && strstr(p, want) : !p;
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
	ck_assert(proof_is(wf, "wait for each other in a cycle"));
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
	ck_assert(proof_is(wf, "collective call that does not match"));
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
	ck_assert(proof_is(wf, "a rank left"));
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

/* NPB BT's case: ranks in MPI_Waitall of a ring halo exchange, rank 2 held in MPI elsewhere
 * (no record of its call). Ranks 0 and 1 each posted their sends to the other: no cycle between
 * them; only the receives from rank 2 are blocked, and rank 2 alone is named. */
START_TEST(halo_waitall_names_the_held_rank_not_a_cycle)
{
	json_t *s = json_array();

	for (int r = 0; r < 4; r++) {
		int left = (r + 3) % 4, right = (r + 1) % 4;
		json_t *x = rank_rec(r, 4, r == 2 ? NULL : "MPI_Waitall", -2, 0, 0, 0, 3, NULL);

		if (r == 2) {
			json_object_set_new(x, "mpi_call", json_string("MPI_Recv"));
			chan(x, left, 5, 9, 9, 9);
			chan(x, right, 5, 9, 9, 9);
		} else {
			req(x, 1, "MPI_Irecv", left, 5, 8);
			req(x, 2, "MPI_Irecv", right, 5, 8);
			req(x, 3, "MPI_Isend", left, 5, 8);
			req(x, 4, "MPI_Isend", right, 5, 8);
			chan(x, left, 5, 10, 10, 9);
			chan(x, right, 5, 10, 10, 9);
		}
		json_array_append_new(s, x);
	}

	json_t *wf = waitfor_analyze(s);

	ck_assert(faulty_is(wf, "[2]"));
	ck_assert_str_eq(evidence_of(wf, 2), "certain");
	ck_assert_int_eq(json_array_size(json_object_get(wf, "cycles")), 0);
	ck_assert(waits_for_is(wf, 0, "[]"));
	ck_assert(waits_for_is(wf, 1, "[2]"));
	ck_assert(waits_for_is(wf, 3, "[2]"));
	/* Certain that they wait for rank 2, but rank 2 may yet come out of its call: no proof. */
	ck_assert(proof_is(wf, NULL));
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* A send whose receive is not posted: small, it went out eagerly (no wait); 1 MiB, it waits. */
START_TEST(an_eager_send_waits_for_nobody)
{
	for (int big = 0; big < 2; big++) {
		json_t *s = json_array(), *r0 = rank_rec(0, 3, "MPI_Waitall", -2, 0, 0, 0, 4, NULL);

		req(r0, 1, "MPI_Isend", 1, 3, big ? 1 << 20 : 8);
		chan(r0, 1, 3, 1, 0, 0);
		json_array_append_new(s, r0);
		json_array_append_new(s, rank_rec(1, 3, "MPI_Barrier", -2, 0, 5, 0, 5, NULL));
		json_array_append_new(s, rank_rec(2, 3, "MPI_Barrier", -2, 0, 5, 0, 5, NULL));

		json_t *wf = waitfor_analyze(s);

		ck_assert(waits_for_is(wf, 0, big ? "[1]" : "[]"));
		ck_assert(faulty_is(wf, "[0]"));
		/* Either way rank 0 is named, likely: its wait is not explained by its own records. */
		ck_assert_str_eq(evidence_of(wf, 0), "likely");
		json_decref(wf);
		json_decref(s);
	}
}
END_TEST

/* A wildcard receive is blocked only when no member's matching send is left over. */
START_TEST(any_source_blocks_only_when_no_member_sent)
{
	for (int taken = 4; taken <= 5; taken++) {
		json_t *s = json_array(), *r0 = rank_rec(0, 3, "MPI_Recv", -1, 1, 0, 4, 3, NULL);

		chan(r0, -1, 1, 0, taken + 1, taken);
		json_array_append_new(s, r0);
		for (int r = 1; r < 3; r++) {
			json_t *x = rank_rec(r, 3, "MPI_Recv", 0, 2, 0, 4, 3, NULL);

			chan(x, 0, 1, r == 2 ? 5 : 0, 0, 0);
			chan(x, 0, 2, 0, 1, 0);
			json_array_append_new(s, x);
		}

		json_t *wf = waitfor_analyze(s);

		ck_assert(waits_for_is(wf, 0, taken == 4 ? "[]" : "[1,2]"));
		ck_assert(proof_is(wf, NULL)); /* a wildcard: the hang is never proven */
		json_decref(wf);
		json_decref(s);
	}
}
END_TEST

/* Master-worker: rank 0 waits for any worker's result; workers 1 and 2 finished (MPI_Finalize);
 * worker 3 took 5 tasks, answered 4 and waits for a sixth. Rank 3 is named, not the master. */
START_TEST(any_source_master_names_the_worker_that_never_answered)
{
	json_t *s = json_array(), *m = rank_rec(0, 4, "MPI_Recv", -1, 1, 0, 4, 1, NULL);

	chan(m, -1, 1, 0, 15, 14);
	for (int w = 1; w < 4; w++)
		chan(m, w, 2, w == 3 ? 5 : 6, 0, 0);
	json_array_append_new(s, m);
	for (int w = 1; w < 4; w++) {
		json_t *x = rank_rec(w, 4, w == 3 ? "MPI_Recv" : "MPI_Finalize", w == 3 ? 0 : -2, 2, 0, 4, 1, NULL);

		chan(x, 0, 1, w == 3 ? 4 : 5, 0, 0);
		chan(x, 0, 2, 0, w == 3 ? 6 : 6, w == 3 ? 5 : 6);
		json_array_append_new(s, x);
	}

	json_t *wf = waitfor_analyze(s);

	ck_assert(faulty_is(wf, "[3]"));
	ck_assert_str_eq(evidence_of(wf, 3), "likely");
	ck_assert(waits_for_is(wf, 0, "[3]"));
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* A genuine cycle through Irecv/Waitall: each rank waits for its right neighbour's message
 * before sending its own. Every member is named, certain. */
START_TEST(waitall_cycle_of_four_is_certain)
{
	json_t *s = json_array();

	for (int r = 0; r < 4; r++) {
		json_t *x = rank_rec(r, 4, "MPI_Waitall", -2, 0, 0, 0, 2, NULL);

		req(x, 7, "MPI_Irecv", (r + 1) % 4, 7, 4096);
		chan(x, (r + 1) % 4, 7, 0, 6, 5);
		chan(x, (r + 3) % 4, 7, 5, 0, 0);
		json_array_append_new(s, x);
	}

	json_t *wf = waitfor_analyze(s);
	char *cyc = json_dumps(json_object_get(wf, "cycles"), JSON_COMPACT);

	ck_assert(faulty_is(wf, "[0,1,2,3]"));
	ck_assert_str_eq(cyc, "[[0,1,2,3]]");
	ck_assert_str_eq(evidence_of(wf, 2), "certain");
	free(cyc);
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* A cycle whose one member waits for a tag its peer never sent, while the other waits for a
 * message sent before: the odd receive's rank alone, likely. */
START_TEST(the_wrong_tag_in_a_cycle_is_named_alone)
{
	json_t *s = json_array(), *r1 = rank_rec(1, 3, "MPI_Recv", 2, 9, 0, 4, 3, NULL);
	json_t *r2 = rank_rec(2, 3, "MPI_Recv", 1, 5, 0, 4, 3, NULL);

	chan(r1, 2, 5, 3, 0, 0);
	chan(r1, 2, 9, 0, 1, 0);
	chan(r2, 1, 5, 3, 4, 3);
	json_array_append_new(s, rank_rec(0, 3, "MPI_Barrier", -2, 0, 4, 0, 4, NULL));
	json_array_append_new(s, r1);
	json_array_append_new(s, r2);
	expect_culprit(s, "[1]", 1, "likely");
}
END_TEST

/* 4 ranks: rank 1 waits in func from peer (tag) outside the MPI_Allreduce the others wait in;
 * the counters of that envelope at rank 1 (l: sent, posted, done) and at the peer (p). */
static json_t *one_outside(const char *func, int peer, int tag, const long long l[3], const long long p[3])
{
	json_t *s = json_array();

	for (int r = 0; r < 4; r++) {
		json_t *x = r == 1 ? rank_rec(1, 4, func, peer, tag, 0, 4, 7, NULL) :
				     rank_rec(r, 4, "MPI_Allreduce", -2, 0, 8, 4, 8, NULL);

		if (r == 1)
			chan(x, peer, tag, l[0], l[1], l[2]);
		if (r == peer)
			chan(x, 1, tag, p[0], p[1], p[2]);
		json_array_append_new(s, x);
	}
	return s;
}

/* A skipped send: rank 2 did not send rank 1 its 5th message and went on into MPI_Allreduce;
 * rank 1 waits for it, outside the collective. Rank 2 is named, not the rank left waiting. */
START_TEST(a_skipped_send_names_the_sender)
{
	static const long long l[3] = { 0, 5, 4 }, p[3] = { 4, 0, 0 };

	expect_culprit(one_outside("MPI_Recv", 2, 5, l, p), "[2]", 2, "likely");
}
END_TEST

/* A skipped collective in a bulk-synchronous code: rank 1 skipped MPI_Allreduce and went on to
 * the next halo exchange, where it waits for rank 0's message (a channel used every iteration).
 * Rank 1 is ahead (rank 0 has not received its newest message): rank 1 is named, not rank 0. */
START_TEST(a_rank_ahead_of_the_collective_is_named)
{
	static const long long l[3] = { 9, 9, 8 }, p[3] = { 8, 8, 8 };

	expect_culprit(one_outside("MPI_Sendrecv", 0, 0, l, p), "[1]", 1, "likely");
}
END_TEST

/* The stencil's ring: rank 1 skipped MPI_Allreduce, and its next MPI_Sendrecv sends to rank 2
 * and receives from rank 0. Its messages to rank 0 were all received; its newest, to rank 2
 * (inside the collective), is not: rank 1 is ahead, and named. */
START_TEST(a_rank_ahead_in_a_ring_is_named)
{
	static const long long l[3] = { 8, 9, 8 }, p[3] = { 8, 8, 8 };
	json_t *s = one_outside("MPI_Sendrecv", 0, 0, l, p);

	chan(json_array_get(s, 1), 2, 0, 9, 0, 0);
	chan(json_array_get(s, 2), 1, 0, 0, 8, 8);
	expect_culprit(s, "[1]", 1, "likely");
}
END_TEST

/* mpi4py's pickled allreduce: rank 0 waits, point to point, for rank 1's part; rank 1 waits in
 * comm.recv() for a message rank 2 never sends; ranks 2-3 went on into the next collective,
 * which ranks 0 and 1 have not entered. Rank 0 is held up by rank 1: rank 1 alone. */
START_TEST(a_late_rank_held_by_another_late_rank_is_not_named)
{
	json_t *s = json_array(), *r0 = rank_rec(0, 4, "MPI_Recv", 1, 74, 0, 4, 5, NULL);
	json_t *r1 = rank_rec(1, 4, "MPI_Mprobe", 2, 77, 0, 4, 5, NULL);

	chan(r0, 1, 74, 0, 9, 8);
	chan(r1, 0, 74, 8, 0, 0);
	chan(r1, 2, 77, 0, 1, 0);
	json_array_append_new(s, r0);
	json_array_append_new(s, r1);
	for (int r = 2; r < 4; r++)
		json_array_append_new(s, rank_rec(r, 4, "MPI_Bcast", -2, 0, 6, 4, 6, NULL));
	expect_culprit(s, "[1]", 1, "likely");
}
END_TEST

/* The same, rank 1's counters incomplete (mpi4py tags every pickled collective anew: a full
 * table): rank 0's wait on rank 1 is unproven, yet rank 0 is not named beside rank 1. */
START_TEST(a_rank_maybe_held_by_a_culprit_is_not_named)
{
	json_t *s = json_array(), *r0 = rank_rec(0, 4, "MPI_Recv", 1, 74, 0, 4, 5, NULL);
	json_t *r1 = rank_rec(1, 4, "MPI_Mprobe", 2, 77, 0, 4, 5, NULL);

	json_object_set_new(json_object_get(r1, "record"), "channels_complete", json_false());
	json_array_append_new(s, r0);
	json_array_append_new(s, r1);
	for (int r = 2; r < 4; r++)
		json_array_append_new(s, rank_rec(r, 4, "MPI_Bcast", -2, 0, 6, 4, 6, NULL));

	json_t *wf = waitfor_analyze(s);

	ck_assert(faulty_is(wf, "[1]"));
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* A peer without counters (an older layer, a full table): no edge is claimed on its account. */
START_TEST(a_peer_without_counters_is_no_proof)
{
	json_t *s = json_array(), *r1 = rank_rec(1, 2, "MPI_Recv", 0, 5, 0, 4, 3, NULL);
	json_t *r0 = rank_rec(0, 2, "MPI_Recv", 1, 6, 0, 4, 3, NULL);

	json_object_set_new(json_object_get(r0, "record"), "channels_complete", json_false());
	json_array_append_new(s, r0);
	json_array_append_new(s, r1);

	json_t *wf = waitfor_analyze(s);

	ck_assert(waits_for_is(wf, 1, "[]"));
	ck_assert_int_eq(json_array_size(json_object_get(wf, "cycles")), 0);
	ck_assert(proof_is(wf, NULL));
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* A slow rank, not a hung one: the others wait in a Barrier it has not entered while it computes
 * (no call in its record). The records are certain whom they wait for and prove nothing: only
 * the window can tell a rank computing for long from one spinning for good. */
START_TEST(a_rank_computing_proves_nothing)
{
	json_t *s = json_array();

	for (int r = 0; r < 4; r++)
		json_array_append_new(s, r == 3 ? rank_rec(r, 4, NULL, -2, 0, 0, 0, 11, NULL) :
					   rank_rec(r, 4, "MPI_Barrier", -2, 0, 12, 0, 12, NULL));
	json_object_set_new(json_array_get(s, 3), "state", json_string("OUT_MPI"));

	json_t *wf = waitfor_analyze(s);

	ck_assert(faulty_is(wf, "[3]"));
	ck_assert(proof_is(wf, NULL));
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* Without the layer: a rank whose stack shows MPI_Finalize while the others wait is the culprit
 * (from the stacks); else the one stack group smaller than every other. */
START_TEST(without_records_the_stacks_name_the_culprit)
{
	for (int fin = 0; fin < 2; fin++) {
		json_t *s = json_array();

		for (int r = 0; r < 4; r++)
			json_array_append_new(s, json_pack("{s:i, s:s, s:s, s:s}", "rank", r, "state", "IN_MPI", "mpi_call",
							   r != 3 ? "MPI_Allreduce" : fin ? "MPI_Finalize" : "MPI_Recv",
							   "path", r != 3 ? "main > MPI_Allreduce" : "main > other"));

		json_t *groups = report_groups(s), *faulty = json_array();
		char *note = NULL;
		json_t *c = culprits_find(s, groups, faulty, NULL, &note), *ranks = culprits_ranks(c);
		char *got = json_dumps(ranks, JSON_COMPACT);

		ck_assert_str_eq(got, "[3]");
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c, 0), "evidence")), "stacks");
		ck_assert_ptr_null(note);
		free(got);
		json_decref(ranks);
		json_decref(c);
		json_decref(faulty);
		json_decref(groups);
		json_decref(s);
	}
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
	tcase_add_test(tc, halo_waitall_names_the_held_rank_not_a_cycle);
	tcase_add_test(tc, an_eager_send_waits_for_nobody);
	tcase_add_test(tc, any_source_blocks_only_when_no_member_sent);
	tcase_add_test(tc, any_source_master_names_the_worker_that_never_answered);
	tcase_add_test(tc, waitall_cycle_of_four_is_certain);
	tcase_add_test(tc, the_wrong_tag_in_a_cycle_is_named_alone);
	tcase_add_test(tc, a_skipped_send_names_the_sender);
	tcase_add_test(tc, a_rank_ahead_of_the_collective_is_named);
	tcase_add_test(tc, a_rank_ahead_in_a_ring_is_named);
	tcase_add_test(tc, a_late_rank_held_by_another_late_rank_is_not_named);
	tcase_add_test(tc, a_rank_maybe_held_by_a_culprit_is_not_named);
	tcase_add_test(tc, a_peer_without_counters_is_no_proof);
	tcase_add_test(tc, a_rank_computing_proves_nothing);
	tcase_add_test(tc, without_records_the_stacks_name_the_culprit);
	suite_add_tcase(s, tc);
	return s;
}
