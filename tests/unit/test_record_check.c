/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the record checks (monitor/sample/record/record_check.c) and the parser (mpirecord.c) on
 * records a hostile rank forges (tests/fuzz/forged_areas.h): each row of issue 29's table that
 * enters through the record — a collective count at its maximum, a library name without its NUL
 * or not UTF-8, communicators sharing the members pool, members at INT_MAX, fake members — is
 * read in bounded time and either kept, escaped, or left out as unreadable, never naming a rank
 * outside the job. */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../../monitor/sample/record/mpirecord.h"
#include "../../monitor/hang/report.h"
#include "../fuzz/forged_areas.h"
#include "suites.h"

static struct psrec_area areas[FORGED_RANKS];

static void forge_all(void)
{
	for (int r = 0; r < FORGED_RANKS; r++)
		forged_base(&areas[r], r);
}

static const char *unreadable(json_t *rec)
{
	return json_string_value(json_object_get(rec, "unreadable"));
}

/* The report on the three forged ranks, all waiting in MPI. */
static json_t *forged_report(void)
{
	json_t *snap = json_array(), *none = json_array();

	for (int r = 0; r < FORGED_RANKS; r++) {
		json_t *rank = json_pack("{s:i, s:s, s:i, s:s, s:s, s:s, s:b}", "rank", r, "host", "n1", "pid", 100 + r,
					 "state", "IN_MPI", "mpi_call", "MPI_Recv", "path", "main > MPI_Recv",
					 "recording_layer", 1);
		json_t *rec = mpirecord_area_json(&areas[r], FORGED_RANKS, r);

		json_object_set(rank, unreadable(rec) ? "record_unreadable" : "record",
				unreadable(rec) ? json_object_get(rec, "unreadable") : rec);
		json_decref(rec);
		json_array_append_new(snap, rank);
	}

	json_t *report = report_build(snap, none, 0, json_object(), "none");

	json_decref(snap);
	json_decref(none);
	return report;
}

START_TEST(the_plausible_record_is_read)
{
	forge_all();

	json_t *rec = mpirecord_area_json(&areas[0], FORGED_RANKS, 0);

	ck_assert_ptr_null(unreadable(rec));
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(rec, "comms"), 0), "members")),
			 "0-2");
	json_decref(rec);

	json_t *report = forged_report();
	char *text = json_dumps(json_object_get(report, "wait_for"), 0);

	ck_assert_msg(text && strstr(text, "deadlock"), "%s", text ? text : "no wait_for");
	free(text);
	json_decref(report);
}
END_TEST

/* Row 3: a collective count at UINT64_MAX: the history walk takes its slots, no more. */
START_TEST(a_collective_count_at_its_maximum_is_bounded)
{
	forge_all();
	areas[0].comms[0].coll_seq = UINT64_MAX;
	areas[0].comms[0].history[UINT64_MAX % PSREC_HISTORY].coll_seq = UINT64_MAX;

	json_t *rec = mpirecord_area_json(&areas[0], FORGED_RANKS, 0);
	json_t *h = json_object_get(json_array_get(json_object_get(rec, "comms"), 0), "history");

	ck_assert_int_le((int)json_array_size(h), PSREC_HISTORY);
	json_decref(rec);
}
END_TEST

/* Row 6: the library's name without its NUL, and not UTF-8: bounded and escaped, the record kept. */
START_TEST(a_library_name_without_nul_or_utf8_is_escaped)
{
	forge_all();
	memset(areas[0].mpi_library, 'A', sizeof(areas[0].mpi_library));

	json_t *rec = mpirecord_area_json(&areas[0], FORGED_RANKS, 0);

	ck_assert_ptr_null(unreadable(rec));
	ck_assert_uint_eq(strlen(json_string_value(json_object_get(rec, "library"))), sizeof(areas[0].mpi_library));
	json_decref(rec);
	strcpy(areas[0].mpi_library, "MPI \xff\xfe\x1b]0;x\x07");
	rec = mpirecord_area_json(&areas[0], FORGED_RANKS, 0);
	ck_assert_str_eq(json_string_value(json_object_get(rec, "library")), "MPI \\xff\\xfe\\x1b]0;x\\x07");
	json_decref(rec);
}
END_TEST

