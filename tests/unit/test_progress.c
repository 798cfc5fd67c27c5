/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the progress comparison (monitor/sample/addr/progress.c): what moved, what stood still,
 * which part differed, and which earlier sample a rank is compared with. */
#include "../../monitor/sample/addr/classify.h"
#include "../../monitor/sample/addr/progress.h"
#include "suites.h"

static const struct progress_print A = { 11, 100 }, A_INNER = { 11, 200 }, B = { 22, 100 };

START_TEST(moved_still_and_the_part_that_differed)
{
	struct progress p = { 0 };
	enum progress_part part;

	ck_assert_int_eq(progress_update(&p, 1, 0, RANK_IN_MPI, A, &part), PROGRESS_UNKNOWN);
	ck_assert_int_eq(progress_update(&p, 2, 0, RANK_IN_MPI, A, &part), PROGRESS_STILL);
	ck_assert_int_eq(part, PROGRESS_PART_NONE);
	/* Only the MPI library's own frames differ: still (issue 36). */
	ck_assert_int_eq(progress_update(&p, 3, 0, RANK_IN_MPI, A_INNER, &part), PROGRESS_STILL);
	ck_assert_int_eq(part, PROGRESS_PART_INNER);
	ck_assert_int_eq(progress_code(PROGRESS_STILL, part, PROGRESS_OUTSIDE_UNKNOWN, false, false), 'i');
	ck_assert_int_eq(progress_update(&p, 4, 0, RANK_IN_MPI, B, &part), PROGRESS_MOVED);
	ck_assert_int_eq(part, PROGRESS_PART_APP);
	ck_assert_int_eq(progress_code(PROGRESS_MOVED, part, PROGRESS_OUTSIDE_UNKNOWN, false, true), 'A');
	ck_assert_int_eq(progress_update(&p, 5, 0, RANK_OUT_MPI, B, &part), PROGRESS_MOVED);
	ck_assert_int_eq(part, PROGRESS_PART_STATE);
	ck_assert_int_eq(progress_update(&p, 6, 0, RANK_OUT_MPI, A, &part), PROGRESS_OUT);
	ck_assert_int_eq(progress_code(PROGRESS_UNKNOWN, PROGRESS_PART_NONE, PROGRESS_OUTSIDE_UNKNOWN, true, false), 'k');
}
END_TEST

/* A sample compares only with a recent one of the same rank: not across the other set's turn,
 * nor with one from before the suspicion (since). */
START_TEST(only_a_recent_sample_compares)
{
	struct progress p = { 0 };

	progress_update(&p, 10, 0, RANK_IN_MPI, A, NULL);
	ck_assert_int_eq(progress_update(&p, 10 + PROGRESS_MAX_GAP, 0, RANK_IN_MPI, B, NULL), PROGRESS_MOVED);
	/* 30 rounds of the other set later: nothing to compare with. */
	ck_assert_int_eq(progress_update(&p, 43 + 30, 0, RANK_IN_MPI, A, NULL), PROGRESS_UNKNOWN);
	ck_assert_int_eq(progress_update(&p, 74, 0, RANK_IN_MPI, A, NULL), PROGRESS_STILL);
	/* A suspicion at round 75: the sample of round 74 is not compared with. */
	ck_assert_int_eq(progress_update(&p, 75, 75, RANK_IN_MPI, A, NULL), PROGRESS_UNKNOWN);
	/* An unwind cut short is no evidence and keeps the previous sample. */
	ck_assert_int_eq(progress_update(&p, 76, 75, RANK_IN_MPI, (struct progress_print){ 0, 0 }, NULL),
			 PROGRESS_UNKNOWN);
	ck_assert_int_eq(progress_update(&p, 77, 75, RANK_IN_MPI, A, NULL), PROGRESS_STILL);
}
END_TEST

/* Outside MPI with one stack: idle while its CPU time and I/O stay as when first found so;
 * busy at a stack that changed, a byte read, or 20 ms of CPU since then that are 1 % of the
 * time since (not between two samples: a rank at 3 % of a CPU); inside MPI_Init or MPI: no
 * verdict. */
