/* SPDX-License-Identifier: BSD-3-Clause */
/* pipeline — the hang pipeline after each sample (design.md §4): suspect (one line now), confirm
 * (the window: progress evidence, stats/confirm.c), act (snapshots of every rank, the faulty
 * ones, the report and the action). What it owns of struct monitor is said in monitor.h. */
#include "pipeline.h"

#include "../../base/exitcodes.h"
#include "../hang/report.h"
#include "../hang/report_summary.h"
#include "../hang/runtime_word.h"
#include "../hang/snapclass.h"
#include "output.h"
#include "gather.h"
#include "proof.h"
#include "stragglers.h"
#include "site.h"

/* The snapshot gap: near the sampling interval, within bounds. */
static double snapshot_gap_ms(struct monitor *m)
{
	struct detector_info in;

	detector_get_info(m->det, &in);

	double gap = in.interval_ms;

	return gap > SNAPSHOT_GAP_MAX_MS ? SNAPSHOT_GAP_MAX_MS : gap < SNAPSHOT_GAP_MIN_MS ? SNAPSHOT_GAP_MIN_MS : gap;
}

/* What the JSON report says of the three steps: when each happened and on what basis. */
static json_t *steps_json(const struct monitor *m)
{
	json_t *steps = json_pack("{s:f, s:f, s:f, s:f, s:s, s:i, s:b}", "began_at", m->began_wall, "suspected_at",
				  m->suspected_wall, "confirmed_at", m->confirmed_wall, "window_s",
				  m->conf.window_ms > 0 ? (m->confirmed_wall - m->window_wall) : 0.0, "basis",
				  confirm_basis_name(m->conf.basis),
				  "dismissed_before", m->conf.dismissed, "ranks_in_kernel",
				  confirm_is_io(&m->conf));

	json_object_set_new(steps, "last_progress_at", m->last_progress_wall > 0 ?
			    json_real(m->last_progress_wall) : json_null());
	if (m->conf.basis == CONFIRM_BY_STALL)
		json_object_set_new(steps, "quiet_at_suspicion_s", json_real(m->quiet_at_suspicion_s));
	if (m->start_up_still_s >= 0) {
		json_object_set_new(steps, "start_up_still_s", json_real(m->start_up_still_s));
		json_object_set_new(steps, "start_up_grace_s", json_real(CONFIRM_INIT_GRACE_S));
	}
	if (m->conf.basis == CONFIRM_BY_RECORDS) {
		json_object_set_new(steps, "proof", json_string(m->proof));
		json_object_set_new(steps, "recheck_s", json_real(PROOF_RECHECK_MS / 1e3));
	}
	return steps;
}

/* The ranks the JSON report details, each with its own record (the classes shared theirs). */
static void restore_ranks(json_t *ranks)
{
	size_t i;
	json_t *r;

	json_array_foreach(ranks, i, r)
		snapclass_restore(r);
}

/* A confirmed hang: snapshots of every rank name the faulty ones; report. With --confirm 0 the
 * old transient-slowdown check still runs (any rank moving between snapshots): 1 a hang was
 * reported, 0 it was a slowdown. */
