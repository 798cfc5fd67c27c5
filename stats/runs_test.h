/* SPDX-License-Identifier: BSD-3-Clause */
/* runs_test — the Wald–Wolfowitz runs test for randomness of a sample sequence, as ParaStack
 * uses it to decide whether the sampling interval is long enough (design.md §3). */
#ifndef PARASTACK_RUNS_TEST_H
#define PARASTACK_RUNS_TEST_H

#include <stdbool.h>

/* Two-sided significance level of the test. */
#define RUNS_TEST_LEVEL 0.05
/* Largest N0 and N1 for which the exact distribution is used; above, the normal approximation. */
#define RUNS_TEST_EXACT_MAX 20

struct runs_result {
	double boundary; /* mean of the samples: '+' if S >= boundary, '-' otherwise */
	int n1;          /* number of '+' */
	int n0;          /* number of '-' */
	int runs;        /* R, number of maximal runs of equal signs */
	bool random;     /* the randomness hypothesis is not rejected */
};

/* Probability that a random arrangement of n1 '+' and n0 '-' has exactly r runs. */
double runs_probability(int n1, int n0, int r);

/* Critical values for the exact test: R <= *lo or R >= *hi rejects randomness (the
 * non-rejection region lies strictly between them). *lo is 0 or *hi exceeds n1 + n0 when no
 * value is extreme enough on that side. Requires n1, n0 >= 1. */
void runs_critical(int n1, int n0, int *lo, int *hi);

/* Is R runs with n1 '+' and n0 '-' consistent with randomness? (min(n0, n1) <= 1 never is.) */
bool runs_is_random(int n1, int n0, int runs);

/* Code the n samples against their mean and test them. n >= 1. */
struct runs_result runs_test(const double *samples, int n);
/* The same, coded against a given boundary ('+' if S >= boundary). */
struct runs_result runs_test_against(const double *samples, int n, double boundary);

#endif
