/* SPDX-License-Identifier: BSD-3-Clause */
/* detector — the model of design.md §3.
 *
 * Randomness is checked on every window of DETECTOR_WINDOW samples for the whole run, not
 * only until the first window that passes (the paper's rule): a job whose phases last seconds
 * passes a 16-sample window taken inside one phase and then raises a false alarm in the next
 * long communication phase. Two mechanisms keep the model honest for the whole run:
 *
 * - Interval control. The outcomes of the last DETECTOR_HISTORY windows at the current
 *   interval are remembered; I doubles (and the model halves) only when their failures are
 *   very unlikely under random sampling, so the ~5 % of windows that fail by chance do not
 *   make I creep upward in a long healthy run. I also doubles when the job contradicts the
 *   model outright: a suspicion run that reached significance and then ended by itself.
 *
 * - Run-length guard. A suspicion run becomes a hang only once it has lasted longer than
 *   DETECTOR_GUARD_FACTOR times the longest suspicion run the job has shown while healthy,
 *   as suspicions were defined at the time. (Measuring healthy stretches against the current
 *   threshold instead was tried: it learns too little early on, while the threshold is still
 *   loose, and lets the second long communication phase through.)
 *   Early in a job with long phases, before the windows have seen a whole cycle, this is what
 *   stops the second communication phase from being called a hang; in a settled job it costs
 *   nothing, since k = ceil(log_q alpha) samples already outlast healthy runs.
 *
 * No verdict comes before DETECTOR_MIN_WINDOWS windows at the current interval (after a doubling,
 * DETECTOR_MIN_WINDOWS_AFTER_DOUBLING), unless the latest DETECTOR_RECENT_PASSED windows passed
 * (the rules of detector.h, measured by bench/model_eval): with no history at all, the first
 * long communication phase of a job looks exactly like a hang. What the earlier verdicts cost
 * (false suspicions in long-phase jobs) the confirmation window (confirm.h) pays.
 *
 * Suspicion runs are kept per rank set (see struct run): only a non-suspicion of its own set
 * ends a run, or a sample of the other set with more than one rank above the threshold.
 *
 * Windows that complete during a suspicion run are held back with the run's samples and
 * counted only if the run ends: a hang must teach neither the model nor the interval control. */
#include "detector.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prior.h"
#include "ranksets.h"
#include "threshold.h"

struct detector {
	struct detector_config cfg;
	struct rng rng;
	double interval_ms;

	double *hist;  /* C + 1 bins, fractional after halving */
	double n;      /* sum of hist */
	struct threshold_level level; /* the tolerance level in use */

	/* One suspicion run per rank set (the sets alternate every RANKSETS_SWITCH_EVERY samples):
	 * the geometric test is about consecutive samples of one set, and the set that holds a
	 * faulty OUT_MPI rank must not end the other set's run at every switch. */
	struct run {
		int *held;     /* samples of the run in progress, held back from the model */
		int len, cap;
		double product;
		double active_ms; /* time its set was being sampled during the run */
		bool hung;     /* this run has reached a verdict */
	} runs[2];
	double last_sample_ms;      /* time and set of the previous sample */
	struct run *last_run;
	double longest_healthy_ms; /* longest suspicion run that ended by itself */

	double window[DETECTOR_WINDOW];
	int window_len;
	bool pending[DETECTOR_PENDING_MAX]; /* window outcomes held back during a run */
	int pending_len;
	bool history[DETECTOR_HISTORY];     /* ring of window outcomes at this interval */
	int history_count;                  /* windows seen at this interval (may exceed ring) */

	long samples;
	int windows_passed, windows_failed, doublings;
	int windows_constant; /* windows of the one value the job ever showed: no test */
	bool settled; /* the window rule held once: later re-tuning does not unsettle the job */
	bool from_prior; /* started from a remembered run (detector_prior_give) */
	enum detector_verdict last;
};

/* P(X >= k) for X ~ Binomial(m, p). */
static double binomial_tail(int m, int k, double p)
{
	double tail = 0.0;

	for (int i = k; i <= m; i++) {
		double c = exp(lgamma(m + 1.0) - lgamma(i + 1.0) - lgamma(m - i + 1.0));

		tail += c * pow(p, i) * pow(1.0 - p, m - i);
	}
	return tail;
}

