/* SPDX-License-Identifier: BSD-3-Clause */
/* ranksets — the two disjoint random sets of C ranks that the sampler alternates between
 * (design.md §3): with one faulty rank OUT_MPI in the watched set, S would never drop to the
 * suspicion threshold, but the faulty rank cannot be in both sets. */
#ifndef PARASTACK_RANKSETS_H
#define PARASTACK_RANKSETS_H

#include "rng.h"

#define RANKSETS_SWITCH_EVERY 30 /* samples taken from one set before switching */

struct ranksets {
	int nsets;  /* 2, or 1 when the job has a single rank */
	int size;   /* ranks per set */
	int *set[2];
};

/* Draw sets for a job of nranks ranks (>= 1) with requested set size c (>= 1): two disjoint
 * sets of c when nranks >= 2c, else two of floor(nranks/2), one set of 1 when nranks == 1.
 * Returns 0, or -1 when memory runs out or the arguments are invalid. */
int ranksets_draw(struct ranksets *rs, struct rng *r, int nranks, int c);
void ranksets_free(struct ranksets *rs);
/* Index of the set to sample for the sample_no-th sample (counting from 0). */
int ranksets_active(const struct ranksets *rs, long sample_no);

#endif
