/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the straggler model (stats/straggler.c): the rank that holds a bulk-synchronous job
 * back, named from its set-mates' waits; a rank heavier by design, and a balanced job, named
 * never. The jobs are synthetic: 8 ranks in two sets of 4 sampled in turns of 30 rounds 400 ms
 * apart, as the watch samples them; each sampled rank found waiting with its own probability. */
#include <math.h>

#include "../../stats/rng.h"
#include "../../stats/straggler.h"
#include "suites.h"

#define RANKS 8

struct job_shape {
	int slow;            /* the rank that holds the job back (-1: none) */
	long from, until;    /* rounds in which it does (until 0: to the end) */
	double wait, others, own; /* waits: balanced, the others' while it holds them, its own */
	/* Measured by the recording layer's clock (spread > 0): each sample the share of the time
	 * waiting, about the rank's wait (give or take spread), which wanders by drift over 200
	 * rounds (a job's phases) - not a coin of that probability. */
	double spread, drift;
};

static signed char measured(struct rng *r, double p, double spread, double drift, long k, int rank)
{
	double u = rng_uniform(r) + rng_uniform(r) + rng_uniform(r) - 1.5; /* about normal, sd 0.5 */
	double x = p + 2 * spread * u + drift * sin(2 * M_PI * (k / 200.0 + rank / 8.0));

	return (signed char)(x <= 0 ? 0 : x >= 1 ? 100 : x * 100 + 0.5);
}

/* Feed `rounds` rounds; the first round in which a rank was flagged (or -1) and which. */
static long feed(struct straggler *s, const struct job_shape *j, long rounds, unsigned seed, int *who)
{
	struct rng r;
	long first = -1;

	rng_seed(&r, seed);
	*who = -1;
	for (long k = 0; k < rounds; k++) {
		int set = (int)(k / 30 % 2), idx[4];
		signed char wait[4];
		bool holding = j->slow >= 0 && k >= j->from && (!j->until || k < j->until);

		for (int i = 0; i < 4; i++) {
			double p = !holding ? j->wait : set * 4 + i == j->slow ? j->own : j->others;

			idx[i] = set * 4 + i;
			wait[i] = j->spread > 0 ? measured(&r, p, j->spread, j->drift, k, idx[i]) :
				  rng_uniform(&r) < p ? 100 : 0;
		}

		int f = straggler_round(s, idx, wait, 4, k * 0.4, false);

		if (f >= 0 && first < 0) {
			first = k;
			*who = f;
		}
	}
	return first;
}

START_TEST(the_quantile_is_the_normal_one)
{
	ck_assert_double_eq_tol(straggler_quantile(0.999), 3.0902, 1e-3);
	ck_assert_double_eq_tol(straggler_quantile(0.95), 1.6449, 1e-3);
	ck_assert_double_eq_tol(straggler_quantile(0.5), 0, 1e-9);
}
END_TEST

/* Over 20 seeds, the jobs in which j's slow rank was named within `within` rounds of its rise:
 * never another rank, since about its rise - at the latest its first sample after it, when its
 * set's turn comes again (12 s later) - and at confidence min_confidence at least. */
static int named_in_time(const struct job_shape *j, long within, double min_confidence)
{
	int named = 0;

	for (unsigned seed = 1; seed <= 20; seed++) {
		struct straggler s;
		struct straggler_info in;
		int who;

		ck_assert_int_eq(straggler_init(&s, RANKS, 0.001), 0);

		long at = feed(&s, j, 800, seed, &who);

		if (at >= 0) {
			ck_assert_int_eq(who, j->slow);
			ck_assert(straggler_info(&s, j->slow, &in) && in.flagged);
			ck_assert_double_ge(in.since, 0.4 * (j->from - 30));
			ck_assert_double_le(in.since, 0.4 * (j->from + 60));
			ck_assert_double_ge(in.confidence, min_confidence);
			named += at - j->from <= within;
		}
		straggler_free(&s);
	}
	return named;
}

/* Rank 1 computes twice as long from 10 s on (the waits an 8-rank stencil showed then: the
 * others' from 20 % to about 50 %, its own to 2-5 %): named, since about then, mostly within
 * 100 s. */
START_TEST(a_slowed_rank_is_named_since_its_rise)
{
	struct job_shape j = { .slow = 1, .from = 25, .wait = 0.2, .others = 0.5, .own = 0.02 };

	ck_assert_int_ge(named_in_time(&j, 250, 0.999), 18); /* 250 rounds: 100 s */
}
END_TEST

/* Balanced, a long run: no rank is ever named. */
START_TEST(a_balanced_job_names_none)
{
	struct job_shape j = { .slow = -1, .wait = 0.3 };

	for (unsigned seed = 1; seed <= 20; seed++) {
		struct straggler s;
		int who;

		ck_assert_int_eq(straggler_init(&s, RANKS, 0.001), 0);
		ck_assert_int_eq(feed(&s, &j, 3000, seed, &who), -1);
		straggler_free(&s);
	}
}
END_TEST

/* Rank 2 (and, in another job, rank 6 of the set sampled second) computes more by design, from
 * the start: the others wait for it all along, and it is never named. */