static int history_failures(const struct detector *d, int *remembered)
{
	int m = d->history_count < DETECTOR_HISTORY ? d->history_count : DETECTOR_HISTORY;
	int fails = 0;

	for (int i = 0; i < m; i++)
		fails += !d->history[i];
	*remembered = m;
	return fails;
}

/* Tail probability of the remembered window failures under random sampling. */
static double history_tail(const struct detector *d)
{
	int m;
	int fails = history_failures(d, &m);

	return binomial_tail(m, fails, RUNS_TEST_LEVEL);
}

/* Windows needed at the current interval before a verdict (rule c: fewer after a doubling). */
static int detector_min_windows(const struct detector *d)
{
	return d->doublings > 0 && (d->cfg.rules & DETECTOR_RULE_FEWER_AFTER_DOUBLING) ?
		       DETECTOR_MIN_WINDOWS_AFTER_DOUBLING : DETECTOR_MIN_WINDOWS;
}

/* Rule b: the latest windows at this interval all passed. */
static bool detector_recent_passed(const struct detector *d)
{
	if (!(d->cfg.rules & DETECTOR_RULE_RECENT_PASSED) || d->history_count < DETECTOR_RECENT_PASSED)
		return false;
	for (int k = 1; k <= DETECTOR_RECENT_PASSED; k++)
		if (!d->history[(d->history_count - k) % DETECTOR_HISTORY])
			return false;
	return true;
}

static bool detector_random_ok(const struct detector *d)
{
	return (d->history_count >= detector_min_windows(d) || detector_recent_passed(d)) &&
	       history_tail(d) > DETECTOR_GATE_P;
}

static void detector_select_level(struct detector *d)
{
	d->level = threshold_select(d->hist, d->cfg.set_size, d->n);
}

static void detector_model_add(struct detector *d, int s)
{
	d->hist[s] += 1.0;
	d->n += 1.0;
}

/* I doubles: the old samples were taken twice as densely, so they count half. */
static void detector_double_interval(struct detector *d)
{
	d->interval_ms *= 2.0;
	if (d->interval_ms > d->cfg.max_interval_ms)
		d->interval_ms = d->cfg.max_interval_ms;
	for (int v = 0; v <= d->cfg.set_size; v++)
		d->hist[v] /= 2.0;
	d->n /= 2.0;
	d->history_count = 0;
	d->window_len = 0;
	d->pending_len = 0;
	d->doublings++;
	detector_select_level(d);
}

static void detector_record_window(struct detector *d, bool random)
{
	d->history[d->history_count % DETECTOR_HISTORY] = random;
	d->history_count++;
	if (random)
		d->windows_passed++;
	else
		d->windows_failed++;
	if (history_tail(d) <= DETECTOR_DOUBLE_P && d->interval_ms < d->cfg.max_interval_ms)
		detector_double_interval(d);
}

static void detector_flush_pending(struct detector *d)
{
	int n = d->pending_len;

	d->pending_len = 0;
	/* A doubling clears pending_len; the remaining outcomes belong to the old interval. */
	for (int i = 0; i < n; i++) {
		int doublings = d->doublings;

		detector_record_window(d, d->pending[i]);
		if (d->doublings != doublings)
			break;
	}
}

static double detector_model_mean(const struct detector *d)
{
	double sum = 0.0;

	for (int v = 0; v <= d->cfg.set_size; v++)
		sum += v * d->hist[v];
	return d->n > 0 ? sum / d->n : 0.0;
}

static bool detector_in_run(const struct detector *d)
{
	return d->runs[0].len > 0 || d->runs[1].len > 0;
}

/* A window that says nothing of randomness: every sample the one value the job has ever shown
 * (a job that lives in MPI: S = 0 throughout). No interval makes a constant stream random, so
 * doubling I for it would only starve the stall model (stall.h), the detector such jobs have.
 * A constant window after the job has shown other values is a long phase, and is tested. */
static bool detector_window_uninformative(const struct detector *d)
{
	int v = (int)d->window[0];

	for (int i = 1; i < DETECTOR_WINDOW; i++)
		if (d->window[i] != d->window[0])
			return false;
	return v >= 0 && v <= d->cfg.set_size && d->hist[v] >= d->n - 1e-9;
}

