/* SPDX-License-Identifier: BSD-3-Clause */
/* detector — ParaStack's hang-detection model (design.md §3): the histogram of samples S, the
 * tolerance ladder, the geometric suspicion test at confidence 1 - alpha, and the interval
 * control that keeps checking the sampling's randomness for the whole run.
 *
 * Feed it one sample at a time (S = number of OUT_MPI ranks among the C sampled) with
 * detector_add(); ask detector_next_step_ms() how long to wait before the next sample. */
#ifndef PARASTACK_DETECTOR_H
#define PARASTACK_DETECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"
#include "runs_test.h"

#define DETECTOR_DEFAULT_ALPHA 0.001
#define DETECTOR_DEFAULT_INTERVAL_MS 400.0
#define DETECTOR_DEFAULT_MAX_INTERVAL_MS 30000.0
#define DETECTOR_DEFAULT_SET_SIZE 10
#define DETECTOR_DEFAULT_SEED 1
#define DETECTOR_MAX_SET_SIZE 4096   /* C: what an option or a trace may ask for */
#define DETECTOR_MIN_INTERVAL_MS 10.0 /* I: sampling more often would keep ranks stopped */
#define DETECTOR_MIN_SAMPLES 11     /* no verdict on a model smaller than this */
#define DETECTOR_WINDOW 16          /* samples per runs-test window */
#define DETECTOR_HISTORY 8          /* windows remembered at the current interval */
#define DETECTOR_MIN_WINDOWS 4      /* windows at the current interval before any verdict */
#define DETECTOR_MIN_WINDOWS_AFTER_DOUBLING 2 /* the same once I has doubled (rule c) */
#define DETECTOR_RECENT_PASSED 2    /* or: this many latest windows passed (rule b) */
#define DETECTOR_PENDING_MAX 64     /* windows held back during one suspicion run */
/* Randomness bookkeeping: under random sampling a window fails with probability about
 * RUNS_TEST_LEVEL. The interval doubles when the failures among the remembered windows are
 * that unlikely (binomial tail <= DOUBLE_P); verdicts are allowed while they are not even
 * mildly unusual (tail > GATE_P). */
#define DETECTOR_DOUBLE_P 0.002
#define DETECTOR_GATE_P 0.05
/* A hang must outlast the longest healthy suspicion run by this factor (see detector.c). */
#define DETECTOR_GUARD_FACTOR 1.5

struct detector_config {
	double alpha;           /* hang when the product of q over a suspicion run <= alpha */
	double interval_ms;     /* initial mean sampling interval I */
	double max_interval_ms; /* cap on I */
	int set_size;           /* C: largest possible S */
	int nsets;              /* rank sets the sampler alternates (1 or 2; 0 means 2) */
	uint64_t seed;          /* seeds the sampling-step generator */
	unsigned rules;         /* DETECTOR_RULE_* in force (detector_config_default: DETECTOR_RULES_DEFAULT) */
};

/* The refinements of the window rules (detector.c's header; bench/model_eval measures them):
 * (a) code each runs-test window against the model's mean, not the window's own mean;
 * (b) allow a verdict once the latest DETECTOR_RECENT_PASSED windows at this interval passed;
 * (c) after a doubling, DETECTOR_MIN_WINDOWS_AFTER_DOUBLING windows suffice. */
#define DETECTOR_RULE_MODEL_MEAN 1u
#define DETECTOR_RULE_RECENT_PASSED 2u
#define DETECTOR_RULE_FEWER_AFTER_DOUBLING 4u
#define DETECTOR_RULES_ALL 7u
/* What bench/model_eval showed to hold (bench/results/model.md): b brings the median delay of a
 * hang 20 s into a job from 10 s to 2 s at the price of some false suspicions in long-phase
 * jobs, which the confirmation window dismisses; c never hurt; a brought nothing measurable. */
#define DETECTOR_RULES_DEFAULT (DETECTOR_RULE_RECENT_PASSED | DETECTOR_RULE_FEWER_AFTER_DOUBLING)

