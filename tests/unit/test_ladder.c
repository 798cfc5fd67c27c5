/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the tolerance ladder: the paper's (p_m, n_m) pairs come out of f(p). */
#include <math.h>

#include "../../stats/ladder.h"
#include "suites.h"

START_TEST(paper_pairs_are_derived)
{
	/* Paper §3.2: e = 0.3, 0.2, 0.1, 0.05 -> (0.47, 11), (0.27, 19), (0.12, 42), (0.06, 86). */
	static const double e[4] = { 0.3, 0.2, 0.1, 0.05 };
	static const double p[4] = { 0.47, 0.27, 0.12, 0.06 };
	static const int n[4] = { 11, 19, 42, 86 };
	const struct ladder_level *lv = ladder_levels();

	for (int i = 0; i < 4; i++) {
		ck_assert_double_eq(lv[i].e, e[i]);
		ck_assert_double_eq_tol(round(lv[i].p_m * 100.0) / 100.0, p[i], 1e-9);
		ck_assert_int_eq(lv[i].n_m, n[i]);
	}
}
END_TEST

START_TEST(p_m_minimises_required_size)
{
	const struct ladder_level *lv = ladder_levels();

	for (int i = 0; i < LADDER_LEVELS; i++) {
		double f = ladder_required_size(lv[i].p_m, lv[i].e);

		for (double p = 0.005; p <= 0.5; p += 0.005)
			ck_assert(ladder_required_size(p, lv[i].e) >= f - 1e-9);
	}
}
END_TEST

START_TEST(required_size_is_infinite_at_the_ends)
{
	ck_assert(isinf(ladder_required_size(0.0, 0.1)));
	ck_assert(isinf(ladder_required_size(1.0, 0.1)));
	/* max(5/p, 5/(1-p), 3.8416 p(1-p)/e^2) at p = 0.5, e = 0.1: 96.04 */
	ck_assert_double_eq_tol(ladder_required_size(0.5, 0.1), 96.04, 1e-9);
	/* Symmetric: the 5/(1-p) term guards large p. */
	ck_assert_double_eq_tol(ladder_required_size(0.95, 0.3), 100.0, 1e-9);
}
END_TEST

Suite *ladder_suite(void)
{
	Suite *s = suite_create("ladder");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, paper_pairs_are_derived);
	tcase_add_test(tc, p_m_minimises_required_size);
	tcase_add_test(tc, required_size_is_infinite_at_the_ends);
	suite_add_tcase(s, tc);
	return s;
}
