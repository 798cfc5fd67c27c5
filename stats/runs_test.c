/* SPDX-License-Identifier: BSD-3-Clause */
/* runs_test — exact small-sample distribution of the number of runs (Swed & Eisenhart 1943)
 * for N0, N1 <= 20, the normal approximation above, and the coding of a sample window. */
#include "runs_test.h"

#include <math.h>

/* ln C(n, k); -INFINITY when the coefficient is zero. */
static double log_choose(int n, int k)
{
	if (k < 0 || n < 0 || k > n)
		return -INFINITY;
	return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
}

static double choose_ratio(int a, int b, int c, int d, int n, int k)
{
	/* C(a, b) * C(c, d) / C(n, k), computed in logs to stay exact enough for n <= 40. */
	double l = log_choose(a, b) + log_choose(c, d);

	if (l == -INFINITY)
		return 0.0;
	return exp(l - log_choose(n, k));
}

double runs_probability(int n1, int n0, int r)
{
	int n = n1 + n0;

	if (n1 < 0 || n0 < 0 || r < 1 || n == 0)
		return 0.0;
	if (n1 == 0 || n0 == 0)
		return r == 1 ? 1.0 : 0.0;
	if (r % 2 == 0) {
		int k = r / 2;

		return 2.0 * choose_ratio(n1 - 1, k - 1, n0 - 1, k - 1, n, n1);
	}
	int k = (r - 1) / 2;

	return choose_ratio(n1 - 1, k, n0 - 1, k - 1, n, n1) +
	       choose_ratio(n1 - 1, k - 1, n0 - 1, k, n, n1);
}

void runs_critical(int n1, int n0, int *lo, int *hi)
{
	int n = n1 + n0;
	double tail = RUNS_TEST_LEVEL / 2.0;
	/* A hair of slack so that exact ties with the tail probability count as extreme. */
	double eps = 1e-12;
	double cum = 0.0;

	*lo = 0;
	for (int r = 2; r <= n; r++) {
		cum += runs_probability(n1, n0, r);
		if (cum > tail + eps)
			break;
		*lo = r;
	}
	cum = 0.0;
	*hi = n + 1;
	for (int r = n; r >= 2; r--) {
		cum += runs_probability(n1, n0, r);
		if (cum > tail + eps)
			break;
		*hi = r;
	}
}

static bool runs_normal_is_random(int n1, int n0, int runs)
{
	double n = n1 + n0;
	double prod = 2.0 * n1 * n0;
	double mean = prod / n + 1.0;
	double var = prod * (prod - n) / (n * n * (n - 1.0));
	double z = (runs - mean) / sqrt(var);

	return fabs(z) <= 1.959964;
}

bool runs_is_random(int n1, int n0, int runs)
{
	if (n1 <= 1 || n0 <= 1)
		return false;
	if (n1 > RUNS_TEST_EXACT_MAX || n0 > RUNS_TEST_EXACT_MAX)
		return runs_normal_is_random(n1, n0, runs);

	int lo, hi;

	runs_critical(n1, n0, &lo, &hi);
	return runs > lo && runs < hi;
}

struct runs_result runs_test_against(const double *samples, int n, double boundary)
{
	struct runs_result res = { 0 };
	int prev = -1;

	res.boundary = boundary;
	for (int i = 0; i < n; i++) {
		int plus = samples[i] >= res.boundary;

		if (plus)
			res.n1++;
		else
			res.n0++;
		if (plus != prev)
			res.runs++;
		prev = plus;
	}
	res.random = runs_is_random(res.n1, res.n0, res.runs);
	return res;
}

struct runs_result runs_test(const double *samples, int n)
{
	double sum = 0.0;

	for (int i = 0; i < n; i++)
		sum += samples[i];
	return runs_test_against(samples, n, sum / n);
}
