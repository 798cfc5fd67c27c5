/* SPDX-License-Identifier: BSD-3-Clause */
/* straggler — the rank that holds the job back, from the samples the watch takes anyway
 * (issue 69; design.md §4, "Stragglers"). In a bulk-synchronous job the slow rank is the one that waits
 * least: its set-mates, sampled in the same round, are found waiting in their communication
 * runtime (IN_MPI, torch's collectives) for it. Per sample of rank r its *gap* is its
 * set-mates' mean wait minus its own: about 0 in a balanced job, the others' extra wait for a
 * rank that holds them back. A sample's wait is 1 or 0 (found waiting or not), or, where the
 * recording layer keeps the rank's time in MPI (record_format.h), the share of the time since
 * its previous sample it spent there: the same mean, measured rather than drawn, so a small
 * slowdown is seen in a fraction of the samples.
 *
 * Rank r's recent gaps, over a window of its last W samples (W is STRAGGLER_WINDOW_SHORT, so a
 * large slowdown is named soon, and STRAGGLER_WINDOW, for a small one), are tested against:
 *   level  STRAGGLER_GAP: it holds the others back by that much at least;
 *   change its own history, the samples before the window (STRAGGLER_BEFORE_MIN at least):
 *          its gap rose, by STRAGGLER_RISE_MIN at least. Its first STRAGGLER_BEFORE_MIN samples are history whatever they
 *          show; later ones taken during a rise that went STRAGGLER_HOLD far (a CUSUM of the
 *          gap's excess over STRAGGLER_RISE_K) are held out of it until the rise ends, so a
 *          slowdown never becomes the history it is judged against. A rank heavier by design
 *          (rank 0's I/O, a coarse-grid rank) has held the others back from its first sample:
 *          its history shows the same gap. A rank first
 *          sampled after the job's first STRAGGLER_BASE_ROUNDS rounds (the other set was
 *          sampled then) may carry the slowdown in its history already: for it the change may
 *          also be the other ranks' own wait, now against those first rounds;
 *   alone  no other judged rank's gap reaches half of r's.
 * Both tests one-sided at 1 - alpha / (ranks x windows): alpha is the suspicion test's, shared
 * by every rank and window tested (Bonferroni); each is a two-sample z of means with the
 * samples' own variances (the window's, where the history's is larger, replaced by it). A rank that passes is a straggler since its gap's rise began (a
 * CUSUM of the gap's excess over STRAGGLER_RISE_K: the last sample at which it stood at
 * zero), until its gap falls to zero. Pure: no clock, no MPI, no ptrace; twice STRAGGLER_WINDOW
 * bytes and a few sums per rank. */
#ifndef PARASTACK_STRAGGLER_H
#define PARASTACK_STRAGGLER_H

#include <stdbool.h>

#define STRAGGLER_WINDOW 96        /* samples of one rank: the long window */
#define STRAGGLER_WINDOW_SHORT 32  /* and the short one */
#define STRAGGLER_WINDOWS 2
#define STRAGGLER_GAP 0.05         /* the least extra wait called holding the job back */
#define STRAGGLER_RISE_MIN 0.03    /* the least rise of the gap tested for: the layer's clock
				    * measures a wait within a percent or two, and a job's phases
				    * move it by more than that */
#define STRAGGLER_RISE_K 0.1       /* the CUSUM's reference: a rise is a gap above this */
#define STRAGGLER_HOLD 2.0         /* a rise this far: its samples are held from the history */
#define STRAGGLER_BASE_ROUNDS 16   /* the job's first rounds: its wait before anything changed */
#define STRAGGLER_BEFORE_MIN 16    /* samples of a rank's history before its window */

struct sums {
	long long n, sum, sum2;        /* gaps in hundredths: exact */
};

struct straggler_rank {
	double n;                      /* samples with set-mates */
	double own, mates;             /* exponential means of its own wait and its set-mates' */
	int head, in;                  /* its ring (straggler.ring): the next slot, samples in it */
	struct sums hist, held;        /* gaps that left the ring: its history, and those held back */
	double base_n, base_wait;      /* samples and waits in the job's first rounds */
	double cusum, rise_t;          /* CUSUM of gap - STRAGGLER_RISE_K; when it last stood at zero */
	int rise_n;                    /* samples since */
	bool flagged;
	double since, until, confidence; /* flagged: since; until: when it stopped (0: it has not) */
	double flagged_at, flag_mates, flag_own; /* when it was flagged, the wait shares then */
};

struct straggler {
	int nranks;
	double z;                      /* one-sided quantile at 1 - alpha / (ranks x windows) */
	long rounds, base_rounds;      /* rounds seen; of them in the first (base) stretch */
	double base_n, base_wait;      /* the first rounds' samples and waits, every rank */
	double own_sum;                /* sum over ranks with samples of their own-wait mean */
	int with_samples;              /* ranks with at least one sample */
	int nflagged;
	struct straggler_rank *r;
	signed char *ring;             /* STRAGGLER_WINDOW gaps in hundredths per rank */
	unsigned char *hold;           /* and whether each was taken during a far rise */
};

/* What the report and the lines say of one rank. */
struct straggler_info {
	bool flagged, ever;
	double since, until, confidence, flagged_at;
	double mates, own;             /* wait shares: its set-mates', its own (now) */
	double flag_mates, flag_own;   /* as they were when it was flagged */
	double gap, n;
};

int straggler_init(struct straggler *s, int nranks, double alpha);
void straggler_free(struct straggler *s);
/* One sample round at time t (seconds): n sampled ranks (indexes 0..nranks-1) and each one's
 * wait in percent: 100 found waiting, 0 computing, between: the share of the time since its
 * previous sample it spent waiting (the recording layer's clock), -1 unknown (not sampled, in
 * start-up, in the kernel). Rounds before the job's ranks have all started (start_up) count for nothing.
 * Returns the index of a rank flagged in this round, or -1 (one per round at most). */
int straggler_round(struct straggler *s, const int *idx, const signed char *wait, int n, double t, bool start_up);
/* Rank i's estimate; false when i is out of range. */
bool straggler_info(const struct straggler *s, int i, struct straggler_info *out);
/* The two tests' z for rank i and window w (0 short, 1 long) now; -inf where not yet judged. */
void straggler_tests(const struct straggler *s, int i, int w, double *level, double *change);
/* The one-sided standard normal quantile at p (0 < p < 1). */
double straggler_quantile(double p);

#endif
