/* SPDX-License-Identifier: BSD-3-Clause */
/* stall — the second detector (design.md §4, "Two detectors feed the suspicion"): the model of
 * how long the sampled ranks go without moving, learned from the job's own healthy history.
 *
 * The model of §3 reads S, the number of sampled ranks outside MPI; where S = 0 is the job's
 * normal state (a job that lives in MPI) a hang leaves S where it always was, and S carries no
 * evidence. This one reads what the progress fingerprints say of the same samples: a sample is
 * *quiet* when no sampled rank moved since its previous sample and at least one waits in MPI
 * exactly as before; it *moves* when any rank moved; it is no evidence when every rank was in
 * application code both times or had nothing to compare with (the S model's business).
 *
 * The test is §3's geometric one, on this stream: p = P(a healthy sample is quiet), estimated
 * from the healthy history with its one-sided Wilson upper bound q at 95 % (defined at p = 0,
 * where §3's ladder has no usable level: a job in which nothing ever stood still is exactly the
 * one whose standstill means most); a run of k consecutive quiet samples is a hang when
 * q^k <= alpha, the model holds STALL_BOOT_SAMPLES samples of history (below STALL_MIN_SAMPLES
 * a bootstrap from the job's first seconds, q at STALL_BOOT_Z; issue 68: a fault 8 s into a
 * job, before S's window rule can be met), and the quiet stretch has
 * outlasted STALL_GUARD_FACTOR times the longest one the job has shown while healthy (so the
 * next long collective phase is not called a hang once the job has shown one). Quiet samples
 * are held back from the model until their run ends in a move, and a run that was called a
 * hang is never taught: a hang must not teach the model that standing still is normal.
 * Pure: no clock, no randomness, no ptrace. */
#ifndef PARASTACK_STALL_H
#define PARASTACK_STALL_H

#include <stdbool.h>

#define STALL_MIN_SAMPLES 64      /* a full history: four of §3's runs-test windows */
#define STALL_BOOT_SAMPLES 11     /* history before any verdict (as the S model's minimum): */
#define STALL_BOOT_Z 4.2648907939 /* until STALL_MIN_SAMPLES, a bootstrap judged at one-sided
				   * 99.999 % (stall.c) */
#define STALL_GUARD_FACTOR 1.5    /* as the S model's run-length guard (detector.h) */
#define STALL_Z 1.6448536269514722 /* one-sided 95 %: the estimate's upper bound */

enum stall_verdict {
	STALL_BUILDING, /* not enough history */
	STALL_MOVING,   /* a rank moved, or the sample says nothing of progress */
	STALL_QUIET,    /* nothing moved: not (yet) significant */
	STALL_HANG,     /* the quiet run is significant at alpha */
};

struct stall {
	double alpha;
	double n, quiet;          /* healthy history: samples with evidence, of them quiet */
	int run;                  /* consecutive quiet samples now (held back) */
	double last_move_ms;      /* the latest sample that moved; < 0: none yet */
	double quiet_ms;          /* how long nothing has moved (latest quiet sample - last move) */
	double longest_healthy_ms; /* the longest quiet stretch that ended in a move */
	bool hung;                /* the current run was called a hang */
	long samples;
	enum stall_verdict last;
};

struct stall_info {
	enum stall_verdict verdict;
	bool usable;              /* enough history for a verdict */
	double n, p_hat, q;       /* history size, quiet fraction, its upper bound */
	int k;                    /* quiet samples in a row that reach alpha at q */
	int run;
	double quiet_ms, longest_healthy_ms;
};

void stall_init(struct stall *s, double alpha);
/* One sample at t_ms (non-decreasing): of the sampled ranks, `moved` were seen to move since
 * their previous sample and `still` wait in MPI exactly as then. */
enum stall_verdict stall_add(struct stall *s, double t_ms, int moved, int still);
/* The confirmation found the job moving after this model's verdict: the run is not taught, and
 * the next verdict must outlast it by the guard factor. */
void stall_dismiss(struct stall *s);
/* A run that was called a hang goes on (nothing has moved since). */
bool stall_hang_ongoing(const struct stall *s);
bool stall_usable(const struct stall *s);
/* Is its history still a bootstrap (fewer than STALL_MIN_SAMPLES samples: the stricter bound)? */
bool stall_on_bootstrap(const struct stall *s);
/* How long (ms) a quiet stretch beginning now would take to earn a hang verdict, sampled every
 * interval_ms: its k quiet samples, or the guard. INFINITY while the model has no usable
 * history. As detector_verdict_eta_ms, a property of the job, not of the moment. */
double stall_verdict_eta_ms(const struct stall *s, double interval_ms);
void stall_get_info(const struct stall *s, struct stall_info *info);
/* The Wilson upper bound of a proportion x of n at z (1 when n = 0). */
double stall_upper_bound(double x, double n, double z);
const char *stall_verdict_name(enum stall_verdict v);

struct model_prior;
/* The stall model's part of a prior (prior.h): its history's quiet share and size, its guard. */
void stall_prior_take(const struct stall *s, struct model_prior *p);
/* Start from a prior while the history is a bootstrap (below STALL_MIN_SAMPLES): at most
 * STALL_MIN_SAMPLES samples of history at the remembered quiet share beside the job's own, and
 * the longer of the two guards. False, untouched, once the history is full. */
bool stall_prior_give(struct stall *s, const struct model_prior *p);

#endif