/* Row 8: every communicator pointing at one huge members range: left out, not printed 256 times. */
START_TEST(communicators_sharing_the_members_pool_are_unreadable)
{
	forge_all();
	for (int i = 1; i < PSREC_COMMS; i++) {
		areas[0].comms[i] = areas[0].comms[0];
		areas[0].comms[i].id = (uint64_t)i + 1;
	}

	json_t *rec = mpirecord_area_json(&areas[0], FORGED_RANKS, 0);

	ck_assert_ptr_nonnull(unreadable(rec));
	ck_assert_msg(strstr(unreadable(rec), "share"), "%s", unreadable(rec));
	json_decref(rec);
	forge_all();
	areas[0].comms[0].nruns = PSREC_RUNS; /* past the pool's end */
	rec = mpirecord_area_json(&areas[0], FORGED_RANKS, 0);
	ck_assert_ptr_nonnull(unreadable(rec));
	json_decref(rec);
}
END_TEST

/* Rows 9 and 10: members at INT_MAX, and fake members: unreadable, and no culprit outside the job. */
START_TEST(members_outside_the_job_are_unreadable_and_never_culprits)
{
	forge_all();
	areas[0].runs[0].start = INT_MAX;

	json_t *rec = mpirecord_area_json(&areas[0], FORGED_RANKS, 0);

	ck_assert_ptr_nonnull(unreadable(rec));
	json_decref(rec);
	for (int r = 0; r < FORGED_RANKS; r++)
		areas[r].runs[0] = (struct psrec_run){ 0, 1000000, 2, FORGED_RANKS };

	json_t *report = forged_report(), *f;
	size_t i;

	json_array_foreach(json_object_get(report, "faulty_ranks"), i, f)
		ck_assert_int_lt(json_integer_value(f), FORGED_RANKS);
	ck_assert_ptr_nonnull(json_object_get(json_array_get(json_object_get(report, "ranks"), 0), "record_unreadable"));
	json_decref(report);
}
END_TEST

/* A record that says it is another rank, or names a peer past the job. */
START_TEST(a_record_of_another_rank_or_peer_is_unreadable)
{
	forge_all();

	json_t *rec = mpirecord_area_json(&areas[1], FORGED_RANKS, 2);

	ck_assert_ptr_nonnull(unreadable(rec));
	json_decref(rec);
	areas[0].calls[0].peer = 7;
	rec = mpirecord_area_json(&areas[0], FORGED_RANKS, 0);
	ck_assert_ptr_nonnull(unreadable(rec));
	json_decref(rec);
	forge_all();
	areas[0].calls[0].reqs[0] = PSREC_REQS;
	areas[0].calls[0].nreqs = 1;
	rec = mpirecord_area_json(&areas[0], FORGED_RANKS, 0);
	ck_assert_ptr_nonnull(unreadable(rec));
	json_decref(rec);
}
END_TEST

/* A record of garbage bytes behind a valid header: read or refused, in bounded time and size. */
START_TEST(a_record_of_garbage_is_refused_or_bounded)
{
	uint64_t x = 88172645463325252ULL;

	for (int round = 0; round < 4; round++) {
		unsigned char *p = (unsigned char *)&areas[0];

		for (size_t i = 0; i < sizeof(areas[0]); i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64, a fixed seed */
			p[i] = (unsigned char)(round & 1 ? x & 0x01 : x); /* odd rounds: mostly zeros */
		}
		forged_base(&areas[1], 0);
		memcpy(&areas[0], &areas[1], offsetof(struct psrec_area, nthreads));

		json_t *rec = mpirecord_area_json(&areas[0], FORGED_RANKS, 0);
		char *text = json_dumps(rec, JSON_COMPACT);

		ck_assert_ptr_nonnull(text);
		ck_assert_uint_lt(strlen(text), 16u << 20);
		free(text);
		json_decref(rec);
	}
}
END_TEST

/* The writer's rule (psrec_run_extend, as record/layer.c applies it): members -> runs. */
static int runs_of(const int32_t *w, int n, struct psrec_run *out, int max)
{
	int k = 0;

	for (int m = 0; m < n; m++) {
		if (k && psrec_run_extend(&out[k - 1], w[m]))
			continue;
		if (k == max)
			return -1;
		out[k++] = (struct psrec_run){ m, w[m], 0, 1 };
	}
	return k;
}

/* Every member found again through the runs (psrec_run_member, the layer's lookup). */
static void assert_members(const int32_t *w, int n, const struct psrec_run *runs, int nruns)
{
	for (int m = 0; m < n; m++)
		ck_assert_int_eq(psrec_run_member(runs, nruns, m), w[m]);
	ck_assert_int_eq(psrec_run_member(runs, nruns, n), -1);
}