START_TEST(outside_mpi_idle_or_busy)
{
	struct progress p = { 0 };
	struct proc_activity a = { .known = true, .cpu_ms = 1000, .io_bytes = 5000 }, none = { 0 };

	ck_assert_int_eq(progress_outside_update(&p, 0, true, A, &none), PROGRESS_OUTSIDE_UNKNOWN);
	progress_update(&p, 1, 0, RANK_OUT_MPI, A, NULL);
	ck_assert(progress_same_outside(&p, RANK_OUT_MPI, A));
	ck_assert(!progress_same_outside(&p, RANK_OUT_MPI, B));
	ck_assert(!progress_same_outside(&p, RANK_IN_MPI, A));
	/* The first with this stack and an activity: the base, no verdict yet. */
	ck_assert_int_eq(progress_outside_update(&p, 0, true, A, &a), PROGRESS_OUTSIDE_UNKNOWN);
	progress_update(&p, 2, 0, RANK_OUT_MPI, A, NULL);
	a.cpu_ms = 1010;
	ck_assert_int_eq(progress_outside_update(&p, 500, true, A, &a), PROGRESS_OUTSIDE_IDLE);
	progress_update(&p, 3, 0, RANK_OUT_MPI, A, NULL);
	/* The samples' own cost: 20 ms in 100 s (0.02 %) is idle; a second more since is busy. */
	a.cpu_ms = 1020;
	ck_assert_int_eq(progress_outside_update(&p, 100e3, true, A, &a), PROGRESS_OUTSIDE_IDLE);
	ck_assert_int_eq(progress_code(PROGRESS_OUT, PROGRESS_PART_NONE, PROGRESS_OUTSIDE_IDLE, false, false), 'w');
	a.cpu_ms = 2100; /* a second of CPU in 101 s: busy */
	ck_assert_int_eq(progress_outside_update(&p, 101e3, true, A, &a), PROGRESS_OUTSIDE_BUSY);
	progress_update(&p, 4, 0, RANK_OUT_MPI, A, NULL);
	ck_assert_int_eq(progress_outside_update(&p, 101.5e3, true, A, &a), PROGRESS_OUTSIDE_IDLE);
	progress_update(&p, 5, 0, RANK_OUT_MPI, A, NULL);
	/* Now counted from then: 30 ms in half a second is 6 %. */
	a.cpu_ms = 2130;
	ck_assert_int_eq(progress_outside_update(&p, 102e3, true, A, &a), PROGRESS_OUTSIDE_BUSY);
	progress_update(&p, 5, 0, RANK_OUT_MPI, A, NULL);
	a.io_bytes++;
	ck_assert_int_eq(progress_outside_update(&p, 102.2e3, true, A, &a), PROGRESS_OUTSIDE_BUSY);
	progress_update(&p, 6, 0, RANK_OUT_MPI, A, NULL);
	/* One sample off its stack is no move (caught restarting its read); two in a row are. */
	ck_assert_int_eq(progress_outside_update(&p, 102.5e3, true, B, &none), PROGRESS_OUTSIDE_UNKNOWN);
	progress_update(&p, 7, 0, RANK_OUT_MPI, B, NULL);
	ck_assert(progress_same_outside(&p, RANK_OUT_MPI, A));
	ck_assert_int_eq(progress_outside_update(&p, 103e3, true, A, &a), PROGRESS_OUTSIDE_IDLE);
	progress_update(&p, 8, 0, RANK_OUT_MPI, A, NULL);
	ck_assert_int_eq(progress_outside_update(&p, 103.5e3, true, B, &none), PROGRESS_OUTSIDE_UNKNOWN);
	progress_update(&p, 9, 0, RANK_OUT_MPI, B, NULL);
	ck_assert_int_eq(progress_outside_update(&p, 104e3, true, B, &none), PROGRESS_OUTSIDE_BUSY);
	progress_update(&p, 10, 0, RANK_OUT_MPI, B, NULL);
	ck_assert_int_eq(progress_code(PROGRESS_OUT, PROGRESS_PART_NONE, PROGRESS_OUTSIDE_BUSY, false, false), 'b');
	/* No stack it stands in now: another stack at each sample is a rank computing. */
	ck_assert_int_eq(progress_outside_update(&p, 104.5e3, true, A, &none), PROGRESS_OUTSIDE_BUSY);
	progress_update(&p, 11, 0, RANK_OUT_MPI, A, NULL);
	/* The same stack again: a base; in MPI_Init (not outside): no verdict, and it starts over. */
	ck_assert_int_eq(progress_outside_update(&p, 105e3, true, A, &a), PROGRESS_OUTSIDE_UNKNOWN);
	ck_assert(p.base.known);
	ck_assert_int_eq(progress_outside_update(&p, 105e3, false, A, &a), PROGRESS_OUTSIDE_UNKNOWN);
	ck_assert(!p.base.known);
}
END_TEST

Suite *progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, moved_still_and_the_part_that_differed);
	tcase_add_test(tc, only_a_recent_sample_compares);
	tcase_add_test(tc, outside_mpi_idle_or_busy);
	suite_add_tcase(s, tc);
	return s;
}
