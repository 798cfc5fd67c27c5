/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the stall model (stats/stall.c): the second detector, for jobs whose S carries no
 * evidence because their ranks live in MPI. What it learns, when it calls a hang, and what it
 * must never call one. */
#include <math.h>

#include "../../stats/confirm.h"
#include "../../stats/stall.h"
#include "suites.h"

/* n samples 400 ms apart from t (ms): every `quiet_every`-th quiet (0: none), else moving. */
static double feed_healthy(struct stall *s, double t, int n, int quiet_every)
{
	for (int i = 0; i < n; i++, t += 400)
		ck_assert_int_ne(stall_add(s, t, quiet_every && i % quiet_every == 0 ? 0 : 3,
					   quiet_every && i % quiet_every == 0 ? 3 : 1), STALL_HANG);
	return t;
}

START_TEST(wilson_bound)
{
	/* At x = 0 the bound is z^2 / (n + z^2): about 2.7 / n, the "rule of three" at 95 %. */
	ck_assert_double_eq_tol(stall_upper_bound(0, 100, STALL_Z), 2.7055 / 102.7055, 1e-4);
	ck_assert_double_eq_tol(stall_upper_bound(50, 100, STALL_Z), 0.5806, 1e-3);
	ck_assert(stall_upper_bound(100, 100, STALL_Z) <= 1.0);
	ck_assert_double_eq(stall_upper_bound(0, 0, STALL_Z), 1.0);
}
END_TEST

/* A job in which nothing ever stood still: S's ladder has no level at p = 0; this model does,
 * and a standstill is a hang after few samples. */
START_TEST(a_standstill_in_a_job_that_always_moves)
{
	struct stall s;
	struct stall_info in;

	stall_init(&s, 0.001);
	double t = feed_healthy(&s, 0, STALL_BOOT_SAMPLES - 2, 0);

	ck_assert(!stall_usable(&s)); /* too little history */
	ck_assert_int_eq(stall_add(&s, t, 0, 4), STALL_BUILDING);
	stall_dismiss(&s);
	t = feed_healthy(&s, t + 400, 100, 0);
	ck_assert(stall_usable(&s));
	stall_get_info(&s, &in);
	ck_assert_int_eq(in.k, (int)ceil(log(0.001) / log(in.q)));
	ck_assert_int_le(in.k, 3);
	int verdict_at = -1;

	for (int i = 0; i < 10 && verdict_at < 0; i++, t += 400)
		if (stall_add(&s, t, 0, 4) == STALL_HANG)
			verdict_at = i + 1;
	/* k quiet samples, and beyond 1.5 x the longest healthy standstill (the 0.4 s above). */
	ck_assert_int_ge(verdict_at, in.k);
	ck_assert_int_le(verdict_at, in.k + 2);
	ck_assert(stall_hang_ongoing(&s));
	/* No evidence (ranks in application code) keeps the verdict; a move ends it. */
	ck_assert_int_eq(stall_add(&s, t, 0, 0), STALL_HANG);
	ck_assert_int_eq(stall_add(&s, t + 400, 2, 0), STALL_MOVING);
	ck_assert(!stall_hang_ongoing(&s));
}
END_TEST

/* Issue 68: a fault 8 s in, after 20 samples of a job that always moved: the bootstrap calls
 * the standstill a hang, at the stricter bound (more quiet samples than a full history asks
 * for, fewer than a window's 64); a job often quiet in its first seconds gets none so soon. */