static void detector_window_push(struct detector *d, int s)
{
	d->window[d->window_len++] = s;
	if (d->window_len < DETECTOR_WINDOW)
		return;
	d->window_len = 0;
	if (detector_window_uninformative(d)) {
		d->windows_constant++;
		return;
	}

	/* Rule a: against the model's mean, a window inside one long phase (all high or all low)
	 * fails, as it should; against its own mean it passes on its noise. */
	bool random = (d->cfg.rules & DETECTOR_RULE_MODEL_MEAN) && d->n >= DETECTOR_WINDOW ?
			      runs_test_against(d->window, DETECTOR_WINDOW, detector_model_mean(d)).random :
			      runs_test(d->window, DETECTOR_WINDOW).random;

	if (!detector_in_run(d)) {
		detector_record_window(d, random);
		return;
	}
	if (d->pending_len == DETECTOR_PENDING_MAX) {
		memmove(d->pending, d->pending + 1, (DETECTOR_PENDING_MAX - 1) * sizeof(bool));
		d->pending_len--;
	}
	d->pending[d->pending_len++] = random;
}

/* A suspicion run ends: its samples join the model unless it was declared a hang. A run that
 * reached significance and still ended by itself contradicts the model at this interval. */
static void detector_end_run(struct detector *d, struct run *r)
{
	bool keep_samples = !r->hung;
	bool contradiction = keep_samples && r->product <= d->cfg.alpha;
	double duration = r->active_ms;

	if (keep_samples) {
		for (int i = 0; i < r->len; i++)
			detector_model_add(d, r->held[i]);
		if (duration > d->longest_healthy_ms)
			d->longest_healthy_ms = duration;
	}
	r->len = 0;
	r->product = 1.0;
	r->hung = false;

	int doublings = d->doublings;

	if (!detector_in_run(d))
		detector_flush_pending(d);
	/* One ended run is one piece of evidence: at most one doubling for it. */
	if (contradiction && d->doublings == doublings && d->interval_ms < d->cfg.max_interval_ms)
		detector_double_interval(d);
}

void detector_config_default(struct detector_config *cfg)
{
	cfg->alpha = DETECTOR_DEFAULT_ALPHA;
	cfg->interval_ms = DETECTOR_DEFAULT_INTERVAL_MS;
	cfg->max_interval_ms = DETECTOR_DEFAULT_MAX_INTERVAL_MS;
	cfg->set_size = DETECTOR_DEFAULT_SET_SIZE;
	cfg->seed = DETECTOR_DEFAULT_SEED;
	cfg->rules = DETECTOR_RULES_DEFAULT;
}

struct detector *detector_new(const struct detector_config *cfg)
{
	if (!(cfg->alpha > 0.0 && cfg->alpha < 1.0) || !(cfg->interval_ms > 0.0) ||
	    cfg->max_interval_ms < cfg->interval_ms || cfg->set_size < 1 ||
	    cfg->set_size > DETECTOR_MAX_SET_SIZE)
		return NULL;

	struct detector *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->cfg = *cfg;
	d->hist = calloc((size_t)cfg->set_size + 1, sizeof(double));
	if (!d->hist) {
		free(d);
		return NULL;
	}
	rng_seed(&d->rng, cfg->seed);
	d->interval_ms = cfg->interval_ms;
	d->runs[0].product = d->runs[1].product = 1.0;
	d->last = DETECTOR_BUILDING;
	return d;
}

void detector_free(struct detector *d)
{
	if (!d)
		return;
	free(d->runs[0].held);
	free(d->runs[1].held);
	free(d->hist);
	free(d);
}

/* Hold back a suspicion's sample; false only when memory runs out. The run's duration grows
 * only between consecutive samples of its own set: the time the other set is sampled is not
 * time this set was seen to be suspicious. */
static bool detector_hold(struct detector *d, struct run *r, double t_ms, int s)
{
	if (r->len == r->cap) {
		int cap = r->cap ? r->cap * 2 : 64;
		int *p = realloc(r->held, (size_t)cap * sizeof(int));

		if (!p)
			return false;
		r->held = p;
		r->cap = cap;
	}
	if (r->len == 0)
		r->active_ms = 0.0;
	else if (d->last_run == r)
		r->active_ms += t_ms - d->last_sample_ms;
	r->held[r->len++] = s;
	return true;
}

/* The window rule of a verdict: enough windows at this interval, or the latest ones passed. */
static bool detector_windows_allow(const struct detector *d, int windows)
{
	return windows >= detector_min_windows(d) || detector_recent_passed(d);
}