static int diagnose(struct monitor *m)
{
	json_t *snaps[SNAPSHOTS + 1];
	char why[512];
	double gap = snapshot_gap_ms(m), started = mono_ms();
	unsigned long long received = comm_json_bytes_received();
	bool check_moved = m->conf.window_ms == 0;

	/* Snapshot 0 and 1 are the transient-slowdown check; 1..5 decide the faulty ranks. Only
	 * the last goes into the report whole: the earlier ones hold what the checks compare. */
	snaps[0] = gather_all(m, false);
	for (int k = 1; k <= SNAPSHOTS; k++) {
		sleep_ms(gap);
		snaps[k] = gather_all(m, k == SNAPSHOTS);
		if (check_moved && report_moved(snaps[k - 1], snaps[k], why, sizeof(why))) {
			log_say("a suspected hang was a transient slowdown (%s); monitoring continues", why);
			for (int i = 0; i <= k; i++)
				json_decref(snaps[i]);
			decide_dismiss(&m->decide);
			return 0;
		}
	}

	json_t *faulty = report_faulty(snaps + 1, SNAPSHOTS);
	bool all_ranks = m->w.report_ranks == REPORT_RANKS_ALL ||
			 (m->w.report_ranks == REPORT_RANKS_AUTO && m->job.nranks <= REPORT_RANKS_FULL_MAX);
	json_t *last = snapclass_expand(snaps[SNAPSHOTS]);
	json_t *report = report_build_listing(last, faulty, m->confirmed_wall, output_model_json(m),
				      m->w.kill_on_hang ? "ending the job (--on-hang=kill)" :
				      "reported; still watching (--on-hang=report)", all_ranks);

	if (confirm_is_io(&m->conf))
		json_object_set_new(report, "hang_type", json_string("io"));
	json_object_set_new(report, "confirmation", steps_json(m));
	if (m->w.core_dir)
		output_write_cores(m, report);
	else if (m->w.kill_on_hang)
		output_next_step_outlived(report);
	json_object_set_new(report, "report_cost", output_report_cost(started, comm_json_bytes_received() - received));
	if (output_missing_json(m))
		json_object_set_new(report, "missing_monitors", output_missing_json(m));
	json_object_set_new(json_object_get(report, "confirmation"), "reported_at", json_real(wall_s()));
	stragglers_report(m, report);
	report_print(log_stream(), report);
	report_summarize(report, all_ranks);
	restore_ranks(json_object_get(report, "ranks"));
	output_write_report(m, report);
	site_hang_reported(m, report);
	json_decref(report);
	json_decref(last);
	json_decref(faulty);
	for (int i = 0; i <= SNAPSHOTS; i++)
		json_decref(snaps[i]);
	return 1;
}

/* What one snapshot shows now, for a suspicion's line (and the runtime its ranks wait in). */
static void suspicion_summary(struct monitor *m, char *what, size_t len)
{
	json_t *snap = gather_all(m, false);

	report_summary(snap, what, len);
	report_runtime_word(snap, m->waits_in, sizeof(m->waits_in));
	json_decref(snap);
}

/* Step 1, suspect: one line in the job output now, with what one snapshot shows. */
static void announce_suspicion(struct monitor *m, double window_ms)
{
	char what[512], when[32], now[32];

	suspicion_summary(m, what, sizeof(what));
	wall_clock_text(m->window_wall + window_ms / 1e3, when, sizeof(when));
	wall_clock_text(m->suspected_wall, now, sizeof(now)); /* every progress line says when */
	if (m->conf.basis == CONFIRM_BY_EVIDENCE && confirm_start_up_still_ms(&m->conf, m->conf.last_ms) >= 0)
		log_say("suspected hang at start-up — %s; the ranks that have not reached the start-up stand "
			"still (stack, CPU time and I/O unchanged for %.0f s) while the others wait in it — "
			"confirming since %s; %s at %s unless it moves", what,
			confirm_start_up_still_ms(&m->conf, m->conf.last_ms) / 1e3, now,
			m->w.kill_on_hang ? "the job is ended" : "it is reported", when);
	else if (m->conf.basis == CONFIRM_BY_EVIDENCE)
		log_say("suspected hang — %s; nothing has moved for %.0f s%s — confirming since %s; %s at %s "
		    "unless it moves", what, m->suspected_wall - m->window_wall,
		    detector_usable(m->det) || stall_usable(&m->stall) ?
		    " (since before a model could judge it)" : " (no model yet)", now,
		    m->w.kill_on_hang ? "the job is ended" : "it is reported", when);
	else if (m->conf.basis == CONFIRM_BY_STALL) {
		m->quiet_at_suspicion_s = m->stall.quiet_ms / 1e3;
		log_say("suspected hang — %s; no sampled rank has moved for %.1f s, longer than this job's "
		    "history makes plausible — confirming since %s; %s at %s unless it moves", what,
		    m->quiet_at_suspicion_s, now, m->w.kill_on_hang ? "the job is ended" : "it is reported", when);
	}
	else
		log_say("suspected hang — %s — confirming since %s; %s at %s unless it moves", what, now,
		    m->w.kill_on_hang ? "the job is ended" : "it is reported", when);
}

