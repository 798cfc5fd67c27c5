/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the remembered model (stats/prior.c, detector_prior_*, stall_prior_*): its text form
 * read back exactly and hostile text refused with a reason, what a settled healthy run hands on,
 * and what the next run does with it: an early hang called in k samples, not after the windows;
 * the program's longest healthy phase still not called one. */
#include <math.h>
#include <string.h>

#include "../../stats/detector.h"
#include "../../stats/prior.h"
#include "../../stats/stall.h"
#include "../lib/tracegen.h"
#include "suites.h"

static void sample_prior(struct model_prior *p)
{
	memset(p, 0, sizeof(*p));
	p->set_size = 4;
	p->interval_ms = 800;
	p->longest_healthy_ms = 1234.5;
	p->stall_samples = 300;
	p->stall_quiet_share = 0.25;
	p->stall_longest_ms = 2000;
	p->samples = 1500;
	p->share[0] = 0.1, p->share[1] = 0.1, p->share[2] = 0.2, p->share[3] = 0.2, p->share[4] = 0.4;
}

START_TEST(the_text_reads_back)
{
	struct model_prior p, q;
	char buf[PRIOR_TEXT_MAX], err[128];

	sample_prior(&p);
	int n = prior_format(&p, buf, sizeof(buf));

	ck_assert_int_gt(n, 0);
	ck_assert(prior_parse(buf, (size_t)n, &q, err, sizeof(err)));
	ck_assert_int_eq(q.set_size, 4);
	ck_assert_double_eq_tol(q.interval_ms, 800, 1e-9);
	ck_assert_double_eq_tol(q.longest_healthy_ms, 1234.5, 1e-9);
	ck_assert_double_eq_tol(q.stall_samples, 300, 1e-9);
	ck_assert_double_eq_tol(q.share[4], 0.4, 1e-9);
	ck_assert_int_eq(prior_format(&p, buf, 40), -1); /* too small a buffer says so */
}
END_TEST

/* A monitor may run as root on a file a user can write: every malformed form is refused. */
START_TEST(hostile_text_is_refused_with_a_reason)
{
	struct model_prior p, q;
	char buf[PRIOR_TEXT_MAX], bad[PRIOR_TEXT_MAX + 64], err[128];
	static const struct {
		const char *from, *to, *reason;
	} edits[] = {
		{ "parastack-model-prior 1", "parastack-model-prior 9", "version 9" },
		{ "set_size 4", "set_size 100000", "set_size" },
		{ "set_size 4", "set_size 2.5", "set_size" },
		{ "interval_ms 800.000", "interval_ms nan", "not a number" },
		{ "interval_ms 800.000", "interval_ms 0", "out of range" },
		{ "stall_quiet_share 0.250000000", "stall_quiet_share 1.5", "out of range" },
		{ "samples 1500.0", "samples 1500.0\nsamples 3", "twice" },
		{ "samples 1500.0\n", "", "missing" },
		{ "samples 1500.0", "colour blue", "unknown key" },
		{ "share 0.100000000", "share 0.900000000", "out of range" }, /* not a distribution */
		{ "interval_ms 800.000", "interval_ms 800.000 7", "trailing" },
	};

	sample_prior(&p);
	prior_format(&p, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		const char *at = strstr(buf, edits[i].from);

		ck_assert_ptr_nonnull(at);
		snprintf(bad, sizeof(bad), "%.*s%s%s", (int)(at - buf), buf, edits[i].to, at + strlen(edits[i].from));
		err[0] = '\0';
		ck_assert_msg(!prior_parse(bad, strlen(bad), &q, err, sizeof(err)), "accepted edit %zu", i);
		ck_assert_msg(strstr(err, edits[i].reason), "edit %zu: reason '%s', wanted '%s'", i, err, edits[i].reason);
	}
	/* Cut anywhere: never accepted, never read past the end. */
	size_t len = strlen(buf);

	for (size_t cut = 0; cut + 1 < len; cut++)
		ck_assert(!prior_parse(buf, cut, &q, err, sizeof(err)));
	memset(bad, 'x', sizeof(bad));
	ck_assert(!prior_parse(bad, sizeof(bad), &q, err, sizeof(err)));
	ck_assert(strstr(err, "longer than"));
}
END_TEST

/* A default detector seeded seed, started from start when given; and the short-phase job's
 * trace generator beside it. */
static struct detector *detector_for(uint64_t seed, const struct model_prior *start, struct tracegen_config *gc)
{
	struct detector_config cfg;

	detector_config_default(&cfg);
	cfg.seed = seed;
	struct detector *d = detector_new(&cfg);

	ck_assert_ptr_nonnull(d);
	if (start)
		ck_assert(detector_prior_give(d, start));
	tracegen_config_default(gc, TRACEGEN_SHORT, seed);
	return d;
}

/* A healthy short-phase job for minutes; returns its detector (verdicts dismissed as the
 * confirmation would). */
static struct detector *healthy_run(uint64_t seed, double minutes, const struct model_prior *start)
{
	struct tracegen_config gc;
	struct tracegen g;
	struct detector *d = detector_for(seed, start, &gc);

	gc.duration_ms = minutes * 60e3;
	tracegen_init(&g, &gc);
	for (double t = 0; t <= gc.duration_ms; t += detector_next_step_ms(d))
		if (detector_add(d, t, tracegen_s_at(&g, t)) == DETECTOR_HANG)
			detector_dismiss(d);
	return d;
}

