/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the runs test against the paper's worked example and the Swed–Eisenhart tables. */
#include "../../stats/runs_test.h"
#include "suites.h"

START_TEST(paper_worked_example)
{
	/* design.md §3: 16 samples with C = 10, as fractions. */
	const double s[16] = { 0.2, 0.1, 0.1, 0.2, 0.1, 0.1, 0.0, 0.0,
			       0.8, 0.9, 1.0, 0.8, 0.9, 0.1, 0.9, 0.9 };
	struct runs_result r = runs_test(s, 16);

	ck_assert_double_eq_tol(r.boundary, 0.44375, 1e-12);
	ck_assert_int_eq(r.n1, 7);
	ck_assert_int_eq(r.n0, 9);
	ck_assert_int_eq(r.runs, 4);
	ck_assert(!r.random);
}
END_TEST

START_TEST(paper_example_as_counts)
{
	/* The monitor feeds counts, not fractions: same coding, same verdict. */
	const double s[16] = { 2, 1, 1, 2, 1, 1, 0, 0, 8, 9, 10, 8, 9, 1, 9, 9 };
	struct runs_result r = runs_test(s, 16);

	ck_assert_double_eq_tol(r.boundary, 4.4375, 1e-12);
	ck_assert_int_eq(r.runs, 4);
	ck_assert(!r.random);
}
END_TEST

struct se_entry {
	int n1, n0, lo, hi;
};

/* Swed & Eisenhart (1943), two-sided 0.05: reject at R <= lo or R >= hi. */
static const struct se_entry swed_eisenhart[] = {
	{ 7, 9, 4, 14 }, { 9, 7, 4, 14 }, { 10, 10, 6, 16 }, { 5, 5, 2, 10 }, { 20, 20, 14, 28 },
};

START_TEST(swed_eisenhart_critical_values)
{
	const struct se_entry *e = &swed_eisenhart[_i];
	int lo, hi;

	runs_critical(e->n1, e->n0, &lo, &hi);
	ck_assert_int_eq(lo, e->lo);
	ck_assert_int_eq(hi, e->hi);
	ck_assert(!runs_is_random(e->n1, e->n0, e->lo));
	ck_assert(runs_is_random(e->n1, e->n0, e->lo + 1));
	ck_assert(runs_is_random(e->n1, e->n0, e->hi - 1));
	ck_assert(!runs_is_random(e->n1, e->n0, e->hi));
}
END_TEST

START_TEST(exact_distribution_sums_to_one)
{
	for (int n1 = 1; n1 <= 20; n1++)
		for (int n0 = 1; n0 <= 20; n0++) {
			double sum = 0.0;

			for (int r = 1; r <= n1 + n0; r++)
				sum += runs_probability(n1, n0, r);
			ck_assert_double_eq_tol(sum, 1.0, 1e-9);
		}
}
END_TEST

START_TEST(too_few_of_one_sign_is_not_random)
{
	const double constant[16] = { 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3 };
	const double one_low[16] = { 5, 5, 5, 5, 5, 5, 5, 0, 5, 5, 5, 5, 5, 5, 5, 5 };

	ck_assert(!runs_test(constant, 16).random);
	ck_assert(!runs_test(one_low, 16).random);
	ck_assert(!runs_is_random(1, 15, 3));
	ck_assert(!runs_is_random(15, 1, 3));
}
END_TEST

START_TEST(alternation_and_clusters_rejected_mixture_accepted)
{
	const double alternating[16] = { 0, 9, 0, 9, 0, 9, 0, 9, 0, 9, 0, 9, 0, 9, 0, 9 };
	const double mixed[16] = { 0, 9, 9, 0, 9, 0, 0, 0, 9, 9, 0, 9, 9, 0, 0, 9 };

	ck_assert(!runs_test(alternating, 16).random); /* R = 16 = n: too many runs */
	ck_assert(runs_test(mixed, 16).random);
}
END_TEST

START_TEST(normal_approximation_above_twenty)
{
	/* n1 = n0 = 25: mean 26, sd ~3.46; |z| <= 1.96 keeps about 20..32. */
	ck_assert(runs_is_random(25, 25, 26));
	ck_assert(runs_is_random(25, 25, 20));
	ck_assert(!runs_is_random(25, 25, 18));
	ck_assert(!runs_is_random(25, 25, 34));
	ck_assert(runs_is_random(21, 30, 26));
}
END_TEST

Suite *runs_test_suite(void)
{
	Suite *s = suite_create("runs_test");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, paper_worked_example);
	tcase_add_test(tc, paper_example_as_counts);
	tcase_add_loop_test(tc, swed_eisenhart_critical_values, 0,
			    sizeof(swed_eisenhart) / sizeof(swed_eisenhart[0]));
	tcase_add_test(tc, exact_distribution_sums_to_one);
	tcase_add_test(tc, too_few_of_one_sign_is_not_random);
	tcase_add_test(tc, alternation_and_clusters_rejected_mixture_accepted);
	tcase_add_test(tc, normal_approximation_above_twenty);
	suite_add_tcase(s, tc);
	return s;
}
