/* SPDX-License-Identifier: BSD-3-Clause */
/* decide — the models, the basis rule and the confirmation, one sample at a time.
 *
 * Which model speaks is a rule, not a race: the stall model covers what the model of S cannot
 * judge in time; where S can, a rank computing alone (a computation hang) is its to name. A
 * model "can judge" a hang that begins now once the stall model has a history, or once the
 * model of S could reach its verdict within a confirmation window (its prediction,
 * detector_verdict_eta_ms: a property of the job, not of whether its latest runs-test window
 * happened to pass - issue 35; once timely, it stays so within two windows, where a hang no
 * model suspected goes to the evidence anyway: confirm.c). Otherwise progress evidence alone may suspect, as before any
 * history (confirm.c).
 *
 * Where S can judge but slowly, the stall model is not held back: once its own prediction
 * (stall_verdict_eta_ms) is at most half of S's, a hang is its to suspect too. A training job
 * (issue 54) is the case: its sampled ranks are all inside the collective in about half of the
 * healthy samples, so S needs ~15 suspicions in a row (and, for a rank computing alone, the
 * other rank set's turn), while nothing in it ever stands still, so 2 or 3 quiet samples are a
 * hang to the stall model. Half, not "sooner": the two predictions of a computing MPI job lie
 * close together, and a margin keeps its hangs S's to name rather than a race. A stall model
 * still on its bootstrap (stall.h) speaks beside a timely S only before S has settled (its
 * window rule met once: 32-64 samples) and where its own verdict comes in half S's time: a
 * fault 8 s in is the stall model's; the README's demo, 25 s in, where S has settled, stays
 * S's even while its faulty rank's set waits for its turn. */
#include "decide.h"

#include <math.h>

/* The stall model would call a hang at most half as late as the model of S. */
static bool decide_stall_sooner(const struct decide *d)
{
	struct detector_info di;

	detector_get_info(d->det, &di);

	double eta = stall_verdict_eta_ms(d->stall, di.interval_ms);

	return isfinite(eta) && eta * DECIDE_STALL_SOONER <= detector_verdict_eta_ms(d->det);
}

/* May the stall model's hang verdict open a window? Where S cannot judge in time, yes. Beside
 * a timely S: a hang is S's to name while S's run goes on (a hang whose S is above its
 * threshold is the stall model's), unless the stall model calls it in half S's time. On its
 * bootstrap (stall.h) the stall model speaks only in half S's time before S has settled, S's
 * run or not: S above its threshold may be one rank set's turn. */
static bool stall_may_speak(const struct decide *d, const struct decide_out *out,
			    const struct detector_info *di)
{
	if (!out->s_timely)
		return true;
	if (stall_on_bootstrap(d->stall))
		return out->stall_sooner && !di->settled;
	return out->stall_sooner || !(di->run_length > 0 || detector_hang_ongoing(d->det));
}

bool decide_s_timely(struct decide *d, double longest_ms)
{
	double eta = detector_verdict_eta_ms(d->det), window = confirm_window_ms(d->conf, longest_ms);

	d->s_timely = eta < (d->s_timely ? 2 * window : window);
	return d->s_timely;
}

enum confirm_event decide_step(struct decide *d, const struct decide_input *in,
			       struct decide_out *out)
{
	struct detector_info di;
	struct stall_info si;

	out->verdict = detector_add(d->det, in->t_ms, in->out);
	out->stall_verdict = stall_add(d->stall, in->t_ms, in->moved, in->still);
	detector_get_info(d->det, &di);
	stall_get_info(d->stall, &si);
	/* The window grows with the longest healthy stretch either model has seen. */
	out->longest_ms = di.longest_healthy_ms > si.longest_healthy_ms ? di.longest_healthy_ms :
									 si.longest_healthy_ms;
	out->s_timely = decide_s_timely(d, out->longest_ms);
	out->model_ready = si.usable || out->s_timely;
	out->stall_sooner = decide_stall_sooner(d);

	struct confirm_sample cs = { .t_ms = in->t_ms, .verdict = out->verdict,
				     .hang_ongoing = detector_hang_ongoing(d->det),
				     .longest_healthy_ms = out->longest_ms, .live = in->live,
				     .moved = in->moved, .still = in->still, .kernel = in->kernel,
				     .init = in->init, .idle = in->idle, .busy = in->busy,
				     .model_ready = out->model_ready,
				     .stall_hang = out->stall_verdict == STALL_HANG && stall_may_speak(d, out, &di),
				     .stall_ongoing = stall_hang_ongoing(d->stall) };
	enum confirm_event ev = confirm_add(d->conf, &cs);

	/* The job moved after a suspicion, or after a reported hang. */
	if (ev == CONFIRM_MOVED || ev == CONFIRM_RESOLVED)
		decide_dismiss(d);
	return ev;
}

void decide_dismiss(const struct decide *d)
{
	detector_dismiss(d->det);
	stall_dismiss(d->stall);
}