/* Has the run earned a verdict? */
static bool detector_run_significant(const struct detector *d, const struct run *r)
{
	/* Held-back windows count toward the minimum history once the run itself holds a
	 * window's worth of suspicions, so an early hang is only delayed, never missed. */
	int windows = d->history_count;

	if (r->len >= DETECTOR_WINDOW)
		windows += d->pending_len;
	return r->product <= d->cfg.alpha && d->n >= DETECTOR_MIN_SAMPLES &&
	       detector_windows_allow(d, windows) &&
	       r->active_ms > DETECTOR_GUARD_FACTOR * d->longest_healthy_ms;
}

/* Samples a suspicion run beginning now (or going on now) needs before the window rule lets it
 * earn a verdict: the windows held back during the current runs count once the run holds a
 * window's worth of suspicions, and so do those it completes itself (detector_run_significant). */
static int detector_run_window_samples(const struct detector *d)
{
	if (detector_windows_allow(d, d->history_count))
		return 0;

	int held = d->runs[0].len > d->runs[1].len ? d->runs[0].len : d->runs[1].len;
	int missing = detector_min_windows(d) - d->history_count - d->pending_len;
	int need = missing > 0 ? missing * DETECTOR_WINDOW - d->window_len : 0;

	if (need < DETECTOR_WINDOW - held)
		need = DETECTOR_WINDOW - held;
	return need > 0 ? need : 0;
}

double detector_verdict_eta_ms(const struct detector *d)
{
	if (!d->level.usable || !(d->level.q > 0.0 && d->level.q < 1.0))
		return INFINITY;

	double k = ceil(log(d->cfg.alpha) / log(d->level.q));
	/* A job whose model settled once keeps its history while the interval is re-tuned: the
	 * windows it waits for then delay a verdict, they do not take the job from the model. */
	double w = d->settled ? 0.0 : detector_run_window_samples(d);
	/* The guard: the run's time between its first and latest samples must exceed it. */
	double g = floor(DETECTOR_GUARD_FACTOR * d->longest_healthy_ms / d->interval_ms) + 2.0;

	return fmax(k, fmax(w, g)) * d->interval_ms;
}

/* The set the sample_no-th sample comes from, as the sampler alternates them. */
static struct run *detector_run_for(struct detector *d, long sample_no)
{
	int nsets = d->cfg.nsets == 1 ? 1 : 2;

	return &d->runs[(sample_no / RANKSETS_SWITCH_EVERY) % nsets];
}

enum detector_verdict detector_add(struct detector *d, double t_ms, int s)
{
	if (s < 0)
		s = 0;
	if (s > d->cfg.set_size)
		s = d->cfg.set_size;

	struct run *r = detector_run_for(d, d->samples++);
	bool suspicion = d->level.usable && s <= d->level.threshold;
	bool held = suspicion && detector_hold(d, r, t_ms, s);

	d->last_sample_ms = t_ms;
	d->last_run = r;
	if (held) {
		r->product *= d->level.q;
		/* Windows completing now are held back with the run (see header comment). */
		detector_window_push(d, s);
		if (r->hung || detector_run_significant(d, r)) {
			r->hung = true;
			return d->last = DETECTOR_HANG;
		}
		return d->last = DETECTOR_SUSPECT;
	}
	if (r->len > 0)
		detector_end_run(d, r);
	/* The other set's run ends too when this sample shows the job computing: more than one
	 * rank above the threshold. A single one is what a faulty OUT_MPI rank in this set looks
	 * like while the job hangs, the case the two sets exist for. */
	struct run *other = r == &d->runs[0] ? &d->runs[1] : &d->runs[0];

	if (other->len > 0 && d->level.usable && s > d->level.threshold + 1)
		detector_end_run(d, other);
	detector_model_add(d, s);
	detector_window_push(d, s);
	detector_select_level(d);
	if (!d->level.usable)
		return d->last = DETECTOR_BUILDING;
	if (detector_windows_allow(d, d->history_count))
		d->settled = true;
	if (!detector_random_ok(d))
		return d->last = DETECTOR_UNSETTLED;
	return d->last = DETECTOR_HEALTHY;
}

