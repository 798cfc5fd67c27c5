/* SPDX-License-Identifier: BSD-3-Clause */
/* threshold — level selection on the discrete empirical CDF. */
#include "threshold.h"

#include <math.h>

#include "ladder.h"

/* Pick t1 or t2 for one level; fills *out, returns whether it is usable at sample size n. */
static bool threshold_for_level(const double *cdf, int c, double n, const struct ladder_level *lv,
				struct threshold_level *out)
{
	int t1 = -1, t2 = c;

	for (int x = 0; x <= c; x++) {
		if (cdf[x] < lv->p_m) {
			t1 = x;
		} else {
			t2 = x;
			break;
		}
	}
	double f2 = ladder_required_size(cdf[t2], lv->e);
	double f1 = t1 >= 0 ? ladder_required_size(cdf[t1], lv->e) : INFINITY;
	int t = f1 < f2 ? t1 : t2;

	out->e = lv->e;
	out->threshold = t;
	out->p_hat = cdf[t];
	out->q = cdf[t] + lv->e;
	out->required = f1 < f2 ? f1 : f2;
	out->usable = out->required <= n && out->q < 1.0;
	return out->usable;
}

struct threshold_level threshold_select(const double *hist, int c, double n)
{
	const struct ladder_level *levels = ladder_levels();
	struct threshold_level best = { 0 };
	double cdf[c + 1];
	double acc = 0.0;

	best.usable = false;
	if (!(n > 0.0))
		return best;
	for (int x = 0; x <= c; x++) {
		acc += hist[x];
		cdf[x] = acc / n;
	}
	cdf[c] = 1.0; /* exact, whatever the rounding of the sum */
	for (int i = LADDER_LEVELS - 1; i >= 0; i--) {
		struct threshold_level lv;

		if (threshold_for_level(cdf, c, n, &levels[i], &lv))
			return lv;
	}
	return best;
}
