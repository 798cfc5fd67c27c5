/* SPDX-License-Identifier: BSD-3-Clause */
/* replay — run the detector over a recorded or synthetic S(t) exactly as the live sampler
 * would: the next sample is the first point at or after the previous sample's time plus the
 * detector's randomized step, so interval doubling behaves as it does live. */
#ifndef PARASTACK_REPLAY_H
#define PARASTACK_REPLAY_H

#include <stdbool.h>

#include "decide.h"
#include "detector.h"
#include "trace.h"

struct replay_source {
	/* The first sample at or after t_ms: fills *t_out and *s_out and returns 0; returns 1 when
	 * the source has none (its end). */
	int (*sample_at)(void *ctx, double t_ms, double *t_out, int *s_out);
	void *ctx;
	int set_size;    /* C */
	double start_ms; /* time of the first sample */
};

struct replay_result {
	bool hang;
	double detected_at_ms; /* time of the deciding sample, valid when hang */
	double last_ms;        /* time of the last sample taken */
	struct detector_info info;
};

/* Returns 0, or -1 when the configuration is invalid or memory runs out. cfg->set_size is
 * taken from the source. */
int replay_run(const struct replay_source *src, const struct detector_config *cfg,
	       struct replay_result *res);

/* Reading position in a parsed trace; must outlive the source made from it. */
struct replay_trace {
	const struct trace *tr;
	size_t next;
};

/* A source over a parsed trace. */
void replay_trace_source(struct replay_source *src, struct replay_trace *rt, const struct trace *tr);

/* The whole pipeline's decision (decide.h: both models, the basis rule, the confirmation) over
 * a trace whose samples carry progress letters, sample by sample as the live monitor took
 * them (the letters compare each rank with its previous live sample, so none is skipped). */
struct replay_decision {
	bool suspected, hang;
	double suspected_ms;        /* the latest confirmation window's opening sample */
	enum confirm_basis basis;   /* who suspected it */
	double window_start_ms;     /* where its window counts from (the quiet stretch, by evidence) */
	double hang_ms;             /* the sample that confirmed it, when hang */
	int suspicions, dismissed;
	long samples;
	double last_ms;
	struct detector_info info;
	struct stall_info stall;
};

/* Does the trace carry progress letters (on every sample)? */
bool replay_has_progress(const struct trace *tr);
/* Returns 0, or -1 when the configuration is invalid or memory runs out. cfg->set_size and
 * nsets come from the trace; confirm_s is the window (--confirm). */
int replay_decide(const struct trace *tr, const struct detector_config *cfg, double confirm_s,
		  struct replay_decision *res);

#endif