double detector_next_step_ms(struct detector *d)
{
	return d->interval_ms / 2.0 + rng_uniform(&d->rng) * d->interval_ms;
}

void detector_dismiss(struct detector *d)
{
	/* The run was a slowdown, not a hang: its samples are not taught to the model (the
	 * slowdown may be the start of a real hang whose first ranks were still finishing their
	 * work; learning it would make the hang look normal), but the next verdict must outlast it
	 * by the guard factor, so a job that keeps stalling is not diagnosed again and again. */
	for (int k = 0; k < 2; k++) {
		struct run *r = &d->runs[k];

		if (r->len > 0 && r->active_ms > d->longest_healthy_ms)
			d->longest_healthy_ms = r->active_ms;
		r->len = 0;
		r->product = 1.0;
		r->hung = false;
	}
	detector_flush_pending(d);
	detector_select_level(d);
}

bool detector_usable(const struct detector *d)
{
	return d->level.usable;
}

bool detector_hang_ongoing(const struct detector *d)
{
	return d->runs[0].hung || d->runs[1].hung;
}

void detector_get_info(const struct detector *d, struct detector_info *info)
{
	memset(info, 0, sizeof(*info));
	info->verdict = d->last;
	info->interval_ms = d->interval_ms;
	info->samples = d->samples;
	info->model_size = d->n;
	info->usable = d->level.usable;
	if (d->level.usable) {
		info->e = d->level.e;
		info->p_hat = d->level.p_hat;
		info->q = d->level.q;
		info->threshold = d->level.threshold;
	}
	const struct run *longer = d->runs[1].len > d->runs[0].len ? &d->runs[1] : &d->runs[0];

	info->run_length = longer->len;
	info->run_product = longer->product;
	info->random_ok = detector_random_ok(d);
	info->windows_passed = d->windows_passed;
	info->windows_failed = d->windows_failed;
	info->windows_constant = d->windows_constant;
	info->doublings = d->doublings;
	info->longest_healthy_ms = d->longest_healthy_ms;
	info->from_prior = d->from_prior;
	info->settled = d->settled;
}

const char *detector_verdict_name(enum detector_verdict v)
{
	switch (v) {
	case DETECTOR_BUILDING: return "model building";
	case DETECTOR_UNSETTLED: return "sampling not yet random";
	case DETECTOR_HEALTHY: return "healthy";
	case DETECTOR_SUSPECT: return "suspicion";
	case DETECTOR_HANG: return "hang";
	}
	return "unknown";
}

bool detector_prior_take(const struct detector *d, struct model_prior *p)
{
	if (!d->settled || d->n < PRIOR_MIN_SAMPLES || d->cfg.set_size > PRIOR_MAX_SET_SIZE)
		return false;
	memset(p, 0, sizeof(*p)); /* the stall model's part is stall_prior_take's */
	p->set_size = d->cfg.set_size;
	p->interval_ms = d->interval_ms;
	p->longest_healthy_ms = d->longest_healthy_ms;
	p->samples = d->n;
	for (int v = 0; v <= d->cfg.set_size; v++)
		p->share[v] = d->hist[v] / d->n;
	return true;
}

bool detector_prior_give(struct detector *d, const struct model_prior *p)
{
	/* Below DETECTOR_MIN_SAMPLES no level is usable, so no suspicion run holds samples: the
	 * few the job has shown join the prior's as they are. */
	if (d->samples >= DETECTOR_MIN_SAMPLES || d->from_prior || !prior_valid(p) || p->set_size != d->cfg.set_size)
		return false;
	d->interval_ms = fmin(fmax(p->interval_ms, DETECTOR_MIN_INTERVAL_MS), d->cfg.max_interval_ms);
	for (int v = 0; v <= d->cfg.set_size; v++)
		d->hist[v] += p->share[v] * PRIOR_WEIGHT;
	d->n += PRIOR_WEIGHT;
	/* The earlier run's windows passed at this interval: the window rule holds from the start,
	 * the ring's passes giving way to this run's outcomes as they come. */
	for (int i = 0; i < DETECTOR_MIN_WINDOWS; i++)
		d->history[i] = true;
	d->history_count = DETECTOR_MIN_WINDOWS;
	d->settled = true;
	d->longest_healthy_ms = fmax(d->longest_healthy_ms, p->longest_healthy_ms);
	d->from_prior = true;
	detector_select_level(d);
	return true;
}
