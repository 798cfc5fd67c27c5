/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the snapshot in classes (monitor/hang/snapclass.c) and of the wait-for analysis over
 * classes (waitfor.c's hubs): parts merged in any order and grouping give the same classes and
 * rank sets; a form expands back to the ranks it was made of (records, thread ids and all); the
 * checks between snapshots read both forms alike; malformed parts are refused, not trusted; a
 * collective that thousands of ranks wait in, with hundreds late, names exactly the late ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/hang/report.h"
#include "../../monitor/hang/snapclass.h"
#include "../../monitor/hang/waitfor.h"
#include "suites.h"

#define WORLD "0000000000000001"

/* A rank of a ring-and-collective job: ranks below ring wait in MPI_Recv from the next one, the
 * others in Allreduce #8; thread ids are the pid's (the main thread) or pid + 1. */
static json_t *ring_rank(int rank, int size, int ring)
{
	bool in_ring = rank < ring;
	int pid = 5000 + 3 * rank;
	json_t *call = json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:I, s:s, s:i, s:[], s:b}", "tid", pid,
				 "func", in_ring ? "MPI_Recv" : "MPI_Allreduce", "comm", WORLD, "peer",
				 in_ring ? (rank + 1) % ring : -2, "tag", in_ring ? 7 : -1, "root", -1, "bytes", 8,
				 "coll_seq", (json_int_t)(in_ring ? 0 : 8), "at", "0x4011", "nreqs", 0, "reqs", "main", 1);
	char members[32];

	snprintf(members, sizeof(members), "0-%d", size - 1);
	return json_pack("{s:i, s:s, s:i, s:s, s:s, s:s, s:[{s:s, s:s}], s:b, s:{s:s, s:i, s:b, s:i, s:[o], "
			 "s:[{s:i, s:s}], s:[{s:s, s:i, s:i, s:s, s:[]}], s:[], s:b}}",
			 "rank", rank, "host", rank % 2 ? "n2" : "n1", "pid", pid, "state", "IN_MPI", "mpi_call",
			 in_ring ? "MPI_Recv" : "MPI_Allreduce", "path", in_ring ? "main > ring" : "main > solve",
			 "frames", "func", in_ring ? "ring" : "solve", "module", "app", "stopped", 0, "record",
			 "library", "test", "world_rank", rank, "finalized", 0, "dropped", 0, "calls", call,
			 "requests", "tid", pid + 1, "func", "MPI_Isend", "comms", "id", WORLD, "size", size,
			 "coll_seq", 7 + !in_ring, "members", members, "history", "channels", "channels_complete", 1);
}

static json_t *ring_job(int size, int ring)
{
	json_t *s = json_array();

	for (int r = 0; r < size; r++)
		json_array_append_new(s, ring_rank(r, size, ring));
	return s;
}

/* The form of parts (each a list of ranks of snap) captured apart and merged in the given order,
 * as the monitors' tree merges them: leaves make forms, parents add them. */
static json_t *merged(json_t *snap, int nparts, const int *order, int stride)
{
	struct snapclass *top = snapclass_new();

	for (int k = 0; k < nparts; k++) {
		struct snapclass *leaf = snapclass_new();
		size_t i;
		json_t *r;

		/* Part p holds the ranks r with (r / stride) % nparts == p. */
		json_array_foreach(snap, i, r)
			if ((int)(i / (size_t)stride) % nparts == order[k])
				ck_assert_int_eq(snapclass_add_rank(leaf, r), 0);

		json_t *form = snapclass_form(leaf);

		ck_assert_int_eq(snapclass_add_form(top, form), 0);
		json_decref(form);
		snapclass_free(leaf);
	}

	json_t *form = snapclass_form(top);

	ck_assert_int_eq(snapclass_count(top), (long)json_array_size(snap));
	snapclass_free(top);
	return form;
}

