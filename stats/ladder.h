/* SPDX-License-Identifier: BSD-3-Clause */
/* ladder — the tolerance ladder of ParaStack's robust model (design.md §3, paper §3.2): for each
 * tolerance error e, the suspicion probability p_m that needs the fewest samples n_m to be
 * estimated within ±e at 95 % confidence, derived from f(p), never typed in. */
#ifndef PARASTACK_LADDER_H
#define PARASTACK_LADDER_H

#define LADDER_LEVELS 4

struct ladder_level {
	double e;   /* tolerance error */
	double p_m; /* argmin of f over (0, 0.5] */
	int n_m;    /* ceil(f(p_m)): least sample size at which this level can be usable */
};

/* Required sample size to trust an estimate p within ±e: max(5/p, 5/(1-p), 3.8416 p(1-p)/e²);
 * infinite at p <= 0 or p >= 1. */
double ladder_required_size(double p, double e);

/* The levels, coarsest first: e = 0.3, 0.2, 0.1, 0.05. Computed once, then cached. */
const struct ladder_level *ladder_levels(void);

#endif