START_TEST(the_bootstrap_judges_the_first_seconds)
{
	struct stall s, full;
	struct stall_info in, in_full;

	stall_init(&s, 0.001);
	double t = feed_healthy(&s, 0, 20, 0);

	ck_assert(stall_usable(&s));
	stall_get_info(&s, &in);
	ck_assert_double_eq_tol(in.q, stall_upper_bound(0, 20, STALL_BOOT_Z), 1e-12);
	stall_init(&full, 0.001);
	feed_healthy(&full, 0, STALL_MIN_SAMPLES, 0);
	stall_get_info(&full, &in_full);
	ck_assert_int_gt(in.k, in_full.k);
	ck_assert_int_le(in.k, 16); /* 6.4 s at 400 ms */
	int verdict_at = -1;

	for (int i = 0; i < 64 && verdict_at < 0; i++, t += 400)
		if (stall_add(&s, t, 0, 4) == STALL_HANG)
			verdict_at = i + 1;
	ck_assert_int_eq(verdict_at, in.k);
	/* Quiet in every other sample of its first seconds: k grows past the 2-10 s phases such a
	 * job may begin with. */
	stall_init(&s, 0.001);
	feed_healthy(&s, 0, 20, 2);
	stall_get_info(&s, &in);
	ck_assert_int_ge(in.k, 40);
}
END_TEST

/* A job that stands still in half its samples: a hang needs many quiet samples in a row. */
START_TEST(a_job_often_quiet_needs_a_long_run)
{
	struct stall s;
	struct stall_info in;

	stall_init(&s, 0.001);
	feed_healthy(&s, 0, 400, 2);
	stall_get_info(&s, &in);
	ck_assert(in.usable);
	ck_assert_double_eq_tol(in.p_hat, 0.5, 0.01);
	ck_assert_int_ge(in.k, 10);
}
END_TEST

/* Long collective phases: once the job has shown a 10-s standstill that ended in a move, a
 * verdict needs more than 15 s, whatever q says. */
START_TEST(the_guard_learns_the_longest_healthy_standstill)
{
	struct stall s;
	struct stall_info in;

	stall_init(&s, 0.001);
	double t = feed_healthy(&s, 0, 200, 0);

	for (int i = 0; i < 25; i++, t += 400)
		(void)stall_add(&s, t, 0, 3);
	/* Called a hang, then dismissed by the confirmation: the job moved. */
	ck_assert(stall_hang_ongoing(&s));
	stall_add(&s, t, 2, 1);
	t += 400;
	stall_get_info(&s, &in);
	ck_assert_double_ge(in.longest_healthy_ms, 9.5e3);
	/* The quiet samples of that run were not taught. */
	ck_assert_double_eq_tol(in.p_hat, 0.0, 1e-9);
	double start = t - 400;
	int verdict = 0;

	for (; t < start + 40e3 && !verdict; t += 400)
		verdict = stall_add(&s, t, 0, 3) == STALL_HANG;
	ck_assert(verdict);
	ck_assert_double_gt(t - 400 - start, 1.5 * in.longest_healthy_ms);
}
END_TEST

/* A healthy quiet run is taught when a move ends it; samples without evidence are neither. */
/* What a verdict would take, predicted: none before a history; then k quiet samples at the
 * interval; then the guard, once a long healthy standstill was seen. */
START_TEST(the_prediction_is_k_samples_or_the_guard)
{
	struct stall s;
	struct stall_info in;

	stall_init(&s, 0.001);
	double t = feed_healthy(&s, 0, STALL_BOOT_SAMPLES - 1, 0);

	ck_assert(isinf(stall_verdict_eta_ms(&s, 400)));
	t = feed_healthy(&s, t, 160, 0);
	stall_get_info(&s, &in);
	ck_assert_int_ge(in.k, 2);
	ck_assert_double_eq_tol(stall_verdict_eta_ms(&s, 400), in.k * 400.0, 1e-9);
	/* A healthy 10-s standstill: a verdict then waits for 1.5 times it. */
	for (int i = 0; i < 25; i++, t += 400)
		stall_add(&s, t, 0, 3);
	stall_add(&s, t, 3, 0);
	stall_get_info(&s, &in);
	ck_assert_double_ge(in.longest_healthy_ms, 9000);
	ck_assert_double_ge(stall_verdict_eta_ms(&s, 400), 1.5 * in.longest_healthy_ms);
	ck_assert(isinf(stall_verdict_eta_ms(&s, 0)));
}
END_TEST

