/* SPDX-License-Identifier: BSD-3-Clause */
/* confirm — the confirmation window as a small state machine.
 *
 * WATCHING: a hang verdict of either model opens a window (SUSPECTED); when both give one at
 * the same sample, the model of S is named (its verdict also says which set holds a rank in
 * application code). A stretch of samples in which
 * no rank moved, with evidence that ranks wait unmoved in MPI (or sit in the kernel), opens one
 * by itself once it has lasted half a window, and confirms once it has lasted a whole one - when
 * the stretch began before the model had a history (a hang in or right after MPI_Init, an
 * early deadlock). Which of the two decides is a rule of the evidence, not a race: a hang that
 * began after a model could judge it is the model's to suspect (the demo's spin 25 s in was
 * otherwise confirmed on either basis, whichever came first) - unless two whole windows pass
 * with nothing moved and no model has suspected it: then the evidence does, and the window
 * confirms it half a window later at the earliest (a model ready in general may still be blind
 * to one hang: S above its threshold).
 * CONFIRMING: ranks seen to move (in CONFIRM_MOVES samples), or the model's suspicion run
 * ending (the job computes again), dismiss (MOVED); the deadline passed with evidence and nothing moved confirms (HANG).
 * HUNG: a reported hang (--on-hang=report) that starts to move again is RESOLVED.
 * Start-up: while ranks wait in MPI_Init (or torch's rendezvous) for the others, the window is
 * CONFIRM_INIT_GRACE_S - large jobs wire up for minutes, and a rank still loading is moving -
 * unless every rank found outside MPI_Init since some moment stood still there (its stack, CPU
 * time and I/O unchanged: blocked in a read no one answers) and none was found busy: then the
 * window is the usual one, or twice the longest such pause the start-up showed before a rank
 * got busy again, counted from that moment (issue 68). A rank reading its input, importing
 * modules or computing keeps the grace however long it takes. */
#include "confirm.h"