static void trace_event(struct monitor *m, double t, enum trace_event_kind ev)
{
	if (!m->trace)
		return;
	trace_write_event(m->trace, t - m->t0_ms, ev);
	fflush(m->trace);
}

/* The wall-clock time of the monotonic instant t (a sample's). */
static double wall_at(double t)
{
	return wall_s() - (mono_ms() - t) / 1e3;
}

/* A sample taken at t (monotonic ms) above the threshold, while no suspicion is open: the job
 * was seen computing then, and a hang found later began after it. */
static void note_progress(struct monitor *m, double t, const struct sample_counts *c, const struct detector_info *in)
{
	if (m->conf.state == WATCHING && in->usable && c->out > in->threshold)
		m->last_progress_wall = wall_at(t);
	/* A rank seen to move is the job moving, whatever the S model makes of the sample (a rank
	 * spinning in application code is "out" in every sample of a hang; it never moves). */
	if (c->moved > 0)
		m->last_move_wall = wall_at(t);
}

/* Ranks inside MPI_Init in every sample for longer than the confirmation window (the time a
 * hang elsewhere would have been reported in): said once per round, so that a user - or a test
 * that waits for the job - knows why nothing is suspected: a start-up is given
 * CONFIRM_INIT_GRACE_S (large jobs wire up for minutes) while the ranks not there yet move, a
 * window once they stand still, as stats/confirm.c decides. */
static void note_startup(struct monitor *m, double t, const struct sample_counts *c)
{
	double after_ms = m->conf.window_ms > STARTUP_NOTE_MIN_S * 1e3 ? m->conf.window_ms : STARTUP_NOTE_MIN_S * 1e3;

	if (c->init == 0) {
		m->init_since_ms = -1;
		return;
	}
	if (m->init_since_ms < 0)
		m->init_since_ms = t;
	/* Once a suspicion is open, its own line has said what the start-up shows. */
	if (m->said_startup || m->conf.state != WATCHING || t - m->init_since_ms < after_ms)
		return;
	m->said_startup = true;
	log_say("ranks of the job have been inside MPI_Init for %.0f s (%d of the %d sampled last): still "
		"starting up, as far as the samples tell; a rank not there yet that stands still (its stack, "
		"CPU time and I/O unchanged) for %.0f s is reported, one that moves is given %.0f s",
		(t - m->init_since_ms) / 1e3, c->init, c->live, m->conf.window_ms / 1e3, CONFIRM_INIT_GRACE_S);
}

/* Step 3, act: a confirmed hang (at sample time t; dt its decision time) diagnosed and
 * reported. MONITOR_EXIT_HANG to end the job, else 0. */
static int act_on_hang(struct monitor *m, double t, double dt)
{
	double still_ms = confirm_start_up_still_ms(&m->conf, dt);

	m->confirmed_wall = wall_at(t);
	m->start_up_still_s = still_ms >= 0 ? still_ms / 1e3 : -1;
	if (m->conf.window_ms == 0 && m->conf.basis != CONFIRM_BY_RECORDS) {
		m->window_wall = m->began_wall = m->suspected_wall = m->confirmed_wall;
		m->suspicions_total++; /* no window: suspected and confirmed at once */
	}
	if (!diagnose(m)) {
		confirm_dismiss(&m->conf, dt);
		trace_event(m, t, TRACE_EVENT_SLOWDOWN);
		return 0;
	}
	trace_event(m, t, TRACE_EVENT_HANG);
	m->reported = true;
	return m->w.kill_on_hang ? MONITOR_EXIT_HANG : 0;
}

