/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the two disjoint rank sets and their alternation. */
#include <string.h>

#include "../../stats/ranksets.h"
#include "suites.h"

static void assert_valid_sets(const struct ranksets *rs, int nranks)
{
	char seen[4096];

	memset(seen, 0, sizeof(seen));
	for (int k = 0; k < rs->nsets; k++)
		for (int i = 0; i < rs->size; i++) {
			int r = rs->set[k][i];

			ck_assert_int_ge(r, 0);
			ck_assert_int_lt(r, nranks);
			ck_assert_msg(!seen[r], "rank %d drawn twice", r);
			seen[r] = 1;
		}
}

struct size_case {
	int nranks, c, nsets, size;
};

static const struct size_case size_cases[] = {
	{ 1000, 10, 2, 10 }, { 20, 10, 2, 10 }, { 19, 10, 2, 9 }, { 15, 10, 2, 7 },
	{ 3, 10, 2, 1 },     { 2, 10, 2, 1 },   { 1, 10, 1, 1 },  { 64, 1, 2, 1 },
};

START_TEST(set_sizes_and_disjointness)
{
	const struct size_case *sc = &size_cases[_i];
	struct ranksets rs;
	struct rng r;

	rng_seed(&r, 11);
	ck_assert_int_eq(ranksets_draw(&rs, &r, sc->nranks, sc->c), 0);
	ck_assert_int_eq(rs.nsets, sc->nsets);
	ck_assert_int_eq(rs.size, sc->size);
	assert_valid_sets(&rs, sc->nranks);
	ranksets_free(&rs);
}
END_TEST

START_TEST(single_rank_job_watches_rank_zero)
{
	struct ranksets rs;
	struct rng r;

	rng_seed(&r, 1);
	ck_assert_int_eq(ranksets_draw(&rs, &r, 1, 10), 0);
	ck_assert_int_eq(rs.set[0][0], 0);
	for (long i = 0; i < 100; i++)
		ck_assert_int_eq(ranksets_active(&rs, i), 0);
	ranksets_free(&rs);
}
END_TEST

START_TEST(alternation_every_thirty_samples)
{
	struct ranksets rs;
	struct rng r;

	rng_seed(&r, 1);
	ck_assert_int_eq(ranksets_draw(&rs, &r, 100, 10), 0);
	for (long i = 0; i < 30; i++)
		ck_assert_int_eq(ranksets_active(&rs, i), 0);
	for (long i = 30; i < 60; i++)
		ck_assert_int_eq(ranksets_active(&rs, i), 1);
	ck_assert_int_eq(ranksets_active(&rs, 60), 0);
	ck_assert_int_eq(ranksets_active(&rs, 90), 1);
	ranksets_free(&rs);
}
END_TEST

START_TEST(draws_are_seeded_and_uniform)
{
	struct rng r1, r2;
	struct ranksets a, b;
	int count[20] = { 0 };

	rng_seed(&r1, 8);
	rng_seed(&r2, 8);
	ck_assert_int_eq(ranksets_draw(&a, &r1, 500, 10), 0);
	ck_assert_int_eq(ranksets_draw(&b, &r2, 500, 10), 0);
	ck_assert_mem_eq(a.set[0], b.set[0], 10 * sizeof(int));
	ck_assert_mem_eq(a.set[1], b.set[1], 10 * sizeof(int));
	ranksets_free(&a);
	ranksets_free(&b);

	/* Each of 20 ranks lands in the first set of 5 with probability 1/4. */
	for (int trial = 0; trial < 8000; trial++) {
		ck_assert_int_eq(ranksets_draw(&a, &r1, 20, 5), 0);
		for (int i = 0; i < 5; i++)
			count[a.set[0][i]]++;
		ranksets_free(&a);
	}
	for (int i = 0; i < 20; i++)
		ck_assert_msg(count[i] > 1800 && count[i] < 2200, "rank %d: %d of 8000", i, count[i]);
}
END_TEST

START_TEST(invalid_arguments)
{
	struct ranksets rs;
	struct rng r;

	rng_seed(&r, 1);
	ck_assert_int_eq(ranksets_draw(&rs, &r, 0, 10), -1);
	ck_assert_int_eq(ranksets_draw(&rs, &r, 10, 0), -1);
}
END_TEST

Suite *ranksets_suite(void)
{
	Suite *s = suite_create("ranksets");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, set_sizes_and_disjointness, 0,
			    sizeof(size_cases) / sizeof(size_cases[0]));
	tcase_add_test(tc, single_rank_job_watches_rank_zero);
	tcase_add_test(tc, alternation_every_thirty_samples);
	tcase_add_test(tc, draws_are_seeded_and_uniform);
	tcase_add_test(tc, invalid_arguments);
	suite_add_tcase(s, tc);
	return s;
}
