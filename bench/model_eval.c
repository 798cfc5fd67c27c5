/* SPDX-License-Identifier: BSD-3-Clause */
/* model_eval — the model and the confirmation window over synthetic job traces
 * (tests/lib/tracegen): hours of healthy short-phase (~1.3 s period) and long-phase (~20 s
 * period: 12 s computing, 7 s all in MPI) jobs, and hangs at several times into a job. For each
 * set of detector rules (DETECTOR_RULE_*: the window refinements), prints
 *   - false suspicions per healthy hour: hang verdicts of the model on a healthy job;
 *   - false confirmations: those whose suspicion run lasted the whole confirmation window
 *     (a trace has no stacks, so only the model's own view can dismiss: an upper bound);
 *   - detections: the delay from the hang to the model's verdict (median, p90, max), misses,
 *     for hangs at several times into short- and long-phase jobs.
 * The sampler is simulated as the monitor runs it: the next sample after the detector's
 * randomized step; after a verdict, sampling goes on and a run that ends dismisses it.
 * Then the stall model (stats/stall.c) over synthetic jobs that live in MPI (S always 0, the
 * model of S blind): what the progress fingerprints of C sampled ranks show, sample by sample,
 * for a job that moves except in standstills (short ones, and with 10-s collective phases),
 * the same counts: false suspicions and confirmations per healthy hour, delays of hangs.
 *
 * --prior MINUTES starts every run's models from what a healthy run of the same job (another
 * seed) for MINUTES taught them (stats/prior.h): the remembered model of issue 68.
 *
 * usage: model_eval [--hours H] [--seeds N] [--confirm SECONDS] [--interval MS] [--prior MINUTES] */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../stats/stats.h"
#include "../tests/lib/tracegen.h"

struct variant {
	const char *name;
	unsigned rules;
};

