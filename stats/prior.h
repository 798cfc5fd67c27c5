/* SPDX-License-Identifier: BSD-3-Clause */
/* prior — what a healthy run of a program teaches its next run (issue 68 part 2: "a model that
 * remembers it"). A job's first half minute is where the models have little history: the model
 * of S waits for DETECTOR_MIN_WINDOWS runs-test windows (about 26 s at 400 ms), and the stall
 * model judges from a bootstrap at a stricter bound until STALL_MIN_SAMPLES samples (stall.h).
 * The job's own first seconds cannot stand in for a history: a job whose phases last 20 s shows
 * its first long all-in-MPI phase as a hang to any model that has not seen one (bench/model_eval
 * --interval measures it: sampling four times as fast from the start brings the 8-s hang from
 * 19 s to 2 s and multiplies the false suspicions by 90; the bootstrap's cost is in model.md).
 *
 * A prior is the part of a settled model that describes the program rather than the moment:
 * the interval its sampling settled at, the shape of S's histogram, the longest suspicion run
 * and the longest quiet stretch that ended by themselves, the stall model's quiet share. Taken
 * at the end of a healthy run, given to the next run's models before their first sample, it
 * weighs PRIOR_WEIGHT samples: the new job can be judged from its first samples, its guard set
 * by the longest healthy phase the program has shown, and its own samples outweigh the prior
 * within seconds. Whether the next run is "the same program" is the keeper's business
 * (monitor/daemon/memory.c: build-id, rank count, launch line); this module never reads a file.
 * Pure: no clock, no randomness, no ptrace, no I/O. */
#ifndef PARASTACK_PRIOR_H
#define PARASTACK_PRIOR_H

#include <stdbool.h>
#include <stddef.h>

#define PRIOR_VERSION 1
#define PRIOR_WEIGHT 32.0       /* samples the prior counts for: two runs-test windows */
#define PRIOR_MAX_SET_SIZE 256  /* larger rank sets keep no prior */
#define PRIOR_TEXT_MAX 8192     /* prior_format's longest text */
#define PRIOR_MIN_SAMPLES 64.0  /* a model smaller than four runs-test windows teaches nothing */

struct model_prior {
	int set_size;                 /* C: the histogram's bins are 0..C */
	double interval_ms;           /* the sampling interval the run settled at */
	double share[PRIOR_MAX_SET_SIZE + 1]; /* S's histogram as fractions (sum 1) */
	double longest_healthy_ms;    /* the model of S's longest suspicion run that ended by itself */
	double stall_samples;         /* the stall model's samples with evidence (what its share stands on) */
	double stall_quiet_share;     /* the stall model's quiet samples among those with evidence */
	double stall_longest_ms;      /* its longest quiet stretch that ended in a move */
	double samples;               /* the size of the run's model of S (what the prior stands on) */
};

/* The text form (one "key value" line each; share as C + 1 numbers), at most PRIOR_TEXT_MAX
 * bytes; returns its length, or -1 when buf is too small. */
int prior_format(const struct model_prior *p, char *buf, size_t len);
/* Parse what prior_format wrote; false with a one-line reason in err on anything else (an
 * unknown version, a missing or repeated key, a value out of range, a histogram that is not one). */
bool prior_parse(const char *text, size_t len, struct model_prior *p, char *err, size_t errlen);
/* Is it a prior a model may take: sizes in range, shares a distribution, times finite? */
bool prior_valid(const struct model_prior *p);

#endif
