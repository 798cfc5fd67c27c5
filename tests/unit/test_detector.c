/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the detector: the product test, held-back samples, model building, the interval
 * step, doubling with model halving, and the cap. */
#include <math.h>

#include "../../stats/detector.h"
#include "suites.h"

/* Healthy, independent samples: S = 0 with probability 0.1 but never twice in a row (so no
 * healthy suspicion run lasts), otherwise uniform on 1..10. */
static int healthy_sample(struct rng *r, int *prev)
{
	int s = (rng_uniform(r) < 0.1 && *prev != 0) ? 0 : 1 + (int)rng_below(r, 10);

	*prev = s;
	return s;
}

static struct detector *healthy_detector(double alpha, int nsamples, double *t)
{
	struct detector_config cfg;
	struct rng r;
	int prev = -1;

	detector_config_default(&cfg);
	cfg.alpha = alpha;

	struct detector *d = detector_new(&cfg);

	ck_assert_ptr_nonnull(d);
	rng_seed(&r, 99);
	for (int i = 0; i < nsamples; i++) {
		*t += 400.0;
		ck_assert_int_ne(detector_add(d, *t, healthy_sample(&r, &prev)), DETECTOR_HANG);
	}
	return d;
}

/* Smallest k with q^k <= alpha, by the same multiplication the detector does. */
static int suspicions_needed(double q, double alpha)
{
	double p = 1.0;
	int k = 0;

	while (p > alpha) {
		p *= q;
		k++;
	}
	return k;
}

/* Suspicions (400 ms apart) before the run outlasts the guard: (j - 1) * 400 > 1.5 * longest. */
static int guard_needed(double longest_ms)
{
	int j = 1;

	while ((j - 1) * 400.0 <= DETECTOR_GUARD_FACTOR * longest_ms)
		j++;
	return j;
}

START_TEST(hang_after_k_suspicions_and_the_guard)
{
	static const double alphas[] = { 0.001, 0.01, 1e-6 };
	double alpha = alphas[_i], t = 0.0;
	struct detector *d = healthy_detector(alpha, 3000, &t);
	struct detector_info before;

	detector_get_info(d, &before);
	ck_assert(before.usable);
	ck_assert_int_eq(before.threshold, 0);
	ck_assert(before.random_ok);

	int k = suspicions_needed(before.q, alpha);
	int g = guard_needed(before.longest_healthy_ms);
	int need = k > g ? k : g, i;

	ck_assert_int_eq(k, (int)ceil(log(alpha) / log(before.q) - 1e-9));
	for (i = 1; i < need; i++) {
		t += 400.0;
		ck_assert_int_eq(detector_add(d, t, 0), DETECTOR_SUSPECT);
	}
	t += 400.0;
	ck_assert_int_eq(detector_add(d, t, 0), DETECTOR_HANG);

	struct detector_info after;

	detector_get_info(d, &after);
	/* The run's samples were held back: the model did not learn the hang. */
	ck_assert_double_eq(after.model_size, before.model_size);
	ck_assert_int_eq(after.run_length, need);
	ck_assert(after.run_product <= alpha);
	/* A verdict stays until the run ends. */
	t += 400.0;
	ck_assert_int_eq(detector_add(d, t, 0), DETECTOR_HANG);
	detector_free(d);
}
END_TEST

START_TEST(guard_waits_for_the_longest_healthy_run)
{
	double t = 0.0;
	struct detector *d = healthy_detector(0.001, 3000, &t);
	struct detector_info a, b;

	/* A healthy run of 10 suspicions at a tenth of the usual spacing: product far below
	 * alpha, but too short to outlast the guard, so it ends healthy and raises the bar. */
	detector_get_info(d, &a);
	ck_assert(a.longest_healthy_ms < 3000);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(detector_add(d, t += 40, 0), DETECTOR_SUSPECT);
	detector_add(d, t += 400, 9);
	detector_get_info(d, &b);
	ck_assert(b.longest_healthy_ms >= a.longest_healthy_ms);
	/* ...and it contradicted the model: the interval doubled. */
	ck_assert_int_eq(b.doublings, a.doublings + 1);
	detector_free(d);
}
END_TEST