START_TEST(quiet_runs_are_taught_when_they_end)
{
	struct stall s;

	stall_init(&s, 0.001);
	double t = feed_healthy(&s, 0, 100, 0);

	ck_assert_int_eq(stall_add(&s, t, 0, 2), STALL_QUIET);
	ck_assert_double_eq(s.n, 100);
	ck_assert_int_eq(stall_add(&s, t + 400, 0, 0), STALL_QUIET);
	ck_assert_int_eq(stall_add(&s, t + 800, 1, 1), STALL_MOVING);
	ck_assert_double_eq(s.n, 102);
	ck_assert_double_eq(s.quiet, 1);
	ck_assert_double_eq_tol(s.longest_healthy_ms, 400, 1e-9);
}
END_TEST

/* Before any rank was seen to move there is nothing to compare a standstill with: the
 * confirmation's early path (progress evidence) is for that. */
START_TEST(no_verdict_before_a_first_move)
{
	struct stall s;

	stall_init(&s, 0.001);
	for (int i = 0; i < 500; i++)
		ck_assert_int_ne(stall_add(&s, i * 400.0, 0, 4), STALL_HANG);
}
END_TEST

/* Both detectors feed the confirmation: the stall model's verdict opens a window named after
 * it, a move dismisses it, and S's verdict at the same sample is named first. */
START_TEST(the_confirmation_names_the_stall_model)
{
	struct confirm c;
	struct confirm_sample smp = { .t_ms = 1000, .verdict = DETECTOR_BUILDING, .live = 4,
				      .still = 4, .model_ready = true, .stall_hang = true,
				      .stall_ongoing = true };

	confirm_init(&c, 10);
	ck_assert_int_eq(confirm_add(&c, &smp), CONFIRM_SUSPECTED);
	ck_assert_int_eq(c.basis, CONFIRM_BY_STALL);
	smp.t_ms += 500;
	ck_assert_int_eq(confirm_add(&c, &smp), CONFIRM_NOTHING);
	/* Its verdict ongoing keeps the window open though S's model says nothing. */
	smp.stall_hang = false;
	for (smp.t_ms = 2000; smp.t_ms < 11000; smp.t_ms += 500)
		ck_assert_int_eq(confirm_add(&c, &smp), CONFIRM_NOTHING);
	ck_assert_int_eq(confirm_add(&c, &smp), CONFIRM_HANG);

	confirm_init(&c, 10);
	smp = (struct confirm_sample){ .t_ms = 1000, .verdict = DETECTOR_HANG, .hang_ongoing = true,
				       .live = 4, .still = 4, .model_ready = true, .stall_hang = true,
				       .stall_ongoing = true };
	ck_assert_int_eq(confirm_add(&c, &smp), CONFIRM_SUSPECTED);
	ck_assert_int_eq(c.basis, CONFIRM_BY_MODEL);
	/* S's run goes on while the stall model's ends with a move: not yet dismissed (one odd
	 * sample is not enough); both ended: dismissed. */
	smp = (struct confirm_sample){ .t_ms = 1500, .verdict = DETECTOR_HANG, .hang_ongoing = true,
				       .live = 4, .moved = 2, .model_ready = true };
	ck_assert_int_eq(confirm_add(&c, &smp), CONFIRM_NOTHING);
	smp = (struct confirm_sample){ .t_ms = 2000, .verdict = DETECTOR_HEALTHY, .live = 4,
				       .still = 2, .model_ready = true };
	ck_assert_int_eq(confirm_add(&c, &smp), CONFIRM_MOVED);
}
END_TEST

Suite *stall_suite(void)
{
	Suite *s = suite_create("stall");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, wilson_bound);
	tcase_add_test(tc, a_standstill_in_a_job_that_always_moves);
	tcase_add_test(tc, the_bootstrap_judges_the_first_seconds);
	tcase_add_test(tc, a_job_often_quiet_needs_a_long_run);
	tcase_add_test(tc, the_guard_learns_the_longest_healthy_standstill);
	tcase_add_test(tc, the_prediction_is_k_samples_or_the_guard);
	tcase_add_test(tc, quiet_runs_are_taught_when_they_end);
	tcase_add_test(tc, no_verdict_before_a_first_move);
	tcase_add_test(tc, the_confirmation_names_the_stall_model);
	suite_add_tcase(s, tc);
	return s;
}