START_TEST(a_rank_heavy_by_design_is_no_straggler)
{
	for (int heavy = 2; heavy <= 6; heavy += 4)
		for (unsigned seed = 1; seed <= 20; seed++) {
			struct job_shape j = { .slow = heavy, .from = 0, .wait = 0.2, .others = 0.45, .own = 0.05 };
			struct straggler s;
			int who;

			ck_assert_int_eq(straggler_init(&s, RANKS, 0.001), 0);
			ck_assert_int_eq(feed(&s, &j, 2000, seed, &who), -1);
			straggler_free(&s);
		}
}
END_TEST

/* A slowdown that ends: the rank is named, then no longer, with the time it stopped. */
START_TEST(a_straggler_that_recovers_has_an_until)
{
	struct job_shape j = { .slow = 1, .from = 25, .until = 400, .wait = 0.2, .others = 0.5, .own = 0.02 };
	struct straggler s;
	struct straggler_info in;
	int who;

	ck_assert_int_eq(straggler_init(&s, RANKS, 0.001), 0);
	ck_assert_int_ge(feed(&s, &j, 1200, 3, &who), 0);
	ck_assert_int_eq(who, 1);
	ck_assert(straggler_info(&s, 1, &in));
	ck_assert(!in.flagged && in.ever);
	ck_assert_double_ge(in.until, 0.4 * 400);
	ck_assert_double_gt(in.flag_mates, in.flag_own);
	straggler_free(&s);
}
END_TEST

/* Rank 6 is first sampled after its rise (set 1 comes second): its own history cannot show the
 * change, the other ranks' wait can, where the change is large. */
START_TEST(a_rank_first_seen_slow_is_named_by_the_others_wait)
{
	struct job_shape j = { .slow = 6, .from = 20, .wait = 0.1, .others = 0.7, .own = 0.02 };
	int named = 0;

	for (unsigned seed = 1; seed <= 10; seed++) {
		struct straggler s;
		int who;

		ck_assert_int_eq(straggler_init(&s, RANKS, 0.001), 0);
		named += feed(&s, &j, 400, seed, &who) >= 0 && who == 6;
		straggler_free(&s);
	}
	ck_assert_int_ge(named, 9);
}
END_TEST

START_TEST(bad_indexes_are_ignored)
{
	struct straggler s;
	struct straggler_info in;
	int idx[3] = { -1, 99, 0 };
	signed char wait[3] = { 100, 100, 100 };

	ck_assert_int_eq(straggler_init(&s, RANKS, 0.001), 0);
	ck_assert_int_eq(straggler_round(&s, idx, wait, 3, 0, false), -1);
	ck_assert(!straggler_info(&s, 99, &in));
	ck_assert(straggler_info(&s, 0, &in) && in.n == 0); /* alone in its round: no set-mates */
	straggler_free(&s);
}
END_TEST

/* Measured by the layer's clock, a 25 % slowdown of rank 2 from 60 s (its own wait 0.22 ->
 * 0.15, the others' -> 0.26, each sample within about 0.03): named within 2 minutes, since
 * about its rise. */
START_TEST(a_small_slowdown_measured_by_the_layer_is_named)
{
	struct job_shape j = { .slow = 2, .from = 150, .wait = 0.22, .others = 0.26, .own = 0.15,
			       .spread = 0.03, .drift = 0.01 };

	ck_assert_int_ge(named_in_time(&j, 300, 0.999), 19); /* 300 rounds: 120 s */
}
END_TEST

/* Measured so, a rank heavier by design (its wait 0.05, the others' 0.35) in a job whose waits
 * wander with its phases, and a balanced job so: no rank is ever named. */
START_TEST(measured_waits_that_wander_name_none)
{
	struct job_shape shapes[] = {
		{ .slow = 2, .from = 0, .wait = 0.2, .others = 0.35, .own = 0.05, .spread = 0.03, .drift = 0.04 },
		{ .slow = 6, .from = 0, .wait = 0.2, .others = 0.3, .own = 0.12, .spread = 0.05, .drift = 0.04 },
		{ .slow = -1, .wait = 0.25, .spread = 0.03, .drift = 0.04 },
	};

	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
		for (unsigned seed = 1; seed <= 20; seed++) {
			struct straggler s;
			int who;

			ck_assert_int_eq(straggler_init(&s, RANKS, 0.001), 0);
			ck_assert_int_eq(feed(&s, &shapes[k], 2000, seed, &who), -1);
			straggler_free(&s);
		}
}
END_TEST

Suite *straggler_suite(void)
{
	Suite *s = suite_create("straggler");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, the_quantile_is_the_normal_one);
	tcase_add_test(tc, a_slowed_rank_is_named_since_its_rise);
	tcase_add_test(tc, a_balanced_job_names_none);
	tcase_add_test(tc, a_rank_heavy_by_design_is_no_straggler);
	tcase_add_test(tc, a_straggler_that_recovers_has_an_until);
	tcase_add_test(tc, a_rank_first_seen_slow_is_named_by_the_others_wait);
	tcase_add_test(tc, a_small_slowdown_measured_by_the_layer_is_named);
	tcase_add_test(tc, measured_waits_that_wander_name_none);
	tcase_add_test(tc, bad_indexes_are_ignored);
	suite_add_tcase(s, tc);
	return s;
}