/* Issue 39: a 70,000-rank communicator, and a million-rank MPI_COMM_WORLD, take one run each;
 * reversed, strided and interleaved ones a run per stretch; an irregular one a run per member. */
START_TEST(large_communicators_are_runs)
{
	enum { N = 70000 };
	static int32_t w[N];
	static struct psrec_run runs[PSREC_RUNS];

	for (int m = 0; m < N; m++)
		w[m] = m;
	ck_assert_int_eq(runs_of(w, N, runs, PSREC_RUNS), 1);
	assert_members(w, N, runs, 1);
	for (int m = 0; m < N; m++)
		w[m] = N - 1 - m; /* reversed (a split with descending keys) */
	ck_assert_int_eq(runs_of(w, N, runs, PSREC_RUNS), 1);
	assert_members(w, N, runs, 1);
	for (int m = 0; m < N; m++)
		w[m] = 3 * m + 1; /* every third rank of a 210,000-rank job */
	ck_assert_int_eq(runs_of(w, N, runs, PSREC_RUNS), 1);
	assert_members(w, N, runs, 1);
	for (int m = 0; m < N; m++)
		w[m] = m < N / 2 ? 2 * m : 2 * (m - N / 2) + 1; /* the evens, then the odds */
	ck_assert_int_eq(runs_of(w, N, runs, PSREC_RUNS), 2);
	assert_members(w, N, runs, 2);
	uint64_t x = 88172645463325252ULL;

	for (int m = 0; m < 10000; m++) { /* no pattern: every two members a run (a table) */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		w[m] = (int32_t)(x % 1000000);
	}
	int n = runs_of(w, 10000, runs, PSREC_RUNS);

	ck_assert_int_ge(n, 4900);
	assert_members(w, 10000, runs, n);
}
END_TEST

/* The reader: a record with a million-rank world and a 70,000-rank communicator of its evens
 * then odds (two runs) is read whole, its members as ranges; one with a member twice, or a run
 * past the job, is unreadable. */
START_TEST(large_communicators_are_read_and_checked)
{
	struct psrec_area *a = calloc(1, sizeof(*a));
	json_t *rec, *comms;

	ck_assert_ptr_nonnull(a);
	forged_base(a, 0);
	a->world_size = 1000000;
	a->runs[0] = (struct psrec_run){ 0, 0, 1, 1000000 };
	a->comms[0].size = 1000000;
	a->runs[1] = (struct psrec_run){ 0, 0, 2, 35000 };
	a->runs[2] = (struct psrec_run){ 35000, 1, 2, 35000 };
	a->comms[1] = (struct psrec_comm){ .used = 1, .handle = 0x1001, .id = 2, .size = 70000, .first = 1, .nruns = 2 };
	a->runs_used = 3;
	rec = mpirecord_area_json(a, 1000000, 0);
	ck_assert_msg(!unreadable(rec), "%s", unreadable(rec));
	comms = json_object_get(rec, "comms");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(comms, 0), "members")), "0-999999");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(comms, 1), "members")), "0-69999");
	json_decref(rec);

	a->runs[2].start = 0; /* the odds now the evens again: each member twice */
	rec = mpirecord_area_json(a, 1000000, 0);
	ck_assert_ptr_nonnull(unreadable(rec));
	ck_assert_msg(strstr(unreadable(rec), "twice"), "%s", unreadable(rec));
	json_decref(rec);

	a->runs[2] = (struct psrec_run){ 35000, 999990, 2, 35000 }; /* past the job */
	rec = mpirecord_area_json(a, 1000000, 0);
	ck_assert_ptr_nonnull(unreadable(rec));
	json_decref(rec);
	free(a);
}
END_TEST

Suite *record_check_suite(void)
{
	Suite *s = suite_create("record_check");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, the_plausible_record_is_read);
	tcase_add_test(tc, a_collective_count_at_its_maximum_is_bounded);
	tcase_add_test(tc, a_library_name_without_nul_or_utf8_is_escaped);
	tcase_add_test(tc, communicators_sharing_the_members_pool_are_unreadable);
	tcase_add_test(tc, members_outside_the_job_are_unreadable_and_never_culprits);
	tcase_add_test(tc, a_record_of_another_rank_or_peer_is_unreadable);
	tcase_add_test(tc, a_record_of_garbage_is_refused_or_bounded);
	tcase_add_test(tc, large_communicators_are_runs);
	tcase_add_test(tc, large_communicators_are_read_and_checked);
	suite_add_tcase(s, tc);
	return s;
}