START_TEST(merging_in_any_order_gives_the_same_classes)
{
	json_t *snap = ring_job(300, 40);
	static const int orders[][5] = { { 0, 1, 2, 3, 4 }, { 4, 3, 2, 1, 0 }, { 2, 0, 4, 1, 3 } };
	json_t *first = merged(snap, 5, orders[0], 7);

	for (size_t o = 1; o < sizeof(orders) / sizeof(orders[0]); o++) {
		json_t *again = merged(snap, 5, orders[o], 7);

		ck_assert(json_equal(first, again));
		json_decref(again);
	}
	/* Grouped otherwise (blocks of 1 instead of 7) and in one part: the same classes still. */
	json_t *other = merged(snap, 5, orders[2], 1), *one = merged(snap, 1, orders[0], 1);

	ck_assert(json_equal(first, other));
	ck_assert(json_equal(first, one));
	/* 40 ring ranks (each its own peer) and one class of the 260 others. */
	ck_assert_int_eq(json_array_size(json_object_get(first, "classes")), 41);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(first, "classes"), 40),
							   "ranks")), "40-299");
	json_decref(one);
	json_decref(other);
	json_decref(first);
	json_decref(snap);
}
END_TEST

START_TEST(a_form_expands_back_to_its_ranks)
{
	json_t *snap = ring_job(100, 10);
	static const int order[] = { 1, 0, 2 };
	json_t *form = merged(snap, 3, order, 4), *back = snapclass_expand(form);

	ck_assert_int_eq(json_array_size(back), 100);
	for (size_t i = 0; i < 100; i++) {
		json_t *r = json_array_get(back, i);

		/* Shared with its class: no world_rank, thread ids relative, until restored. */
		ck_assert_ptr_null(json_object_get(json_object_get(r, "record"), "world_rank"));
		snapclass_restore(r);
		if (!json_equal(r, json_array_get(snap, i))) {
			char *a = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS), *b = json_dumps(json_array_get(snap, i),
												 JSON_COMPACT | JSON_SORT_KEYS);

			ck_abort_msg("rank %zu: %s\nwant %s", i, a, b);
		}
	}
	json_decref(back);
	json_decref(form);
	json_decref(snap);
}
END_TEST

/* The transient-slowdown check and the faulty ranks read a form as they read the ranks. */
START_TEST(the_checks_read_both_forms_alike)
{
	json_t *a = ring_job(64, 8), *b = ring_job(64, 8);
	char why[256], why2[256];

	json_object_set_new(json_array_get(b, 50), "mpi_call", json_string("MPI_Barrier"));
	json_object_set_new(json_array_get(b, 3), "state", json_string("OUT_MPI"));
	json_object_set_new(json_array_get(a, 3), "state", json_string("OUT_MPI"));

	static const int order[] = { 0, 1 };
	json_t *fa = merged(a, 2, order, 5), *fb = merged(b, 2, order, 5);

	ck_assert(report_moved(a, b, why, sizeof(why)));
	ck_assert(report_moved(fa, fb, why2, sizeof(why2)));
	ck_assert_str_eq(why, why2);
	ck_assert(!report_moved(fa, fa, why, sizeof(why)));

	json_t *snaps[] = { a, b }, *forms[] = { fa, fb };
	json_t *f1 = report_faulty(snaps, 2), *f2 = report_faulty(forms, 2);

	ck_assert(json_equal(f1, f2));
	ck_assert_int_eq(json_array_size(f1), 1);

	char s1[256], s2[256];

	report_summary(a, s1, sizeof(s1));
	report_summary(fa, s2, sizeof(s2));
	ck_assert_str_eq(s1, s2);
	json_decref(f2);
	json_decref(f1);
	json_decref(fb);
	json_decref(fa);
	json_decref(b);
	json_decref(a);
}
END_TEST

START_TEST(malformed_parts_are_left_out)
{
	struct snapclass *s = snapclass_new();
	json_t *good = json_pack("{s:[{s:{s:s}, s:s, s:s}], s:[{s:s, s:s}]}", "classes", "body", "state", "IN_MPI",
				 "ranks", "0-2", "pids", "10-12", "hosts", "host", "n1", "ranks", "0-2");
	static const char *const bad[][2] = {
		{ "3-1", "1,2,3" },     /* a run going down */
		{ "4,5", "20" },        /* fewer pids than ranks */
		{ "6,", "30" },         /* a trailing comma */
		{ "x", "1" },           /* no number */
		{ "99999999999", "1" }, /* past any rank */
		{ "7-16777300", "1" },  /* more ranks than a snapshot holds */
	};

	ck_assert_int_eq(snapclass_add_form(s, good), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *f = json_pack("{s:[{s:{s:s}, s:s, s:s}]}", "classes", "body", "state", "OUT_MPI", "ranks",
				      bad[i][0], "pids", bad[i][1]);

		ck_assert_int_eq(snapclass_add_form(s, f), -1);
		json_decref(f);
	}
	ck_assert_int_eq(snapclass_count(s), 3);

	json_t *form = snapclass_form(s), *back = snapclass_expand(form);

	ck_assert_int_eq(json_array_size(back), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(back, 2), "pid")), 12);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(back, 2), "host")), "n1");
	json_decref(back);
	json_decref(form);
	json_decref(good);
	snapclass_free(s);
}
END_TEST