static const struct variant variants[] = {
	{ "none of a, b, c (the previous rules)", 0 },
	{ "a: windows against the model's mean", DETECTOR_RULE_MODEL_MEAN },
	{ "b: verdict after 2 passed windows", DETECTOR_RULE_RECENT_PASSED },
	{ "c: 2 windows after a doubling", DETECTOR_RULE_FEWER_AFTER_DOUBLING },
	{ "b + c (the default)", DETECTOR_RULES_DEFAULT },
	{ "a + b + c", DETECTOR_RULES_ALL },
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

struct healthy_tally {
	long suspicions, confirmations;
	double hours;
};

static double initial_interval_ms = DETECTOR_DEFAULT_INTERVAL_MS; /* --interval */
static double prior_minutes;                                     /* --prior */
#define PRIOR_SEED 0x9e3779b9u /* the remembered run is another seed of the same job */

static void learn_prior(enum tracegen_kind kind, uint64_t seed, unsigned rules, struct model_prior *p);

static struct detector *new_detector(enum tracegen_kind kind, unsigned rules, uint64_t seed, bool remember)
{
	struct detector_config cfg;
	struct model_prior p;

	detector_config_default(&cfg);
	cfg.interval_ms = initial_interval_ms;
	cfg.rules = rules;
	cfg.seed = seed;

	struct detector *d = detector_new(&cfg);

	if (d && remember && prior_minutes > 0) {
		learn_prior(kind, seed ^ PRIOR_SEED, rules, &p);
		detector_prior_give(d, &p);
	}
	return d;
}

/* A healthy job for `minutes`: count the model's verdicts, and those that outlast the window.
 * With learn, what the run taught (learn->set_size 0: nothing) instead of a remembered start. */
static void run_healthy_model(enum tracegen_kind kind, uint64_t seed, double minutes, unsigned rules,
			      double window_ms, struct healthy_tally *t, struct model_prior *learn)
{
	struct tracegen_config gc;
	struct tracegen g;
	struct detector *d = new_detector(kind, rules, seed, !learn);
	double suspected = -1.0;

	tracegen_config_default(&gc, kind, seed);
	gc.duration_ms = minutes * 60e3;
	tracegen_init(&g, &gc);
	for (double ts = 0.0; ts <= gc.duration_ms; ts += detector_next_step_ms(d)) {
		enum detector_verdict v = detector_add(d, ts, tracegen_s_at(&g, ts));
		bool ongoing = detector_hang_ongoing(d);

		if (suspected < 0 && v == DETECTOR_HANG) {
			suspected = ts;
			t->suspicions++;
		} else if (suspected >= 0 && (!ongoing || ts - suspected >= window_ms)) {
			t->confirmations += ongoing;
			suspected = -1.0;
			detector_dismiss(d);
		}
	}
	t->hours += minutes / 60.0;
	if (learn && (detector_hang_ongoing(d) || !detector_prior_take(d, learn)))
		learn->set_size = 0;
	detector_free(d);
}

static void run_healthy(enum tracegen_kind kind, uint64_t seed, double minutes, unsigned rules,
			double window_ms, struct healthy_tally *t)
{
	run_healthy_model(kind, seed, minutes, rules, window_ms, t, NULL);
}

static void learn_prior(enum tracegen_kind kind, uint64_t seed, unsigned rules, struct model_prior *p)
{
	struct healthy_tally unused = { 0 };

	run_healthy_model(kind, seed, prior_minutes, rules, CONFIRM_DEFAULT_S * 1e3, &unused, p);
}

/* A job hanging at hang_s: the delay to the model's first verdict after it (-1: missed within
 * the trace); *false_before counts verdicts before the hang. */
static double run_hang(enum tracegen_kind kind, uint64_t seed, double hang_s, unsigned rules,
		       long *false_before)
{
	struct tracegen_config gc;
	struct tracegen g;
	struct detector *d = new_detector(kind, rules, seed, true);
	double delay = -1.0, suspected = -1.0;

	tracegen_config_default(&gc, kind, seed);
	gc.hang_at_ms = hang_s * 1e3;
	gc.duration_ms = gc.hang_at_ms + 300e3;
	tracegen_init(&g, &gc);
	for (double ts = 0.0; ts <= gc.duration_ms; ts += detector_next_step_ms(d)) {
		enum detector_verdict v = detector_add(d, ts, tracegen_s_at(&g, ts));

		if (v == DETECTOR_HANG && ts >= gc.hang_at_ms) {
			delay = (ts - gc.hang_at_ms) / 1e3;
			break;
		}
		if (v == DETECTOR_HANG && suspected < 0) {
			suspected = ts;
			(*false_before)++;
		} else if (suspected >= 0 && !detector_hang_ongoing(d)) {
			suspected = -1.0;
			detector_dismiss(d);
		}
	}
	detector_free(d);
	return delay;
}

/* A job that lives in MPI, as the progress fingerprints see it: it moves, except in standstills
 * (nothing of it changes): exponential gaps of mean move_s between them, each lasting an
 * exponential time of mean short_s, or with probability p_long a collective phase of long_lo to
 * long_hi s. From hang_s on (< 0: never) it stands still for good. */
struct stallgen {
	double move_s, short_s, p_long, long_lo, long_hi, hang_s;
	struct rng rng;
	double still_from, still_to; /* the current or next standstill, ms */
};

static double exp_ms(struct rng *r, double mean_s)
{
	return -log(1.0 - rng_uniform(r)) * mean_s * 1e3;
}

static void stallgen_next(struct stallgen *g)
{
	double len = rng_uniform(&g->rng) < g->p_long ?
			     (g->long_lo + rng_uniform(&g->rng) * (g->long_hi - g->long_lo)) * 1e3 :
			     exp_ms(&g->rng, g->short_s);

	g->still_from = g->still_to + exp_ms(&g->rng, g->move_s);
	g->still_to = g->still_from + len;
}

/* Did the job move in (a, b]? */
static bool stallgen_moved(struct stallgen *g, double a, double b)
{
	if (g->hang_s >= 0 && a >= g->hang_s * 1e3)
		return false;
	while (g->still_to <= a)
		stallgen_next(g);
	/* It moved unless (a, b] lies inside one standstill. */
	return !(g->still_from <= a && b <= g->still_to);
}

enum stall_job { STALL_JOB_SHORT, STALL_JOB_PHASES };

static void stallgen_init(struct stallgen *g, enum stall_job kind, uint64_t seed, double hang_s)
{
	*g = (struct stallgen){ .move_s = 1.0, .short_s = 0.3, .hang_s = hang_s };
	if (kind == STALL_JOB_PHASES) {
		g->p_long = 0.02; /* about one 2-10 s collective phase a minute */
		g->long_lo = 2;
		g->long_hi = 10;
	}
	rng_seed(&g->rng, seed);
	stallgen_next(g);
}

/* One run of the stall model on a generated job for duration_s, sampled as the monitor does
 * (I/2 + U[0, I], I = 400 ms), with the confirmation window's dismissal. Healthy (hang_s < 0):
 * counts suspicions and those lasting the window; else returns the delay to the first verdict
 * after the hang (-1: none). */
static double run_stall_model(enum stall_job kind, uint64_t seed, double hang_s, double duration_s,
			      double window_ms, long *suspicions, long *confirmations, struct model_prior *learn)
{
	struct stallgen g;
	struct stall st;
	struct rng step;
	double suspected = -1, prev = 0;

	stallgen_init(&g, kind, seed, hang_s);
	stall_init(&st, DETECTOR_DEFAULT_ALPHA);
	if (!learn && prior_minutes > 0) {
		struct model_prior p = { .set_size = 1, .interval_ms = 400, .share = { 1 } };
		long unused = 0;

		run_stall_model(kind, seed ^ PRIOR_SEED, -1, prior_minutes * 60, window_ms, &unused, &unused, &p);
		stall_prior_give(&st, &p);
	}
	rng_seed(&step, seed ^ 0x5eed);
	for (double t = 0; t <= duration_s * 1e3; prev = t, t += 200 + 400 * rng_uniform(&step)) {
		bool moved = t > 0 && stallgen_moved(&g, prev, t);
		enum stall_verdict v = stall_add(&st, t, moved ? DETECTOR_DEFAULT_SET_SIZE : 0,
						 moved ? 0 : DETECTOR_DEFAULT_SET_SIZE);

		if (v == STALL_HANG && hang_s >= 0 && t >= hang_s * 1e3)
			return (t - hang_s * 1e3) / 1e3;
		if (v == STALL_HANG && suspected < 0) {
			suspected = t;
			(*suspicions)++;
		} else if (suspected >= 0 && (!stall_hang_ongoing(&st) || t - suspected >= window_ms)) {
			*confirmations += stall_hang_ongoing(&st);
			suspected = -1;
			stall_dismiss(&st);
		}
	}
	if (learn)
		stall_prior_take(&st, learn);
	return -1;
}

static double run_stall(enum stall_job kind, uint64_t seed, double hang_s, double duration_s,
			double window_ms, long *suspicions, long *confirmations)
{
	return run_stall_model(kind, seed, hang_s, duration_s, window_ms, suspicions, confirmations, NULL);
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double quantile(const double *sorted, int n, double q)
{
	return n ? sorted[(int)fmin(n - 1, floor(q * n))] : NAN;
}

/* The stall model's part of the report. */
static void print_stall_eval(double hours, int seeds, double window_s, double *delays)
{
	static const struct {
		enum stall_job kind;
		const char *name;
	} jobs[] = { { STALL_JOB_SHORT, "short standstills (mean 0.3 s)" },
		     { STALL_JOB_PHASES, "and 2-10 s collective phases (about 1/min)" } };
	static const double at[] = { 8, 20, 60, 180, 600 };

	printf("\n### The stall model on jobs that live in MPI (S always 0)\n\n");
	printf("Healthy: %.0f h of each job (1 h each). A false suspicion prints one line; a false "
	       "confirmation (a standstill outlasting the %.0f s window) would end a healthy job.\n\n",
	       hours, window_s);
	printf("| job | false suspicions | per hour | false confirmations |\n|---|---|---|---|\n");
	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		long sus = 0, conf = 0;

		for (int k = 0; k < (int)hours; k++)
			run_stall(jobs[j].kind, 20000 + (uint64_t)k, -1, 3600, window_s * 1e3, &sus, &conf);
		printf("| %s | %ld | %.2f | %ld |\n", jobs[j].name, sus, sus / hours, conf);
	}
	printf("\nHangs (%d seeds each): delay from the hang to the stall model's verdict "
	       "(missed: none in 300 s).\n\n", seeds);
	printf("| job | hang at | median s | p90 s | max s | missed | false suspicions before |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++)
		for (size_t h = 0; h < sizeof(at) / sizeof(at[0]); h++) {
			int n = 0, missed = 0;
			long before = 0, unused = 0;

			for (int k = 0; k < seeds; k++) {
				double dl = run_stall(jobs[j].kind, 30000 + (uint64_t)k, at[h], at[h] + 300,
						      window_s * 1e3, &before, &unused);

				if (dl < 0)
					missed++;
				else
					delays[n++] = dl;
			}
			qsort(delays, (size_t)n, sizeof(double), compare_double);
			printf("| %s | %.0f s | %.1f | %.1f | %.1f | %d | %ld |\n", jobs[j].name, at[h],
			       quantile(delays, n, 0.5), quantile(delays, n, 0.9), n ? delays[n - 1] : NAN,
			       missed, before);
		}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "hours", required_argument, NULL, 'H' },
		{ "seeds", required_argument, NULL, 's' },
		{ "confirm", required_argument, NULL, 'c' },
		{ "interval", required_argument, NULL, 'i' },
		{ "prior", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		enum tracegen_kind kind;
		const char *name;
		double at_s;
	} hangs[] = { { TRACEGEN_SHORT, "short", 8 }, { TRACEGEN_SHORT, "short", 20 }, { TRACEGEN_SHORT, "short", 60 },
		      { TRACEGEN_SHORT, "short", 180 }, { TRACEGEN_LONG, "long", 60 },
		      { TRACEGEN_LONG, "long", 180 }, { TRACEGEN_LONG, "long", 600 } };
	double hours = 250, window_s = CONFIRM_DEFAULT_S;
	int seeds = 200, c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': hours = atof(optarg); break;
		case 's': seeds = atoi(optarg); break;
		case 'c': window_s = atof(optarg); break;
		case 'i': initial_interval_ms = atof(optarg); break;
		case 'p': prior_minutes = atof(optarg); break;
		default:
			fprintf(stderr, "usage: model_eval [--hours H] [--seeds N] [--confirm SECONDS] [--interval MS] [--prior MINUTES]\n");
			return 2;
		}
	}
	if (!(hours > 0) || seeds < 1 || !(window_s >= 0) ||
	    !(initial_interval_ms >= DETECTOR_MIN_INTERVAL_MS) || !(prior_minutes >= 0)) {
		fprintf(stderr, "model_eval: --hours, --seeds and --confirm must be positive, --interval at least %.0f ms\n",
			DETECTOR_MIN_INTERVAL_MS);
		return 2;
	}

	double *delays = calloc((size_t)seeds, sizeof(double));

	printf("### Healthy jobs: %.0f h of short-phase and %.0f h of long-phase traces (1 h each)\n\n",
	       hours, hours);
	printf("| rules | short: false suspicions | short: false confirmations (%.0f s) | long: false suspicions | long: false confirmations (%.0f s) |\n",
	       window_s, window_s);
	printf("|---|---|---|---|---|\n");
	for (size_t v = 0; v < NVARIANTS; v++) {
		struct healthy_tally sh = { 0 }, lo = { 0 };

		for (int k = 0; k < (int)hours; k++) {
			run_healthy(TRACEGEN_SHORT, 1000 + (uint64_t)k, 60, variants[v].rules, window_s * 1e3, &sh);
			run_healthy(TRACEGEN_LONG, 5000 + (uint64_t)k, 60, variants[v].rules, window_s * 1e3, &lo);
		}
		printf("| %s | %ld | %ld | %ld | %ld |\n", variants[v].name, sh.suspicions,
		       sh.confirmations, lo.suspicions, lo.confirmations);
	}
	printf("\n### Hangs (%d seeds each): delay from the hang to the model's verdict (missed: none in 300 s)\n\n",
	       seeds);
	printf("| rules | phases | hang at | median s | p90 s | max s | missed | false suspicions before |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (size_t v = 0; v < NVARIANTS; v++)
		for (size_t h = 0; h < sizeof(hangs) / sizeof(hangs[0]); h++) {
			int n = 0, missed = 0;
			long false_before = 0;

			for (int k = 0; k < seeds; k++) {
				double dl = run_hang(hangs[h].kind, 9000 + (uint64_t)k, hangs[h].at_s,
						     variants[v].rules, &false_before);

				if (dl < 0)
					missed++;
				else
					delays[n++] = dl;
			}
			qsort(delays, (size_t)n, sizeof(double), compare_double);
			printf("| %s | %s | %.0f s | %.1f | %.1f | %.1f | %d | %ld |\n", variants[v].name,
			       hangs[h].name, hangs[h].at_s, quantile(delays, n, 0.5), quantile(delays, n, 0.9),
			       n ? delays[n - 1] : NAN, missed, false_before);
		}
	print_stall_eval(hours, seeds, window_s, delays);
	free(delays);
	return 0;
}
