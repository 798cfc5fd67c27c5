/* SPDX-License-Identifier: BSD-3-Clause */
/* ladder — p_m is where 5/p (falling) meets 3.8416 p(1-p)/e² (rising on (0, 0.5]), found by
 * bisection; that crossing is the minimum of f on (0, 0.5]. */
#include "ladder.h"

#include <math.h>

#define Z95_SQUARED 3.8416 /* 1.96² */

static const double ladder_errors[LADDER_LEVELS] = { 0.3, 0.2, 0.1, 0.05 };

double ladder_required_size(double p, double e)
{
	if (!(p > 0.0) || !(p < 1.0))
		return INFINITY;

	double f = 5.0 / p;

	if (5.0 / (1.0 - p) > f)
		f = 5.0 / (1.0 - p);
	double precision = Z95_SQUARED * p * (1.0 - p) / (e * e);

	return precision > f ? precision : f;
}

static double ladder_argmin(double e)
{
	double lo = 1e-9, hi = 0.5;

	/* g(p) = 3.8416 p(1-p)/e² - 5/p is increasing on (0, 0.5]. */
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2.0;
		double g = Z95_SQUARED * mid * (1.0 - mid) / (e * e) - 5.0 / mid;

		if (g < 0.0)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2.0;
}

const struct ladder_level *ladder_levels(void)
{
	static struct ladder_level levels[LADDER_LEVELS];
	static int ready;

	if (!ready) {
		for (int i = 0; i < LADDER_LEVELS; i++) {
			double e = ladder_errors[i];
			double p = ladder_argmin(e);

			levels[i].e = e;
			levels[i].p_m = p;
			levels[i].n_m = (int)ceil(ladder_required_size(p, e) - 1e-9);
		}
		ready = 1;
	}
	return levels;
}