START_TEST(ended_runs_join_the_model_but_hangs_do_not)
{
	double t = 0.0;
	struct detector *d = healthy_detector(0.001, 3000, &t);
	struct detector_info a, b;

	detector_get_info(d, &a);
	/* A short run that ends: its samples and the ending sample join the model. */
	detector_add(d, t += 400, 0);
	detector_add(d, t += 400, 0);
	detector_add(d, t += 400, 7);
	detector_get_info(d, &b);
	ck_assert_double_eq(b.model_size, a.model_size + 3);

	/* A run that reached a verdict and then ended: only the ending sample is learnt. */
	while (detector_add(d, t += 400, 0) != DETECTOR_HANG)
		;
	detector_add(d, t += 400, 8);
	detector_get_info(d, &a);
	ck_assert_double_eq(a.model_size, b.model_size + 1);
	ck_assert_int_eq(a.run_length, 0);
	detector_free(d);
}
END_TEST

START_TEST(dismissed_run_backs_off_without_teaching_the_model)
{
	double t = 0.0;
	struct detector *d = healthy_detector(0.001, 3000, &t);
	struct detector_info a, b, c;
	int first = 0, second = 0;

	detector_get_info(d, &a);
	while (detector_add(d, t += 400, 0) != DETECTOR_HANG)
		first++;
	detector_dismiss(d);
	detector_get_info(d, &b);
	/* Nothing learnt, no doubling, the run is gone, the guard grew to the dismissed run. */
	ck_assert_double_eq(b.model_size, a.model_size);
	ck_assert_double_eq(b.interval_ms, a.interval_ms);
	ck_assert_int_eq(b.run_length, 0);
	ck_assert_double_eq(b.run_product, 1.0);
	ck_assert(b.longest_healthy_ms >= 400.0 * first);
	/* The hang goes on: it is found again, after a run at least 1.5x as long. */
	while (detector_add(d, t += 400, 0) != DETECTOR_HANG) {
		second++;
		ck_assert_int_lt(second, 10 * (first + 1));
	}
	detector_get_info(d, &c);
	ck_assert_int_ge(second + 1, (int)(1.5 * first));
	ck_assert_double_eq(c.model_size, a.model_size);
	detector_free(d);
}
END_TEST

START_TEST(no_verdict_while_building)
{
	struct detector_config cfg;
	struct detector *d;
	double t = 0.0;

	detector_config_default(&cfg);
	d = detector_new(&cfg);
	/* A job that is hung from the start: S = 0 forever gives a constant model, which never
	 * has a usable level, so it is "model building", never a verdict. */
	for (int i = 0; i < 500; i++)
		ck_assert_int_eq(detector_add(d, t += 400, 0), DETECTOR_BUILDING);
	detector_free(d);

	d = detector_new(&cfg);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(detector_add(d, t += 400, i % 11), DETECTOR_BUILDING);
	detector_free(d);
}
END_TEST

START_TEST(step_is_uniform_on_half_to_three_halves)
{
	struct detector_config cfg;

	detector_config_default(&cfg);
	cfg.interval_ms = 1000;
	cfg.seed = 5;

	struct detector *d = detector_new(&cfg), *e = detector_new(&cfg);
	double sum = 0.0, lo = 1e9, hi = 0.0;

	for (int i = 0; i < 20000; i++) {
		double s = detector_next_step_ms(d);

		ck_assert_double_eq(s, detector_next_step_ms(e)); /* seeded: repeatable */
		sum += s;
		lo = s < lo ? s : lo;
		hi = s > hi ? s : hi;
	}
	ck_assert(lo >= 500.0 && hi < 1500.0);
	ck_assert(lo < 510.0 && hi > 1490.0);
	ck_assert_double_eq_tol(sum / 20000, 1000.0, 10.0);
	detector_free(d);
	detector_free(e);
}
END_TEST

/* Phases longer than the interval: blocks of 12 samples high, then 12 low (with a little
 * noise, so the model is usable); every 16-sample window holds a phase change. Indexed by
 * sample, so not random at any interval. */
static int phased_sample(struct rng *r, long i)
{
	int high = (i / 12) % 2 == 0;

	return high ? 8 + (int)rng_below(r, 3) : (int)rng_below(r, 3);
}

START_TEST(non_random_sampling_doubles_interval_and_halves_model)
{
	struct detector_config cfg;
	struct rng r;
	struct detector_info before, after;

	detector_config_default(&cfg);
	rng_seed(&r, 3);

	struct detector *d = detector_new(&cfg);
	double t = 0.0;
	long i;

	for (i = 0; i < 2000; i++) {
		detector_get_info(d, &before);
		detector_add(d, t += 400, phased_sample(&r, i));
		detector_get_info(d, &after);
		if (after.doublings > before.doublings)
			break;
	}
	ck_assert_msg(i < 2000, "the interval never doubled");
	ck_assert_double_eq(after.interval_ms, 2 * before.interval_ms);
	/* Halved, give or take the sample(s) added by the step that doubled. */
	ck_assert(after.model_size <= before.model_size / 2 + 40);
	ck_assert(after.model_size >= before.model_size / 2);
	detector_free(d);
}
END_TEST

