/* SPDX-License-Identifier: BSD-3-Clause */
/* threshold — choosing what counts as a suspicion from the empirical CDF of S (paper §3.2):
 * for each tolerance level the candidate thresholds t1 (largest with F_n < p_m) and t2
 * (smallest with F_n >= p_m), the one needing the smaller sample size, usable when that size
 * is at most n and q = F_n(t) + e < 1; the finest usable level wins. */
#ifndef PARASTACK_THRESHOLD_H
#define PARASTACK_THRESHOLD_H

#include <stdbool.h>

struct threshold_level {
	bool usable;  /* false: "model building", no verdicts */
	double e;     /* tolerance error of the level in use */
	double p_hat; /* F_n(threshold) */
	double q;     /* p_hat + e: the suspicion probability the significance test assumes */
	int threshold; /* a sample S is a suspicion when S <= threshold */
	double required; /* f(p_hat): the sample size this level needs */
};

/* hist[0..c] holds (possibly fractional) counts of S; n is their sum. */
struct threshold_level threshold_select(const double *hist, int c, double n);

#endif
