/* SPDX-License-Identifier: BSD-3-Clause */
/* decide — one sample through the hang pipeline's decision (design.md §4), pure: both models
 * (the model of S, detector.h; the stall model, stall.h), the rule of which of them may speak,
 * and the confirmation window (confirm.h), with the models' dismissal when the job moves. The
 * live monitor (monitor/daemon/pipeline.c) and `parastack replay` run this same step, so a recorded
 * trace with its progress letters replays the live decision. What is done about an event
 * (the lines, the snapshots, the report) is the caller's. */
#ifndef PARASTACK_DECIDE_H
#define PARASTACK_DECIDE_H

#include <stdbool.h>

#include "confirm.h"
#include "detector.h"
#include "stall.h"

/* What one sample round found among the C sampled ranks (progress.h's sample_counts). */
struct decide_input {
	double t_ms; /* since the watch began */
	int out;     /* S: OUT_MPI */
	int live, moved, still, kernel, init, idle, busy;
};

/* What the step decided, beside the event. */
struct decide_out {
	enum detector_verdict verdict;
	enum stall_verdict stall_verdict;
	bool model_ready;   /* a model could judge a hang beginning now */
	bool s_timely;      /* ...the model of S (else the stall model speaks) */
	bool stall_sooner;  /* the stall model's prediction is at most 1/DECIDE_STALL_SOONER of S's */
	double longest_ms;  /* the longer of both models' healthy stretches */
};

/* The stall model speaks beside a timely model of S when it predicts a verdict in at most
 * 1/DECIDE_STALL_SOONER of S's time (decide.c). */
#define DECIDE_STALL_SOONER 2.0

struct decide {
	struct detector *det;
	struct stall *stall;
	struct confirm *conf;
	bool s_timely; /* the model of S was timely at the latest sample (decide_s_timely) */
};

/* Can the model of S reach a verdict within a confirmation window of a hang's start
 * (detector_verdict_eta_ms)? Where S is 0 in most healthy samples its q is near 1: it cannot.
 * Once it could, it stays so until its prediction passes two windows: a q that wavers around
 * the bound does not hand the same job to the model and the evidence by turns. (A window, not
 * half of one: the README's demo, q up to 0.7 at its fault 25 s in, k = 20 suspicions, 8 s,
 * was handed to the evidence by a half window of 7.5 s in about one run in twenty.) */
bool decide_s_timely(struct decide *d, double longest_ms);

/* The job moved after a verdict: neither model's run is a hang to learn, and the next must
 * outlast it. */
void decide_dismiss(const struct decide *d);

/* Feed one sample to both models and the confirmation; returns its event. A MOVED or RESOLVED
 * event has dismissed both models' runs already. */
enum confirm_event decide_step(struct decide *d, const struct decide_input *in,
			       struct decide_out *out);

#endif