START_TEST(interval_is_capped)
{
	struct detector_config cfg;
	struct rng r;
	struct detector_info info;

	detector_config_default(&cfg);
	cfg.max_interval_ms = 1600;
	rng_seed(&r, 4);

	struct detector *d = detector_new(&cfg);
	double t = 0.0;

	for (long i = 0; i < 20000; i++)
		detector_add(d, t += 400, phased_sample(&r, i));
	detector_get_info(d, &info);
	ck_assert_double_eq(info.interval_ms, 1600);
	ck_assert_int_eq(info.doublings, 2);
	detector_free(d);
}
END_TEST

START_TEST(independent_samples_never_double)
{
	/* 4 hours at 400 ms of independent samples: windows fail only by chance. */
	double t = 0.0;
	struct detector *d = healthy_detector(0.001, 36000, &t);
	struct detector_info info;

	detector_get_info(d, &info);
	ck_assert_int_eq(info.doublings, 0);
	ck_assert_double_eq(info.interval_ms, 400);
	ck_assert_int_gt(info.windows_failed, 0); /* chance failures did happen... */
	ck_assert_int_lt(info.windows_failed, info.windows_passed / 10); /* ...at about 5 % */
	detector_free(d);
}
END_TEST

/* A job that lives in MPI: S = 0 in every sample, 2 minutes. No window says anything of
 * randomness, so the interval stays (a longer one would starve the stall model); then the same
 * constant windows after the job has shown other values are long phases, tested and failed. */
START_TEST(a_stream_of_one_value_keeps_the_interval)
{
	struct detector_config cfg;
	struct detector_info info;
	double t = 0.0;

	detector_config_default(&cfg);

	struct detector *d = detector_new(&cfg);

	for (int i = 0; i < 300; i++)
		ck_assert_int_ne(detector_add(d, t += 400, 0), DETECTOR_HANG);
	detector_get_info(d, &info);
	ck_assert_int_eq(info.doublings, 0);
	ck_assert_double_eq(info.interval_ms, 400);
	ck_assert_int_eq(info.windows_failed, 0);
	ck_assert_int_ge(info.windows_constant, 300 / DETECTOR_WINDOW - 1);
	detector_free(d);

	/* One value after a healthy history (a long phase out of MPI: no suspicions) is tested,
	 * and fails. */
	struct rng r;
	int prev = -1, failed;

	d = detector_new(&cfg);
	rng_seed(&r, 5);
	for (int i = 0; i < 200; i++)
		detector_add(d, t += 400, healthy_sample(&r, &prev));
	detector_get_info(d, &info);
	failed = info.windows_failed;
	for (int i = 0; i < 5 * DETECTOR_WINDOW; i++)
		detector_add(d, t += 400, cfg.set_size);
	detector_get_info(d, &info);
	ck_assert_int_gt(info.windows_failed + info.doublings, failed);
	detector_free(d);
}
END_TEST

START_TEST(bad_configurations_are_refused)
{
	struct detector_config cfg;

	detector_config_default(&cfg);
	cfg.alpha = 0.0;
	ck_assert_ptr_null(detector_new(&cfg));
	cfg.alpha = 1.0;
	ck_assert_ptr_null(detector_new(&cfg));
	detector_config_default(&cfg);
	cfg.interval_ms = -1;
	ck_assert_ptr_null(detector_new(&cfg));
	detector_config_default(&cfg);
	cfg.max_interval_ms = cfg.interval_ms / 2;
	ck_assert_ptr_null(detector_new(&cfg));
	detector_config_default(&cfg);
	cfg.set_size = 0;
	ck_assert_ptr_null(detector_new(&cfg));
}
END_TEST

/* A detector of one rank set after n healthy samples 400 ms apart (seeded). */
static struct detector *healthy_one_set(int n, double *t)
{
	struct detector_config cfg;
	struct rng r;
	int prev = -1;

	detector_config_default(&cfg);
	cfg.nsets = 1;

	struct detector *d = detector_new(&cfg);

