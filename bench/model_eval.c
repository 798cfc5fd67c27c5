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
 *
 * usage: model_eval [--hours H] [--seeds N] [--confirm SECONDS] */
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

static struct detector *new_detector(unsigned rules, uint64_t seed)
{
	struct detector_config cfg;

	detector_config_default(&cfg);
	cfg.rules = rules;
	cfg.seed = seed;
	return detector_new(&cfg);
}

/* A healthy job for `minutes`: count the model's verdicts, and those that outlast the window. */
static void run_healthy(enum tracegen_kind kind, uint64_t seed, double minutes, unsigned rules,
			double window_ms, struct healthy_tally *t)
{
	struct tracegen_config gc;
	struct tracegen g;
	struct detector *d = new_detector(rules, seed);
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
	detector_free(d);
}

/* A job hanging at hang_s: the delay to the model's first verdict after it (-1: missed within
 * the trace); *false_before counts verdicts before the hang. */
static double run_hang(enum tracegen_kind kind, uint64_t seed, double hang_s, unsigned rules,
		       long *false_before)
{
	struct tracegen_config gc;
	struct tracegen g;
	struct detector *d = new_detector(rules, seed);
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

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double quantile(const double *sorted, int n, double q)
{
	return n ? sorted[(int)fmin(n - 1, floor(q * n))] : NAN;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "hours", required_argument, NULL, 'H' },
		{ "seeds", required_argument, NULL, 's' },
		{ "confirm", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		enum tracegen_kind kind;
		const char *name;
		double at_s;
	} hangs[] = { { TRACEGEN_SHORT, "short", 20 }, { TRACEGEN_SHORT, "short", 60 },
		      { TRACEGEN_SHORT, "short", 180 }, { TRACEGEN_LONG, "long", 60 },
		      { TRACEGEN_LONG, "long", 180 }, { TRACEGEN_LONG, "long", 600 } };
	double hours = 250, window_s = CONFIRM_DEFAULT_S;
	int seeds = 200, c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': hours = atof(optarg); break;
		case 's': seeds = atoi(optarg); break;
		case 'c': window_s = atof(optarg); break;
		default:
			fprintf(stderr, "usage: model_eval [--hours H] [--seeds N] [--confirm SECONDS]\n");
			return 2;
		}
	}
	if (!(hours > 0) || seeds < 1 || !(window_s >= 0)) {
		fprintf(stderr, "model_eval: --hours, --seeds and --confirm must be positive\n");
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
	free(delays);
	return 0;
}