/* The delay (s) to the verdict on a hang 8 s into a short-phase job; -1: none in 120 s. */
static double early_hang_delay(uint64_t seed, const struct model_prior *start)
{
	struct tracegen_config gc;
	struct tracegen g;
	struct detector *d = detector_for(seed, start, &gc);

	gc.hang_at_ms = 8000;
	gc.duration_ms = 128e3;
	tracegen_init(&g, &gc);

	double delay = -1;

	for (double t = 0; t <= gc.duration_ms; t += detector_next_step_ms(d)) {
		enum detector_verdict v = detector_add(d, t, tracegen_s_at(&g, t));

		if (v == DETECTOR_HANG && t >= gc.hang_at_ms) {
			delay = (t - gc.hang_at_ms) / 1e3;
			break;
		}
		ck_assert_msg(v != DETECTOR_HANG, "seed %llu: a hang verdict at %.0f ms, before the hang",
			      (unsigned long long)seed, t);
	}
	detector_free(d);
	return delay;
}

START_TEST(an_early_hang_is_called_from_the_remembered_model)
{
	struct model_prior p;
	struct detector *d = healthy_run(41, 5, NULL);

	ck_assert(detector_prior_take(d, &p));
	detector_free(d);
	ck_assert(prior_valid(&p));

	/* Over seeds: with the prior every early hang is called within a few seconds; without it
	 * the window rule holds the verdict back (bench/model_eval --prior: median 19 s -> 2 s). */
	int faster = 0;

	for (uint64_t seed = 100; seed < 110; seed++) {
		double with = early_hang_delay(seed, &p), without = early_hang_delay(seed, NULL);

		ck_assert_msg(with >= 0 && with < 10, "seed %llu: %.1f s with the prior", (unsigned long long)seed, with);
		faster += without < 0 || with < without;
	}
	ck_assert_int_ge(faster, 8);

	struct detector_info in;

	d = healthy_run(7, 0, &p);
	detector_get_info(d, &in);
	ck_assert(in.from_prior && in.usable);
	ck_assert_double_eq_tol(in.interval_ms, p.interval_ms, 1e-9);
	detector_free(d);
}
END_TEST

START_TEST(a_prior_that_does_not_fit_is_refused)
{
	struct detector_config cfg;
	struct model_prior p;

	sample_prior(&p);
	detector_config_default(&cfg); /* set size 10, the prior's 4 */
	struct detector *d = detector_new(&cfg);

	ck_assert(!detector_prior_give(d, &p));
	cfg.set_size = 4;
	detector_free(d);
	d = detector_new(&cfg);
	for (int i = 0; i < DETECTOR_MIN_SAMPLES - 1; i++)
		detector_add(d, i * 400.0, 1 + i % 3);
	ck_assert(detector_prior_give(d, &p));  /* the job's first few samples join it */
	ck_assert(!detector_prior_give(d, &p)); /* once */
	detector_free(d);
	d = detector_new(&cfg);
	for (int i = 0; i < DETECTOR_MIN_SAMPLES; i++)
		detector_add(d, i * 400.0, 1 + i % 3);
	ck_assert(!detector_prior_give(d, &p)); /* too late: a level may be in use */
	detector_free(d);

	/* An unsettled model hands nothing on. */
	d = detector_new(&cfg);
	for (int i = 0; i < 20; i++)
		detector_add(d, i * 400.0, i % 5);
	ck_assert(!detector_prior_take(d, &p));
	detector_free(d);
}
END_TEST

/* The guard travels: a standstill as long as the longest the program showed is not a hang. */
START_TEST(the_stall_model_remembers_its_guard)
{
	struct stall a, b;
	struct model_prior p;

	sample_prior(&p);
	stall_init(&a, 0.001);
	for (int i = 0; i < 200; i++)
		stall_add(&a, i * 400.0, i % 4 ? 2 : 0, i % 4 ? 0 : 2);
	/* One 10-s standstill that ended in a move (called a hang, as a first one is, and
	 * dismissed, as the confirmation does when the job moves on). */
	double t = 200 * 400.0;

	for (int i = 0; i < 25; i++)
		stall_add(&a, t += 400, 0, 2);
	if (stall_hang_ongoing(&a))
		stall_dismiss(&a);
	stall_add(&a, t += 400, 2, 0);
	stall_prior_take(&a, &p);
	ck_assert_double_ge(p.stall_longest_ms, 9600);

	stall_init(&b, 0.001);
	ck_assert(stall_prior_give(&b, &p));
	ck_assert(stall_usable(&b));
	t = 0;
	stall_add(&b, t, 2, 0);
	for (int i = 0; i < 30; i++) /* 12 s: under 1.5 x the remembered 10 s */
		ck_assert_int_ne(stall_add(&b, t += 400, 0, 2), STALL_HANG);
	enum stall_verdict v = STALL_QUIET;

	for (int i = 0; i < 20 && v != STALL_HANG; i++)
		v = stall_add(&b, t += 400, 0, 2);
	ck_assert_int_eq(v, STALL_HANG);
	ck_assert(!stall_prior_give(&b, &p)); /* not once the history is full */
}
END_TEST

Suite *prior_suite(void)
{
	Suite *s = suite_create("prior");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, the_text_reads_back);
	tcase_add_test(tc, hostile_text_is_refused_with_a_reason);
	tcase_add_test(tc, an_early_hang_is_called_from_the_remembered_model);
	tcase_add_test(tc, a_prior_that_does_not_fit_is_refused);
	tcase_add_test(tc, the_stall_model_remembers_its_guard);
	suite_add_tcase(s, tc);
	return s;
}
