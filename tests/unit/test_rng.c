/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the seedable generator: repeatable, in range, roughly uniform. */
#include "../../stats/rng.h"
#include "suites.h"

START_TEST(same_seed_same_sequence)
{
	struct rng a, b;

	rng_seed(&a, 42);
	rng_seed(&b, 42);
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_eq(rng_next(&a), rng_next(&b));
	rng_seed(&b, 43);
	ck_assert_uint_ne(rng_next(&a), rng_next(&b));
}
END_TEST

START_TEST(uniform_in_unit_interval_with_mean_half)
{
	struct rng r;
	double sum = 0.0;

	rng_seed(&r, 7);
	for (int i = 0; i < 100000; i++) {
		double u = rng_uniform(&r);

		ck_assert(u >= 0.0 && u < 1.0);
		sum += u;
	}
	ck_assert_double_eq_tol(sum / 100000, 0.5, 0.01);
}
END_TEST

START_TEST(below_covers_every_value)
{
	struct rng r;
	int seen[7] = { 0 };

	rng_seed(&r, 0);
	for (int i = 0; i < 7000; i++) {
		uint64_t v = rng_below(&r, 7);

		ck_assert_uint_lt(v, 7);
		seen[v]++;
	}
	for (int i = 0; i < 7; i++)
		ck_assert_int_gt(seen[i], 800);
}
END_TEST

Suite *rng_suite(void)
{
	Suite *s = suite_create("rng");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, same_seed_same_sequence);
	tcase_add_test(tc, uniform_in_unit_interval_with_mean_half);
	tcase_add_test(tc, below_covers_every_value);
	suite_add_tcase(s, tc);
	return s;
}