/* The records prove the hang (proof.c, two snapshots): said in one line, confirmed now. */
static int act_on_proof(struct monitor *m, double t, double dt)
{
	double quiet_s = (dt - m->conf.quiet_since_ms) / 1e3;
	const char *act = m->w.kill_on_hang ? "the job is ended" : "it is reported";

	if (m->conf.state == CONFIRMING) {
		log_say("the suspected hang is proven by the records: %s (the same, no record changed, on a second "
			"snapshot %.0f s later) — confirmed without the rest of the window; %s", m->proof,
			PROOF_RECHECK_MS / 1e3, act);
	} else {
		char what[512];

		suspicion_summary(m, what, sizeof(what));
		/* No suspicion was raised: the quiet stretch is where the hang began. */
		m->suspected_wall = wall_at(t);
		m->window_wall = m->began_wall = m->suspected_wall - quiet_s;
		m->suspicions_total++;
		trace_event(m, t, TRACE_EVENT_SUSPECT);
		log_say("suspected hang — %s; nothing has moved for %.0f s and the records prove it: %s (the same, "
			"no record changed, on a second snapshot %.0f s later) — confirmed without the window; %s",
			what, quiet_s, m->proof, PROOF_RECHECK_MS / 1e3, act);
	}
	confirm_prove(&m->conf, dt);
	/* Confirmed now, after the second snapshot, not at the sample that called for it. */
	return act_on_hang(m, mono_ms(), dt);
}

int pipeline_step(struct monitor *m, double t, const struct sample_counts *c)
{
	struct decide_input in = { .t_ms = t - m->t0_ms, .out = c->out, .live = c->live,
				   .moved = c->moved, .still = c->still, .kernel = c->kernel,
				   .init = c->init, .idle = c->idle, .busy = c->busy };
	struct decide_out out;
	enum confirm_event ev = decide_step(&m->decide, &in, &out);
	struct detector_info di;

	detector_get_info(m->det, &di);
	note_progress(m, t, c, &di);
	note_startup(m, t, c);
	/* A suspicion raised by this very sample is said first; the next sample may prove it. */
	if (ev == CONFIRM_NOTHING && proof_due(m, in.t_ms, c) && proof_check(m, in.t_ms, m->proof, sizeof(m->proof)))
		return act_on_proof(m, t, in.t_ms);
	switch (ev) {
	case CONFIRM_SUSPECTED:
		/* Progress counts only between samples taken from now on. */
		m->since = m->round;
		/* Every time of the steps is its sample's (taken at t, as the window's deadline is),
		 * never the moment its processing ended: a loaded node's slow sample would otherwise
		 * shorten the window on paper (59.87 s of a 60 s one). */
		m->suspected_wall = wall_at(t);
		m->window_wall = m->suspected_wall - (in.t_ms - m->conf.suspected_ms) / 1e3;
		/* Quiet since the window opened; else it began after the last progress seen. */
		m->began_wall = m->conf.basis != CONFIRM_BY_EVIDENCE && m->last_progress_wall > 0 &&
				m->last_progress_wall < m->window_wall ? m->last_progress_wall : m->window_wall;
		trace_event(m, t, TRACE_EVENT_SUSPECT);
		m->suspicions_total++;
		announce_suspicion(m, m->conf.deadline_ms - m->conf.suspected_ms);
		return 0;
	case CONFIRM_MOVED:
		if (c->moved)
			log_say("the suspected hang moved on (a rank waiting in %s got further); watching goes on",
				m->waits_in[0] ? m->waits_in : "MPI");
		else
			log_say("the suspected hang moved on (the sampled ranks compute again); watching goes on");
		/* decide_step dismissed both models' runs. */
		m->since = 0;
		trace_event(m, t, TRACE_EVENT_SLOWDOWN);
		return 0;
	case CONFIRM_HANG:
		return act_on_hang(m, t, in.t_ms);
	case CONFIRM_RESOLVED:
		log_say("the hang reported earlier is over: the job moves again; watching goes on");
		m->since = 0;
		return 0;
	case CONFIRM_NOTHING:
		break;
	}
	return 0;
}