enum detector_verdict {
	DETECTOR_BUILDING,  /* no usable tolerance level yet: no verdicts */
	DETECTOR_UNSETTLED, /* model usable, but the remembered windows reject randomness */
	DETECTOR_HEALTHY,   /* the sample was not a suspicion */
	DETECTOR_SUSPECT,   /* a suspicion, not (yet) significant */
	DETECTOR_HANG,      /* the current suspicion run is significant at alpha */
};

struct detector_info {
	enum detector_verdict verdict; /* of the latest sample */
	double interval_ms;            /* current I */
	long samples;                  /* samples seen in all */
	double model_size;             /* n: samples in the model (fractional after halving) */
	bool usable;                   /* a tolerance level is usable */
	double e, p_hat, q;            /* the level in use (valid when usable) */
	int threshold;                 /* suspicion when S <= threshold (valid when usable) */
	int run_length;                /* consecutive suspicions in the current run */
	double run_product;            /* product of q over the current run */
	bool random_ok;                /* the remembered windows do not reject randomness */
	int windows_passed, windows_failed; /* over the whole run */
	int windows_constant; /* not tested: every sample the one value the job ever showed */
	int doublings;
	double longest_healthy_ms;     /* longest suspicion run that ended by itself */
	bool from_prior;               /* the model started from a remembered run (prior.h) */
	bool settled;                  /* the window rule held once: verdicts need no more windows */
};

struct detector;

void detector_config_default(struct detector_config *cfg);
/* NULL on a bad configuration (alpha outside (0,1), non-positive interval, set size outside
 * 1..DETECTOR_MAX_SET_SIZE) or when memory runs out. */
struct detector *detector_new(const struct detector_config *cfg);
void detector_free(struct detector *d);

/* Feed one sample 0 <= s <= C taken at t_ms (non-decreasing); returns the verdict for it. */
enum detector_verdict detector_add(struct detector *d, double t_ms, int s);
/* Randomized wait before the next sample: I/2 + U[0, I] (mean I). */
double detector_next_step_ms(struct detector *d);
/* The job was found progressing after a hang verdict (transient slowdown): drop the suspicion
 * run without teaching it to the model, require the next verdict's run to outlast it by the
 * guard factor, and carry on. */
void detector_dismiss(struct detector *d);
void detector_get_info(const struct detector *d, struct detector_info *info);
/* Is a tolerance level usable (the model can give verdicts)? */
bool detector_usable(const struct detector *d);
/* How long (ms) a suspicion run beginning now would take to earn a hang verdict: its k =
 * ceil(log alpha / log q) samples at the current interval, the windows the window rule still
 * waits for (only until the model first settled: re-tuning the interval later delays a verdict
 * but does not take the job from the model), and the guard. INFINITY when no level is usable
 * or q is 0 or 1. The basis of confirm.h's model_ready: a property of the job, not of the
 * moment the hang began. */
double detector_verdict_eta_ms(const struct detector *d);
/* Is a suspicion run that reached a hang verdict still going on? (It ends when its own rank set
 * shows a non-suspicion, or the other set shows the job computing: not merely because the set
 * holding a faulty OUT_MPI rank is sampled.) */
bool detector_hang_ongoing(const struct detector *d);
const char *detector_verdict_name(enum detector_verdict v);

struct model_prior;
/* What this run teaches the next run of the same program (prior.h): its interval, S's histogram
 * and the guard. False while the model has not settled or holds fewer than PRIOR_MIN_SAMPLES
 * samples. Take it only from a run that ended healthy: a hang must teach nothing. It clears the
 * stall model's part: stall_prior_take comes after. */
bool detector_prior_take(const struct detector *d, struct model_prior *p);
/* Start the model from a prior, within its first DETECTOR_MIN_SAMPLES samples (before any
 * level is usable; a monitor knows which program a rank is only once it has seen it there): S's
 * histogram weighing PRIOR_WEIGHT samples beside the job's few, the settled interval, the
 * window rule met (the earlier run's windows passed at that interval) and the guard set by the
 * longest healthy suspicion run the program has shown. False, the detector untouched, when the
 * prior does not fit (another set size, invalid), one was given already, or it comes too late. */
bool detector_prior_give(struct detector *d, const struct model_prior *p);

#endif