	ck_assert_ptr_nonnull(d);
	rng_seed(&r, 99);
	for (int i = 0; i < n; i++)
		ck_assert_int_ne(detector_add(d, *t += 400.0, healthy_sample(&r, &prev)), DETECTOR_HANG);
	return d;
}

/* Suspicions (S = 0, 400 ms apart) until a hang verdict; how many it took. */
static int samples_to_verdict(struct detector *d, double *t)
{
	for (int i = 1; i <= 1000; i++)
		if (detector_add(d, *t += 400.0, 0) == DETECTOR_HANG)
			return i;
	ck_abort_msg("no verdict in 1000 suspicions");
	return -1;
}

/* The prediction the monitor's basis rule reads (issue 35) is what a run beginning then takes,
 * at every stage of a young model: fewer windows than a verdict needs, just enough, many. */
START_TEST(verdict_eta_is_what_a_run_takes)
{
	static const int histories[] = { 20, 40, 56, 70, 300 };
	double t = 0.0;
	struct detector *d = healthy_one_set(histories[_i], &t);

	ck_assert(detector_usable(d));

	double eta = detector_verdict_eta_ms(d);

	ck_assert(isfinite(eta));
	ck_assert_double_eq_tol(samples_to_verdict(d, &t) * 400.0, eta, 1e-6);
	detector_free(d);
}
END_TEST

/* The demo's case: a settled model whose latest runs-test window failed just before the hang
 * (too few windows at this interval, the latest not passed: random_ok false). A verdict is a
 * window away, not out of reach: the model stays timely, and its verdict comes within its
 * prediction plus the window the run holds itself. */
START_TEST(a_failed_window_before_the_hang_keeps_the_model_timely)
{
	double t = 0.0;
	struct detector *d = healthy_one_set(32, &t); /* two windows, both passed */
	struct detector_info in;

	detector_get_info(d, &in);
	ck_assert_int_eq(in.windows_passed, 2);
	ck_assert(in.random_ok);
	/* A third window that is not random: one long high phase, one long low one (no
	 * suspicion: S above the threshold). */
	for (int i = 0; i < DETECTOR_WINDOW; i++)
		ck_assert_int_eq(detector_add(d, t += 400.0, i < DETECTOR_WINDOW / 2 ? 10 : 5),
				 DETECTOR_UNSETTLED * (i == DETECTOR_WINDOW - 1) +
				 DETECTOR_HEALTHY * (i != DETECTOR_WINDOW - 1));
	detector_get_info(d, &in);
	ck_assert_int_eq(in.windows_failed, 1);
	ck_assert(!in.random_ok);

	double eta = detector_verdict_eta_ms(d);

	ck_assert_double_lt(eta, 15000.0 / 2); /* within half the demo's window */
	ck_assert_double_le(samples_to_verdict(d, &t) * 400.0, eta + DETECTOR_WINDOW * 400.0);
	detector_free(d);
}
END_TEST

/* No level, or a q of 1 (S never moves): no verdict can come, the prediction says so. */
START_TEST(verdict_eta_is_infinite_without_a_level)
{
	struct detector_config cfg;

	detector_config_default(&cfg);

	struct detector *d = detector_new(&cfg);

	ck_assert(isinf(detector_verdict_eta_ms(d)));
	detector_free(d);
}
END_TEST

Suite *detector_suite(void)
{
	Suite *s = suite_create("detector");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, hang_after_k_suspicions_and_the_guard, 0, 3);
	tcase_add_test(tc, guard_waits_for_the_longest_healthy_run);
	tcase_add_test(tc, ended_runs_join_the_model_but_hangs_do_not);
	tcase_add_test(tc, dismissed_run_backs_off_without_teaching_the_model);
	tcase_add_test(tc, no_verdict_while_building);
	tcase_add_test(tc, step_is_uniform_on_half_to_three_halves);
	tcase_add_test(tc, non_random_sampling_doubles_interval_and_halves_model);
	tcase_add_test(tc, interval_is_capped);
	tcase_add_test(tc, independent_samples_never_double);
	tcase_add_test(tc, a_stream_of_one_value_keeps_the_interval);
	tcase_add_test(tc, bad_configurations_are_refused);
	tcase_add_loop_test(tc, verdict_eta_is_what_a_run_takes, 0, 5);
	tcase_add_test(tc, a_failed_window_before_the_hang_keeps_the_model_timely);
	tcase_add_test(tc, verdict_eta_is_infinite_without_a_level);
	suite_add_tcase(s, tc);
	return s;
}