/* 6,000 ranks wait in a collective 300 ranks have not entered (each computing, its own sink):
 * the analysis goes through one hub, not 6,000 x 300 edges, and names exactly the 300. */
START_TEST(a_collective_with_hundreds_late_names_them_all)
{
	json_t *s = ring_job(6000, 0);

	for (int r = 1000; r < 6000; r += 100)
		for (int k = 0; k < 6; k++) {
			json_t *x = json_array_get(s, (size_t)(r + k));

			json_object_set_new(x, "state", json_string("OUT_MPI"));
			json_array_clear(json_object_get(json_object_get(x, "record"), "calls"));
			json_object_set_new(json_array_get(json_object_get(json_object_get(x, "record"), "comms"), 0),
					    "coll_seq", json_integer(7));
		}

	json_t *wf = waitfor_analyze(s), *w0 = json_array_get(json_object_get(wf, "waits"), 0);

	ck_assert_int_eq(json_array_size(json_object_get(wf, "faulty_ranks")), 300);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(wf, "faulty_ranks"), 0)), 1000);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(wf, "faulty_ranks"), 299)), 5905);
	/* Past 64 late ranks a waiter lists them as ranges, once. */
	ck_assert_int_eq(json_array_size(json_object_get(w0, "waits_for")), 0);
	ck_assert_str_eq(json_string_value(json_object_get(w0, "waits_for_late")), "1000-1005,1100-1105,1200-1205,"
			 "1300-1305,1400-1405,1500-1505,1600-1605,1700-1705,1800-1805,1900-1905,2000-2005,2100-2105,"
			 "2200-2205,2300-2305,2400-2405,2500-2505,2600-2605,2700-2705,2800-2805,2900-2905,3000-3005,"
			 "3100-3105,3200-3205,3300-3305,3400-3405,3500-3505,3600-3605,3700-3705,3800-3805,3900-3905,"
			 "4000-4005,4100-4105,4200-4205,4300-4305,4400-4405,4500-4505,4600-4605,4700-4705,4800-4805,"
			 "4900-4905,5000-5005,5100-5105,5200-5205,5300-5305,5400-5405,5500-5505,5600-5605,5700-5705,"
			 "5800-5805,5900-5905");
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* The ring through classes: each ring rank is its own class (its peer differs), the analysis of
 * the expanded form names the same cycle as the ranks themselves. */
START_TEST(the_analysis_of_a_form_is_the_analysis_of_its_ranks)
{
	json_t *snap = ring_job(2000, 100);
	static const int order[] = { 3, 1, 0, 2 };
	json_t *form = merged(snap, 4, order, 13), *back = snapclass_expand(form);
	json_t *a = waitfor_analyze(snap), *b = waitfor_analyze(back);

	ck_assert(json_equal(json_object_get(a, "culprits"), json_object_get(b, "culprits")));
	ck_assert(json_equal(json_object_get(a, "cycles"), json_object_get(b, "cycles")));
	ck_assert_int_eq(json_array_size(json_object_get(a, "faulty_ranks")), 100);
	json_decref(b);
	json_decref(a);
	json_decref(back);
	json_decref(form);
	json_decref(snap);
}
END_TEST

Suite *snapclass_suite(void)
{
	Suite *s = suite_create("snapclass");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, merging_in_any_order_gives_the_same_classes);
	tcase_add_test(tc, a_form_expands_back_to_its_ranks);
	tcase_add_test(tc, the_checks_read_both_forms_alike);
	tcase_add_test(tc, malformed_parts_are_left_out);
	tcase_add_test(tc, a_collective_with_hundreds_late_names_them_all);
	tcase_add_test(tc, the_analysis_of_a_form_is_the_analysis_of_its_ranks);
	suite_add_tcase(s, tc);
	return s;
}