void confirm_init(struct confirm *c, double window_s)
{
	*c = (struct confirm){ .window_ms = window_s * 1e3, .state = WATCHING, .quiet_since_ms = -1,
			       .startup_idle_since_ms = -1 };
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

/* The window without the start-up's rule. */
static double own_window_ms(const struct confirm *c, double longest_healthy_ms)
{
	if (c->window_ms == 0)
		return 0; /* --confirm 0: act on the model's verdict at once */
	return max2(c->window_ms, CONFIRM_GROWTH * longest_healthy_ms);
}

/* Start-up with a rank outside MPI_Init standing still, and none busy (the header's rule). */
static bool startup_stands_still(const struct confirm *c)
{
	return c->started && c->startup_idle_since_ms >= 0;
}

double confirm_window_ms(const struct confirm *c, double longest_healthy_ms)
{
	double w = own_window_ms(c, longest_healthy_ms);

	if (w == 0 || !c->started)
		return w;
	if (startup_stands_still(c))
		return max2(w, CONFIRM_GROWTH * c->startup_pause_ms);
	return max2(w, CONFIRM_INIT_GRACE_S * 1e3);
}

/* What the samples outside MPI_Init say of the start-up. */
static void startup_add(struct confirm *c, const struct confirm_sample *s)
{
	if (!c->started) {
		c->startup_idle_since_ms = -1;
		c->startup_pause_ms = 0;
		return;
	}
	/* A rank in the kernel (D) at start-up is loading from a file system: busy. */
	if (s->busy > 0 || s->kernel > 0) {
		if (c->startup_idle_since_ms >= 0)
			c->startup_pause_ms = max2(c->startup_pause_ms, s->t_ms - c->startup_idle_since_ms);
		c->startup_idle_since_ms = -1;
	} else if (s->idle > 0 && c->startup_idle_since_ms < 0) {
		c->startup_idle_since_ms = s->t_ms;
	}
}

/* When the open window confirms: its own deadline; at start-up, CONFIRM_INIT_GRACE_S after
 * it opened, or a window after the rank outside MPI_Init was first found standing still. */
static double deadline_due(const struct confirm *c, double longest_healthy_ms)
{
	double w = confirm_window_ms(c, longest_healthy_ms);

	if (!c->started || w == 0)
		return c->own_deadline_ms;
	if (startup_stands_still(c))
		return max2(c->own_deadline_ms, max2(c->suspected_ms, c->startup_idle_since_ms) + w);
	return max2(c->own_deadline_ms, c->suspected_ms + w);
}

bool confirm_is_io(const struct confirm *c)
{
	return c->all_in_kernel && c->kernel_samples > 0;
}

/* A new stretch of quiet samples begins at t_ms (nothing moved since). */
static void quiet_restart(struct confirm *c, double t_ms)
{
	c->quiet_since_ms = t_ms;
	c->early = !c->model_ready;
	c->evidence = 0;
	c->all_in_kernel = true;
	c->kernel_samples = 0;
}

static void quiet_add(struct confirm *c, const struct confirm_sample *s)
{
	if (c->quiet_since_ms < 0)
		quiet_restart(c, s->t_ms);
	/* Until a stretch holds evidence, it starts over at each sample that brings none (ranks
	 * computing, say): the window counts from the first evidence, and ranks that settle into
	 * the kernel one by one are not judged by the samples before they all did. */
	if (c->evidence == 0 && s->still == 0 && s->kernel == 0) {
		quiet_restart(c, s->t_ms);
		return;
	}
	c->evidence += s->still;
	c->all_in_kernel &= s->kernel > 0;
	c->kernel_samples += s->kernel > 0;
}

void confirm_dismiss(struct confirm *c, double t_ms)
{
	c->state = WATCHING;
	c->dismissed++;
	quiet_restart(c, t_ms);
}

static bool has_evidence(const struct confirm *c)
{
	return c->evidence > 0 || confirm_is_io(c);
}

static void open_window(struct confirm *c, const struct confirm_sample *s,
			enum confirm_basis basis)
{
	c->state = CONFIRMING;
	c->basis = basis;
	c->suspicions++;
	c->moves = 0;
	if (basis == CONFIRM_BY_EVIDENCE) {
		/* The quiet stretch so far is the first part of the window. */
		c->suspected_ms = c->quiet_since_ms;
	} else {
		/* The window's evidence is what it sees itself. */
		c->suspected_ms = s->t_ms;
		quiet_restart(c, s->t_ms);
	}
	c->own_deadline_ms = c->suspected_ms + own_window_ms(c, s->longest_healthy_ms);
	c->deadline_ms = deadline_due(c, s->longest_healthy_ms);
}

/* Is the job, as far as the models can tell, still hanging? Either model's hang verdict goes
 * on (for S's: a sample of the rank set that holds a faulty rank in application code does not
 * end its run; for the stall model: nothing has moved). A window opened by evidence alone is
 * ended only by a rank that moves. */
static bool still_suspicious(const struct confirm *c, const struct confirm_sample *s)
{
	return c->basis == CONFIRM_BY_EVIDENCE || c->basis == CONFIRM_BY_RECORDS || s->hang_ongoing ||
	       s->stall_ongoing;
}

enum confirm_event confirm_add(struct confirm *c, const struct confirm_sample *s)
{
	bool moved = s->moved > 0;

	/* Start-up lasts until something moves: a sample set that holds none of the ranks still
	 * starting (most of a large job wait in MPI_Init while a few still load) does not end it. */
	c->started = s->init > 0 || (c->started && !moved);
	startup_add(c, s);
	c->model_ready = s->model_ready;
	c->last_ms = s->t_ms;
	switch (c->state) {
	case WATCHING:
		if (moved)
			quiet_restart(c, s->t_ms);
		else
			quiet_add(c, s);
		if (s->verdict == DETECTOR_HANG || s->stall_hang) {
			open_window(c, s, s->verdict == DETECTOR_HANG ? CONFIRM_BY_MODEL : CONFIRM_BY_STALL);
			if (c->window_ms > 0)
				return CONFIRM_SUSPECTED;
			c->state = HUNG;
			return CONFIRM_HANG;
		}
		/* Nothing moved for half a window, with evidence, since before the model had a
		 * history: suspected without the model. After two whole windows the same holds for
		 * a stretch that began when a model was ready, had none suspected it by then: that
		 * model could not judge this hang (its S above the model's threshold, say), and a
		 * hang is never left silent. Two: the model of S may wait a set's turn (the sets
		 * alternate every RANKSETS_SWITCH_EVERY samples) before its run goes on. */
		if (!moved && has_evidence(c) && c->window_ms > 0) {
			double w = confirm_window_ms(c, s->longest_healthy_ms);

			if (s->t_ms - c->quiet_since_ms >= (c->early ? w / 2 : 2 * w)) {
				open_window(c, s, CONFIRM_BY_EVIDENCE);
				/* A late suspicion still gets half a window of its own. */
				double half = own_window_ms(c, s->longest_healthy_ms) / 2;

				if (!c->early && c->own_deadline_ms < s->t_ms + half)
					c->own_deadline_ms = s->t_ms + half;
				c->deadline_ms = deadline_due(c, s->longest_healthy_ms);
				return CONFIRM_SUSPECTED;
			}
		}
		return CONFIRM_NOTHING;
	case CONFIRMING:
		c->moves += moved;
		if (c->moves >= CONFIRM_MOVES || !still_suspicious(c, s)) {
			confirm_dismiss(c, s->t_ms);
			return CONFIRM_MOVED;
		}
		quiet_add(c, s);
		/* The window may have grown (a longer healthy run), or the start-up's changed: a rank
		 * entered MPI_Init, one outside it was found standing still, or busy again. */
		c->own_deadline_ms = max2(c->own_deadline_ms, c->suspected_ms + own_window_ms(c, s->longest_healthy_ms));
		c->deadline_ms = deadline_due(c, s->longest_healthy_ms);
		if (s->t_ms >= c->deadline_ms && has_evidence(c) && !moved) {
			c->state = HUNG;
			c->moves = 0;
			return CONFIRM_HANG;
		}
		return CONFIRM_NOTHING;
	case HUNG:
		c->moves += moved;
		if (c->moves >= CONFIRM_MOVES || !still_suspicious(c, s)) {
			c->state = WATCHING;
			quiet_restart(c, s->t_ms);
			return CONFIRM_RESOLVED;
		}
		return CONFIRM_NOTHING;
	}
	return CONFIRM_NOTHING;
}

void confirm_prove(struct confirm *c, double t_ms)
{
	if (c->state == WATCHING) {
		c->suspicions++;
		c->suspected_ms = t_ms;
	}
	c->state = HUNG;
	c->basis = CONFIRM_BY_RECORDS;
	c->deadline_ms = c->own_deadline_ms = t_ms;
	c->moves = 0;
}

bool confirm_quiet_for(const struct confirm *c, double t_ms, double quiet_ms)
{
	return c->state != HUNG && c->quiet_since_ms >= 0 && c->evidence > 0 && t_ms - c->quiet_since_ms >= quiet_ms;
}

double confirm_start_up_still_ms(const struct confirm *c, double t_ms)
{
	return startup_stands_still(c) ? t_ms - c->startup_idle_since_ms : -1;
}

const char *confirm_basis_name(enum confirm_basis b)
{
	switch (b) {
	case CONFIRM_BY_MODEL: return "model";
	case CONFIRM_BY_STALL: return "stall model";
	case CONFIRM_BY_EVIDENCE: return "progress evidence";
	case CONFIRM_BY_RECORDS: return "records";
	}
	return "unknown";
}
