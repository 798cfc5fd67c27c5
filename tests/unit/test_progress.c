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
	ck_assert_int_eq(progress_code(PROGRESS_STILL, part, false, false), 'i');
	ck_assert_int_eq(progress_update(&p, 4, 0, RANK_IN_MPI, B, &part), PROGRESS_MOVED);
	ck_assert_int_eq(part, PROGRESS_PART_APP);
	ck_assert_int_eq(progress_code(PROGRESS_MOVED, part, false, true), 'A');
	ck_assert_int_eq(progress_update(&p, 5, 0, RANK_OUT_MPI, B, &part), PROGRESS_MOVED);
	ck_assert_int_eq(part, PROGRESS_PART_STATE);
	ck_assert_int_eq(progress_update(&p, 6, 0, RANK_OUT_MPI, A, &part), PROGRESS_OUT);
	ck_assert_int_eq(progress_code(PROGRESS_UNKNOWN, PROGRESS_PART_NONE, true, false), 'k');
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

Suite *progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, moved_still_and_the_part_that_differed);
	tcase_add_test(tc, only_a_recent_sample_compares);
	suite_add_tcase(s, tc);
	return s;
}
