/* SPDX-License-Identifier: BSD-3-Clause */
/* straggler — the slow rank named from its set-mates' wait (straggler.h says the tests). */
#include "straggler.h"

#include <math.h>
#include <stdlib.h>

static const int windows[STRAGGLER_WINDOWS] = { STRAGGLER_WINDOW_SHORT, STRAGGLER_WINDOW };

static double normal_upper(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

double straggler_quantile(double p)
{
	double lo = -10, hi = 10;

	/* Bisection on the upper tail: 60 halvings bring 20 to below 1e-16. */
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		if (normal_upper(mid) > 1 - p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int straggler_init(struct straggler *s, int nranks, double alpha)
{
	size_t n = (size_t)(nranks > 0 ? nranks : 1);

	*s = (struct straggler){ .nranks = nranks };
	if (!(alpha > 0 && alpha < 0.5))
		alpha = 0.001;
	/* Each rank is tested with each window: alpha shared among them (Bonferroni). */
	s->z = straggler_quantile(1 - alpha / ((double)n * STRAGGLER_WINDOWS));
	s->r = calloc(n, sizeof(*s->r));
	s->ring = calloc(n, STRAGGLER_WINDOW);
	s->hold = calloc(n, STRAGGLER_WINDOW);
	if (!s->r || !s->ring || !s->hold) {
		straggler_free(s);
		return -1;
	}
	return 0;
}

void straggler_free(struct straggler *s)
{
	free(s->r);
	free(s->ring);
	free(s->hold);
	s->r = NULL;
	s->ring = NULL;
	s->hold = NULL;
	s->nranks = 0;
}

/* The exponential mean's step: a plain mean while young, so the first samples weigh as much. */
static void ew_add(double *mean, double x, double n)
{
	double w = n < STRAGGLER_WINDOW ? 1.0 / n : 1.0 / STRAGGLER_WINDOW;

	*mean += w * (x - *mean);
}

/* The gap in hundredths: exact sums in integers, a byte per sample in the window. */
static int gap_cents(double gap)
{
	return (int)(gap * 100 + (gap >= 0 ? 0.5 : -0.5));
}

/* The sample enters rank i's window; the oldest, once it is full, leaves it for the history, or
 * for the held samples where it belongs to a far rise (rise_update). */
static void window_add(struct straggler *s, int i, int cents, bool held)
{
	struct straggler_rank *r = &s->r[i];
	signed char *ring = s->ring + (size_t)i * STRAGGLER_WINDOW;
	unsigned char *hold = s->hold + (size_t)i * STRAGGLER_WINDOW;

	if (r->in == STRAGGLER_WINDOW) {
		struct sums *to = hold[r->head] ? &r->held : &r->hist;
		int old = ring[r->head];

		to->n++;
		to->sum += old;
		to->sum2 += old * old;
	} else {
		r->in++;
	}
	ring[r->head] = (signed char)cents;
	hold[r->head] = held;
	r->head = (r->head + 1) % STRAGGLER_WINDOW;
}

/* Rank i's rise, as the CUSUM tells it (from its STRAGGLER_BEFORE_MIN-th sample): while it has
 * gone STRAGGLER_HOLD far, every sample of it still in the ring is held from the history (a
 * slowdown must not become the history it is judged against); once it is back at zero it was
 * noise, and they count again. */
static void rise_update(struct straggler *s, int i, double gap, double t)
{
	struct straggler_rank *r = &s->r[i];
	unsigned char *hold = s->hold + (size_t)i * STRAGGLER_WINDOW;

	/* A rank's first samples are its history whatever they show: a rank heavier by design is
	 * measured against itself, and a rise needs something to rise from. */
	r->cusum += r->n > STRAGGLER_BEFORE_MIN ? gap - STRAGGLER_RISE_K : -r->cusum;
	r->rise_n++;
	if (r->cusum <= 0 || r->n == 1) {
		r->cusum = r->cusum > 0 ? r->cusum : 0;
		r->rise_t = t;
		r->rise_n = 0;
	}
	if (r->cusum >= STRAGGLER_HOLD)
		for (int k = 1; k <= r->rise_n + 1 && k <= r->in; k++)
			hold[(r->head + STRAGGLER_WINDOW - k) % STRAGGLER_WINDOW] = 1;
	if (r->cusum <= 0) {
		for (int k = 0; k < STRAGGLER_WINDOW; k++)
			hold[k] = 0;
		r->hist.n += r->held.n;
		r->hist.sum += r->held.sum;
		r->hist.sum2 += r->held.sum2;
		r->held = (struct sums){ 0 };
	}
}

static void rank_add(struct straggler *s, int i, double gap, double own, double mates, double t, bool base)
{
	struct straggler_rank *r = &s->r[i];
	double before = r->n ? r->own : 0;

	r->n++;
	ew_add(&r->own, own, r->n);
	ew_add(&r->mates, mates, r->n);
	window_add(s, i, gap_cents(gap), r->cusum >= STRAGGLER_HOLD);
	if (r->n == 1)
		s->with_samples++;
	s->own_sum += r->own - before;
	if (base) {
		r->base_n++;
		r->base_wait += own;
		s->base_n++;
		s->base_wait += own;
	}
	rise_update(s, i, gap, t);
}

static double var_of(double mean, double mean2)
{
	double v = mean2 - mean * mean;

	return v > 1e-4 ? v : 1e-4; /* a rank always found the same way still has some doubt */
}

/* Mean and variance of rank r's gap over its last `w` samples, and over its history before
 * them (the samples between the window and the history, but those held, count as history). */
struct split {
	double nw, mw, vw, nh, mh, vh;
};

static struct split split_of(const struct straggler *s, int i, int w)
{
	const struct straggler_rank *r = &s->r[i];
	const signed char *ring = s->ring + (size_t)i * STRAGGLER_WINDOW;
	const unsigned char *hold = s->hold + (size_t)i * STRAGGLER_WINDOW;
	struct sums win = { 0 }, hist = r->hist;
	struct split p;

	for (int k = 1; k <= r->in; k++) {
		int slot = (r->head + STRAGGLER_WINDOW - k) % STRAGGLER_WINDOW, c = ring[slot];
		struct sums *to = k <= w ? &win : hold[slot] ? NULL : &hist;

		if (to) {
			to->n++;
			to->sum += c;
			to->sum2 += c * c;
		}
	}
	p = (struct split){ .nw = (double)win.n, .nh = (double)hist.n };
	if (win.n) {
		p.mw = win.sum / 100.0 / p.nw;
		p.vw = var_of(p.mw, win.sum2 / 1e4 / p.nw);
	}
	if (hist.n) {
		p.mh = hist.sum / 100.0 / p.nh;
		p.vh = var_of(p.mh, hist.sum2 / 1e4 / p.nh);
	}
	return p;
}

/* z of "the other ranks wait more now than in the job's first rounds". */
static double job_change_z(const struct straggler *s, int i)
{
	const struct straggler_rank *r = &s->r[i];
	double bn = s->base_n - r->base_n, others = s->with_samples - 1, nn = 0;

	if (bn < STRAGGLER_BASE_ROUNDS || others < 1)
		return -INFINITY;
	for (int k = 0; k < s->nranks; k++)
		if (k != i)
			nn += s->r[k].n < STRAGGLER_WINDOW ? s->r[k].n : STRAGGLER_WINDOW;

	double pb = (s->base_wait - r->base_wait) / bn, pn = (s->own_sum - r->own) / others;
	double var = pb * (1 - pb) / bn + pn * (1 - pn) / (nn > 1 ? nn : 1);

	return (pn - pb - STRAGGLER_RISE_MIN) / sqrt(var > 1e-4 / bn ? var : 1e-4 / bn);
}

void straggler_tests(const struct straggler *s, int i, int w, double *level, double *change)
{
	const struct straggler_rank *r = &s->r[i];
	struct split p = split_of(s, i, windows[w]);

	*level = *change = -INFINITY;
	if (p.nw < windows[w])
		return;
	/* A window of few waits of its own has a small variance exactly when its mean is high:
	 * the history's is the honest one (a rank alone in its first window has none). */
	if (p.nh >= STRAGGLER_BEFORE_MIN && p.vh > p.vw)
		p.vw = p.vh;
	*level = (p.mw - STRAGGLER_GAP) / sqrt(p.vw / p.nw);
	if (p.nh >= STRAGGLER_BEFORE_MIN)
		*change = (p.mw - p.mh - STRAGGLER_RISE_MIN) / sqrt(p.vw / p.nw + p.vh / p.nh);
	/* First sampled after the job's first rounds (the other set's turn): its own history may
	 * already be the slow one's; the other ranks' wait is the change then. */
	if (r->base_n == 0) {
		double job = job_change_z(s, i);

		*change = job > *change ? job : *change;
	}
}

/* Rank i's mean gap over its window (as much of it as it has). */
static double gap_now(const struct straggler *s, int i)
{
	const struct straggler_rank *r = &s->r[i];
	const signed char *ring = s->ring + (size_t)i * STRAGGLER_WINDOW;
	long sum = 0;

	for (int k = 0; k < r->in; k++)
		sum += ring[k];
	return r->in ? sum / 100.0 / r->in : 0;
}

/* Does no other judged rank's gap reach half of rank i's? */
static bool alone(const struct straggler *s, int i)
{
	double gi = gap_now(s, i);

	for (int k = 0; k < s->nranks; k++)
		if (k != i && s->r[k].in >= STRAGGLER_WINDOW_SHORT && gap_now(s, k) > gi / 2)
			return false;
	return true;
}

static bool judge(struct straggler *s, int i, double t)
{
	struct straggler_rank *r = &s->r[i];
	double best = -INFINITY;

	if (r->flagged) {
		if (gap_now(s, i) <= 0) {
			r->flagged = false;
			r->until = t;
			s->nflagged--;
		}
		return false;
	}
	if (s->nflagged > 0)
		return false;
	for (int w = 0; w < STRAGGLER_WINDOWS; w++) {
		double zl, zc;

		straggler_tests(s, i, w, &zl, &zc);

		double z = zl < zc ? zl : zc;

		best = z > best ? z : best;
	}
	if (best < s->z || !alone(s, i))
		return false;
	r->flagged = true;
	s->nflagged++;
	r->since = r->rise_t;
	r->until = 0;
	r->confidence = 1 - normal_upper(best);
	r->flagged_at = t;
	r->flag_mates = r->mates;
	r->flag_own = r->own;
	return true;
}

/* A sample's wait in percent as a share (above 100: a sample found waiting). */
static double share_of(signed char pct)
{
	return pct >= 100 ? 1.0 : pct / 100.0;
}

int straggler_round(struct straggler *s, const int *idx, const signed char *wait, int n, double t, bool start_up)
{
	int known = 0, flagged = -1;
	double waiting = 0;

	if (start_up)
		return -1;
	for (int k = 0; k < n; k++)
		if (idx[k] >= 0 && idx[k] < s->nranks && wait[k] >= 0) {
			known++;
			waiting += share_of(wait[k]);
		}
	if (known < 2)
		return -1;

	bool base = s->base_rounds < STRAGGLER_BASE_ROUNDS;

	s->rounds++;
	s->base_rounds += base;
	for (int k = 0; k < n; k++) {
		if (idx[k] < 0 || idx[k] >= s->nranks || wait[k] < 0)
			continue;

		double own = share_of(wait[k]), mates = (waiting - own) / (known - 1);

		rank_add(s, idx[k], mates - own, own, mates, t, base);
	}
	for (int k = 0; k < n; k++)
		if (idx[k] >= 0 && idx[k] < s->nranks && wait[k] >= 0 && judge(s, idx[k], t) && flagged < 0)
			flagged = idx[k];
	return flagged;
}

bool straggler_info(const struct straggler *s, int i, struct straggler_info *out)
{
	if (i < 0 || i >= s->nranks)
		return false;

	const struct straggler_rank *r = &s->r[i];

	*out = (struct straggler_info){ .flagged = r->flagged, .ever = r->flagged || r->until > 0,
					.since = r->since, .until = r->until, .confidence = r->confidence,
					.flagged_at = r->flagged_at,
					.mates = r->mates, .own = r->own, .flag_mates = r->flag_mates,
					.flag_own = r->flag_own, .gap = gap_now(s, i), .n = r->n };
	return true;
}
