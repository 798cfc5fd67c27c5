/* SPDX-License-Identifier: BSD-3-Clause */
/* trace_eval — trace-driven evaluation of hang detectors over recorded traces: ParaStack's model
 * (replayed as the live monitor samples, over many seeds) and fixed-timeout detectors in the
 * paper's Table 1 style (sample every I ms, hang after K consecutive samples with S <= 0).
 *
 * Each argument is TRACE or TRACE@FAULT_MS (a trace whose fault fired FAULT_MS into it; without
 * it, a healthy trace). A verdict before the fault is a false alarm; one after it is a detection
 * with delay verdict - fault; none by the trace's end is a miss. Prints two Markdown tables:
 * false alarms on the healthy traces (with the hours replayed), and accuracy, false-positive rate
 * and delay on the faulty ones. Numbers only, no assertions.
 *
 * usage: trace_eval [--seeds N] [--alpha A] TRACE[@FAULT_MS]... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../stats/stats.h"

struct method {
	const char *name;
	double interval_ms; /* fixed detectors: I; 0 for ParaStack */
	int k;              /* fixed detectors: K */
};

static const struct method methods[] = {
	{ "ParaStack (alpha, automatic I)", 0, 0 },
	{ "fixed I = 400 ms, K = 5", 400, 5 },
	{ "fixed I = 400 ms, K = 10", 400, 10 },
	{ "fixed I = 800 ms, K = 5", 800, 5 },
	{ "fixed I = 800 ms, K = 10", 800, 10 },
};
#define NMETHODS (sizeof(methods) / sizeof(methods[0]))

struct tally {
	long runs, detected, false_alarms, missed;
	double delay_sum, delay_sq, hours;
};

struct input {
	struct trace tr;
	double fault_ms; /* < 0: healthy */
};

/* Fixed timeout: sample every I ms from a seeded offset; verdict time, or -1 when none. */
static double fixed_verdict(const struct trace *tr, const struct method *m, uint64_t seed)
{
	struct rng r;
	double t;
	int run = 0;

	rng_seed(&r, seed);
	t = tr->points[0].t_ms + rng_uniform(&r) * m->interval_ms;
	for (size_t i = 0; (i = trace_find(tr, i, t)) < tr->len; t += m->interval_ms) {
		run = tr->points[i].s <= 0 ? run + 1 : 0;
		if (run >= m->k)
			return tr->points[i].t_ms;
	}
	return -1.0;
}

static double parastack_verdict(const struct trace *tr, double alpha, uint64_t seed)
{
	struct detector_config cfg;
	struct replay_trace rt;
	struct replay_source src;
	struct replay_result res;

	detector_config_default(&cfg);
	cfg.alpha = alpha;
	cfg.seed = seed;
	replay_trace_source(&src, &rt, tr);
	if (replay_run(&src, &cfg, &res) < 0)
		return -1.0;
	return res.hang ? res.detected_at_ms : -1.0;
}

static void tally_add(struct tally *t, const struct input *in, double verdict)
{
	const struct trace *tr = &in->tr;
	double end = tr->points[tr->len - 1].t_ms, start = tr->points[0].t_ms;

	t->runs++;
	if (in->fault_ms < 0) {
		t->hours += (end - start) / 3.6e6;
		t->false_alarms += verdict >= 0;
	} else if (verdict >= 0 && verdict < in->fault_ms) {
		t->false_alarms++;
		t->hours += (verdict - start) / 3.6e6;
	} else if (verdict >= 0) {
		double d = (verdict - in->fault_ms) / 1e3;

		t->detected++;
		t->delay_sum += d;
		t->delay_sq += d * d;
		t->hours += (in->fault_ms - start) / 3.6e6;
	} else {
		t->missed++;
		t->hours += (in->fault_ms - start) / 3.6e6;
	}
}

static int load_inputs(int n, char **args, struct input *in)
{
	char err[256];

	for (int i = 0; i < n; i++) {
		char *at = strrchr(args[i], '@');

		in[i].fault_ms = -1.0;
		if (at) {
			*at = '\0';
			in[i].fault_ms = atof(at + 1);
		}
		if (trace_load(args[i], &in[i].tr, err, sizeof(err)) < 0) {
			fprintf(stderr, "trace_eval: %s: %s\n", args[i], err);
			return -1;
		}
	}
	return 0;
}

static void print_tables(const struct tally *healthy, const struct tally *faulty, long seeds)
{
	printf("### False alarms on healthy traces (%ld seeds per trace)\n\n", seeds);
	printf("| detector | replays | false alarms | rate | hours replayed |\n|---|---|---|---|---|\n");
	for (size_t m = 0; m < NMETHODS; m++) {
		const struct tally *t = &healthy[m];

		printf("| %s | %ld | %ld | %.4f | %.1f |\n", methods[m].name, t->runs, t->false_alarms,
		       t->runs ? (double)t->false_alarms / t->runs : 0.0, t->hours);
	}
	printf("\n### Injected hangs (%ld seeds per trace)\n\n", seeds);
	printf("| detector | replays | AC (detected) | FP (alarm before the fault) | missed | D mean s | D sd s |\n"
	       "|---|---|---|---|---|---|---|\n");
	for (size_t m = 0; m < NMETHODS; m++) {
		const struct tally *t = &faulty[m];
		double n = t->detected ? (double)t->detected : 1.0, mean = t->delay_sum / n;
		double var = t->detected > 1 ? (t->delay_sq - n * mean * mean) / (n - 1) : 0.0;

		printf("| %s | %ld | %.3f | %.3f | %ld | %.1f | %.1f |\n", methods[m].name, t->runs,
		       t->runs ? (double)t->detected / t->runs : 0.0,
		       t->runs ? (double)t->false_alarms / t->runs : 0.0, t->missed, mean,
		       sqrt(var > 0 ? var : 0));
	}
}

int main(int argc, char **argv)
{
	long seeds = 1000;
	double alpha = DETECTOR_DEFAULT_ALPHA;
	int first = 1;

	while (first + 1 < argc && argv[first][0] == '-') {
		if (!strcmp(argv[first], "--seeds"))
			seeds = atol(argv[first + 1]);
		else if (!strcmp(argv[first], "--alpha"))
			alpha = atof(argv[first + 1]);
		else
			break;
		first += 2;
	}
	if (first >= argc || seeds < 1 || !(alpha > 0 && alpha < 1)) {
		fprintf(stderr, "usage: trace_eval [--seeds N] [--alpha A] TRACE[@FAULT_MS]...\n");
		return 2;
	}

	int n = argc - first;
	struct input *in = calloc((size_t)n, sizeof(*in));
	struct tally healthy[NMETHODS], faulty[NMETHODS];

	memset(healthy, 0, sizeof(healthy));
	memset(faulty, 0, sizeof(faulty));
	if (!in || load_inputs(n, argv + first, in) < 0)
		return 1;
	for (int i = 0; i < n; i++)
		for (size_t m = 0; m < NMETHODS; m++)
			for (long s = 1; s <= seeds; s++) {
				double v = methods[m].k ? fixed_verdict(&in[i].tr, &methods[m], (uint64_t)s)
							: parastack_verdict(&in[i].tr, alpha, (uint64_t)s);

				tally_add(in[i].fault_ms < 0 ? &healthy[m] : &faulty[m], &in[i], v);
			}
	print_tables(healthy, faulty, seeds);
	for (int i = 0; i < n; i++)
		trace_free(&in[i].tr);
	free(in);
	return 0;
}
