/* SPDX-License-Identifier: BSD-3-Clause */
/* stall — the quiet-run model of stall.h. */
#include "stall.h"

#include <math.h>

#include "prior.h"

void stall_init(struct stall *s, double alpha)
{
	*s = (struct stall){ .alpha = alpha, .last_move_ms = -1, .last = STALL_BUILDING };
}

double stall_upper_bound(double x, double n, double z)
{
	if (!(n > 0))
		return 1.0;

	double p = x / n, z2 = z * z;
	double centre = p + z2 / (2 * n);
	double spread = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n));
	double q = (centre + spread) / (1 + z2 / n);

	return q > 1.0 ? 1.0 : q;
}

/* The bound the verdict uses: while the history is a bootstrap (the job's own first seconds,
 * fewer than STALL_MIN_SAMPLES), the stricter STALL_BOOT_Z, so that the few samples a job
 * shows before an early fault stand for more than a short healthy history would. */
bool stall_on_bootstrap(const struct stall *s)
{
	return s->n < STALL_MIN_SAMPLES;
}

static double stall_bound(const struct stall *s)
{
	return stall_upper_bound(s->quiet, s->n, stall_on_bootstrap(s) ? STALL_BOOT_Z : STALL_Z);
}

bool stall_usable(const struct stall *s)
{
	return s->n >= STALL_BOOT_SAMPLES && stall_bound(s) < 1.0;
}

/* Quiet samples in a row that reach alpha at q (0: never). */
static int stall_k(double q, double alpha)
{
	if (!(q > 0) || q >= 1.0)
		return 0;

	double k = ceil(log(alpha) / log(q));

	return k < 1 ? 1 : k > 1e6 ? 1000000 : (int)k;
}

static bool stall_significant(const struct stall *s)
{
	if (!stall_usable(s) || s->last_move_ms < 0)
		return false;

	int k = stall_k(stall_bound(s), s->alpha);

	return k > 0 && s->run >= k && s->quiet_ms > STALL_GUARD_FACTOR * s->longest_healthy_ms;
}

double stall_verdict_eta_ms(const struct stall *s, double interval_ms)
{
	int k = stall_k(stall_bound(s), s->alpha);

	if (!stall_usable(s) || k == 0 || !(interval_ms > 0))
		return INFINITY;
	/* The guard: the stretch must outlast the longest healthy one by the factor. */
	double g = floor(STALL_GUARD_FACTOR * s->longest_healthy_ms / interval_ms) + 1.0;

	return fmax((double)k, g) * interval_ms;
}

/* A move ends the quiet run: a healthy one is taught (its samples and its length); one that
 * was called a hang only raises the guard. */
static void stall_end_run(struct stall *s)
{
	if (s->run > 0 && !s->hung) {
		s->n += s->run;
		s->quiet += s->run;
	}
	if (s->run > 0 && s->quiet_ms > s->longest_healthy_ms)
		s->longest_healthy_ms = s->quiet_ms;
	s->run = 0;
	s->hung = false;
	s->quiet_ms = 0;
}

enum stall_verdict stall_add(struct stall *s, double t_ms, int moved, int still)
{
	s->samples++;
	if (moved > 0) {
		stall_end_run(s);
		s->n += 1;
		s->last_move_ms = t_ms;
		return s->last = stall_usable(s) ? STALL_MOVING : STALL_BUILDING;
	}
	if (still <= 0) /* no evidence either way */
		return s->last = s->run > 0 ? s->last : stall_usable(s) ? STALL_MOVING : STALL_BUILDING;
	s->run++;
	s->quiet_ms = s->last_move_ms < 0 ? 0 : t_ms - s->last_move_ms;
	if (s->hung || stall_significant(s)) {
		s->hung = true;
		return s->last = STALL_HANG;
	}
	return s->last = stall_usable(s) ? STALL_QUIET : STALL_BUILDING;
}

void stall_dismiss(struct stall *s)
{
	if (s->quiet_ms > s->longest_healthy_ms)
		s->longest_healthy_ms = s->quiet_ms;
	/* Not taught: the stretch may be the start of a real hang whose last ranks were still
	 * finishing (as detector_dismiss). The next samples start a new run. */
	s->run = 0;
	s->hung = false;
	s->quiet_ms = 0;
}

bool stall_hang_ongoing(const struct stall *s)
{
	return s->hung;
}

void stall_get_info(const struct stall *s, struct stall_info *info)
{
	*info = (struct stall_info){ .verdict = s->last, .usable = stall_usable(s), .n = s->n,
				     .run = s->run, .quiet_ms = s->quiet_ms,
				     .longest_healthy_ms = s->longest_healthy_ms };
	info->p_hat = s->n > 0 ? s->quiet / s->n : 0;
	info->q = stall_bound(s);
	info->k = stall_k(info->q, s->alpha);
}

const char *stall_verdict_name(enum stall_verdict v)
{
	switch (v) {
	case STALL_BUILDING: return "building";
	case STALL_MOVING: return "moving";
	case STALL_QUIET: return "quiet";
	case STALL_HANG: return "hang";
	}
	return "unknown";
}

void stall_prior_take(const struct stall *s, struct model_prior *p)
{
	p->stall_samples = s->n;
	p->stall_quiet_share = s->n > 0 ? s->quiet / s->n : 0;
	p->stall_longest_ms = s->longest_healthy_ms;
}

bool stall_prior_give(struct stall *s, const struct model_prior *p)
{
	if (s->n >= STALL_MIN_SAMPLES || !prior_valid(p))
		return false;

	/* No more than the verdict's minimum: the job's own samples must soon outweigh it. */
	double n = fmin(p->stall_samples, STALL_MIN_SAMPLES);

	s->n += n;
	s->quiet += n * p->stall_quiet_share;
	s->longest_healthy_ms = fmax(s->longest_healthy_ms, p->stall_longest_ms);
	return true;
}
