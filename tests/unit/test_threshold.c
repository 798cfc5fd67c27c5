/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of threshold selection on hand-built histograms (C = 10). */
#include "../../stats/threshold.h"
#include "suites.h"

START_TEST(uniform_history_uses_t1_at_e_0_1)
{
	/* 10 samples at each S: F(x) = (x+1)/11, n = 110. e = 0.05 would need f(1/11) = 127 > 110;
	 * e = 0.1: t1 = 0 (F = 0.0909, f = 55) beats t2 = 1 (F = 0.1818, f = 57.1). */
	double h[11];

	for (int i = 0; i <= 10; i++)
		h[i] = 10;

	struct threshold_level lv = threshold_select(h, 10, 110);

	ck_assert(lv.usable);
	ck_assert_double_eq(lv.e, 0.1);
	ck_assert_int_eq(lv.threshold, 0);
	ck_assert_double_eq_tol(lv.p_hat, 1.0 / 11, 1e-12);
	ck_assert_double_eq_tol(lv.q, 1.0 / 11 + 0.1, 1e-12);
}
END_TEST

START_TEST(t1_above_zero)
{
	/* F(0) = .03, F(1) = .10, F(2) = .20, n = 100: e = 0.05 needs 138 samples; at e = 0.1,
	 * t1 = 1 (f = 50) beats t2 = 2 (f = 61.5). */
	double h[11] = { 3, 7, 10, 10, 10, 10, 10, 10, 10, 10, 10 };
	struct threshold_level lv = threshold_select(h, 10, 100);

	ck_assert(lv.usable);
	ck_assert_double_eq(lv.e, 0.1);
	ck_assert_int_eq(lv.threshold, 1);
	ck_assert_double_eq_tol(lv.q, 0.2, 1e-12);
}
END_TEST

START_TEST(t2_when_no_t1)
{
	/* F(0) = 0.14 >= p_m(0.1) = 0.1218, so only t2 = 0 exists: f(.14, .1) = 46.3 <= 50. */
	double h[11] = { 7, 5, 5, 5, 5, 5, 5, 4, 3, 3, 3 };
	struct threshold_level lv = threshold_select(h, 10, 50);

	ck_assert(lv.usable);
	ck_assert_double_eq(lv.e, 0.1);
	ck_assert_int_eq(lv.threshold, 0);
	ck_assert_double_eq_tol(lv.q, 0.24, 1e-12);
}
END_TEST

START_TEST(finer_levels_as_samples_grow)
{
	/* The same shape at growing n steps down the ladder 0.3 -> 0.2 -> 0.1 -> 0.05. */
	const double shape[11] = { 0.08, 0.04, 0.08, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 };
	const double ns[4] = { 12, 30, 60, 400 };
	const double want[4] = { 0.3, 0.2, 0.1, 0.05 };

	for (int k = 0; k < 4; k++) {
		double h[11];

		for (int i = 0; i <= 10; i++)
			h[i] = shape[i] * ns[k];

		struct threshold_level lv = threshold_select(h, 10, ns[k]);

		ck_assert_msg(lv.usable, "n = %g", ns[k]);
		ck_assert_msg(lv.e == want[k], "n = %g: e = %g, want %g", ns[k], lv.e, want[k]);
	}
}
END_TEST

START_TEST(model_building_states)
{
	double few[11] = { 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0 };
	double constant[11] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1000 };
	double empty[11] = { 0 };

	ck_assert(!threshold_select(few, 10, 5).usable);
	/* S never varies: F is 0 then 1, every candidate needs infinitely many samples. */
	ck_assert(!threshold_select(constant, 10, 1000).usable);
	ck_assert(!threshold_select(empty, 10, 0).usable);
}
END_TEST

Suite *threshold_suite(void)
{
	Suite *s = suite_create("threshold");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, uniform_history_uses_t1_at_e_0_1);
	tcase_add_test(tc, t1_above_zero);
	tcase_add_test(tc, t2_when_no_t1);
	tcase_add_test(tc, finer_levels_as_samples_grow);
	tcase_add_test(tc, model_building_states);
	suite_add_tcase(s, tc);
	return s;
}
