/* SPDX-License-Identifier: BSD-3-Clause */
/* stragglers — the slow rank, from the model to the user's lines and reports (stragglers.h). */
#include "stragglers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/clock.h"
#include "../../base/log.h"
#include "site.h"

int stragglers_setup(struct monitor *m)
{
	m->strag_pending = -1;
	if (!m->stragglers)
		m->stragglers = json_array();
	return m->stragglers && straggler_init(&m->strag, m->job.nranks, m->w.opt.model.alpha) == 0 ? 0 : -1;
}

static void say_flagged(const struct monitor *m, int i)
{
	struct straggler_info in;
	char since[32];

	straggler_info(&m->strag, i, &in);
	wall_clock_text(in.since, since, sizeof(since));
	log_say("rank %d holds the job back since %s: the others wait for it %.0f %% of the time, it waits %.0f %% "
		"(confidence %.2f %%; a straggler, not a hang)",
		m->job.table[i].rank, since, 100 * in.mates, 100 * in.own, 100 * in.confidence);
}

/* A straggler is said only while the hang model sees the job run (no suspicion being confirmed,
 * the latest sample not suspicious) and a rank was seen to move since it was named: a rank that
 * stops dead while the others wait looks like a straggler to the pace model for the samples
 * before the hang model raises its suspicion, and "a straggler, not a hang" before "suspected
 * hang" would contradict the verdict. On a loaded node the S model's samples of a spinning rank
 * (out of MPI in half of them) break its runs for tens of seconds; nothing moves meanwhile. */
static bool job_seen_running(const struct monitor *m, const struct straggler_info *in)
{
	struct detector_info d;

	if (m->conf.state != WATCHING || !m->det || m->last_move_wall <= in->flagged_at)
		return false;
	detector_get_info(m->det, &d);
	return d.run_length == 0;
}

/* The rank named and not said yet: said now if the job is seen running; forgotten if it ended
 * before it could be (never said). */
static void say_pending(struct monitor *m)
{
	struct straggler_info in;
	int i = m->strag_pending;

	if (i < 0)
		return;
	if (!straggler_info(&m->strag, i, &in) || !in.flagged) {
		m->strag_pending = -1;
	} else if (job_seen_running(m, &in)) {
		say_flagged(m, i);
		m->stragglers_total++;
		site_stragglers_gauge(m, m->strag.nflagged);
		site_metrics_flush(m);
		m->strag_pending = -1;
	}
}

void stragglers_round(struct monitor *m, const int *idx, int size, const signed char *waits, bool start_up)
{
	int was = -1;
	struct straggler_info in;

	/* After a hang is reported the job is hung: its pace says nothing more. */
	if (!m->strag.r || m->reported)
		return;
	for (int k = 0; k < size; k++)
		if (straggler_info(&m->strag, idx[k], &in) && in.flagged && idx[k] != m->strag_pending)
			was = idx[k]; /* flagged, said and sampled now: its end can come in this round */

	int now = straggler_round(&m->strag, idx, waits, size, wall_s(), start_up);

	if (now >= 0)
		m->strag_pending = now;
	say_pending(m);
	/* A rank that stops holding the job back is said once, as its start was. */
	if (was >= 0 && straggler_info(&m->strag, was, &in) && !in.flagged) {
		log_info("rank %d no longer holds the job back: it waits as much as the others", m->job.table[was].rank);
		site_stragglers_gauge(m, m->strag.nflagged);
	}
}

static json_t *entry_json(const struct monitor *m, int i, const struct straggler_info *in)
{
	json_t *e = json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "rank", m->job.table[i].rank, "since",
			      in->since, "flagged_at", in->flagged_at, "others_wait", in->flag_mates, "own_wait",
			      in->flag_own, "confidence", in->confidence, "others_wait_now", in->mates, "own_wait_now",
			      in->own);

	json_object_set_new(e, "until", in->until > 0 ? json_real(in->until) : json_null());
	return e;
}

/* This round's ranks that were ever flagged, appended to arr. */
static void round_entries(const struct monitor *m, json_t *arr)
{
	for (int i = 0; m->strag.r && i < m->strag.nranks; i++) {
		struct straggler_info in;

		if (straggler_info(&m->strag, i, &in) && in.ever)
			json_array_append_new(arr, entry_json(m, i, &in));
	}
}

void stragglers_round_end(struct monitor *m)
{
	if (m->stragglers)
		round_entries(m, m->stragglers);
	straggler_free(&m->strag);
	m->strag_pending = -1;
}

json_t *stragglers_json(const struct monitor *m)
{
	json_t *all = m->stragglers ? json_copy(m->stragglers) : json_array();

	round_entries(m, all);
	return all;
}

static bool is_faulty(json_t *report, json_int_t rank)
{
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(report, "faulty_ranks"), i, v)
		if (json_integer_value(v) == rank)
			return true;
	return false;
}

/* When the hang began, as early as the confirmation's times tell: began_at, the last progress
 * seen, or (the stall model's suspicion) the start of the quiet stretch it measured. A loaded
 * machine's last sample "with progress" can come seconds into a spin; the quiet stretch cannot. */
static double hang_onset(json_t *report)
{
	json_t *c = json_object_get(report, "confirmation");
	json_t *began = json_object_get(c, "began_at"), *last = json_object_get(c, "last_progress_at");
	json_t *quiet = json_object_get(c, "quiet_at_suspicion_s"), *suspected = json_object_get(c, "suspected_at");
	double t = json_is_number(began) ? json_number_value(began) : -1;

	if (json_is_number(last) && (t < 0 || json_number_value(last) < t))
		t = json_number_value(last);
	if (json_is_number(quiet) && json_is_number(suspected) &&
	    (t < 0 || json_number_value(suspected) - json_number_value(quiet) < t))
		t = json_number_value(suspected) - json_number_value(quiet);
	return t;
}

/* A hang report keeps the stragglers named before the hang began: one named only after is the
 * hung rank seen by the pace model, the hang itself. Before it began means the job was seen to
 * move after the rank was named (a rank moved: progress.h), as well as before the earliest
 * onset the confirmation's times tell: on a loaded node those can come seconds into a rank's
 * spin, when the pace model has already named it (CI: the demo's spinning rank "had been
 * slowing the job"). */
static json_t *named_before_hang(const struct monitor *m, json_t *all, json_t *report)
{
	double onset = hang_onset(report);
	json_t *kept, *e;
	size_t i;

	if (onset < 0 || m->last_move_wall < onset)
		onset = m->last_move_wall;
	kept = json_array();
	json_array_foreach(all, i, e)
		if (json_number_value(json_object_get(e, "flagged_at")) < onset)
			json_array_append(kept, e);
	json_decref(all);
	return kept;
}

void stragglers_report(const struct monitor *m, json_t *report)
{
	json_t *all = named_before_hang(m, stragglers_json(m), report), *e, *diag = json_object_get(report, "diagnosis");
	size_t i;

	json_array_foreach(all, i, e) {
		json_int_t rank = json_integer_value(json_object_get(e, "rank"));
		char since[32], line[256];

		if (!is_faulty(report, rank))
			continue;
		wall_clock_text(json_real_value(json_object_get(e, "since")), since, sizeof(since));
		snprintf(line, sizeof(line), "rank %lld had been slowing the job since %s before it hung (the others waited "
			 "for it %.0f %% of the time, it %.0f %%)", (long long)rank, since,
			 100 * json_real_value(json_object_get(e, "others_wait")),
			 100 * json_real_value(json_object_get(e, "own_wait")));
		if (!json_is_array(diag)) {
			diag = json_array();
			json_object_set_new(report, "diagnosis", diag);
		}
		json_array_append_new(diag, json_string(line));
	}
	json_object_set_new(report, "stragglers", all);
}

void stragglers_text(const struct monitor *m, char *buf, size_t len)
{
	json_t *all = stragglers_json(m), *e = json_array_get(all, json_array_size(all) - 1);
	char since[32];

	buf[0] = '\0';
	/* One not said yet (a suspicion is open) is not said here either. */
	if (e && m->strag_pending >= 0 && json_integer_value(json_object_get(e, "rank")) == m->job.table[m->strag_pending].rank &&
	    json_is_null(json_object_get(e, "until")))
		e = json_array_get(all, json_array_size(all) - 2);
	if (e) {
		bool now = json_is_null(json_object_get(e, "until"));

		wall_clock_text(json_real_value(json_object_get(e, "since")), since, sizeof(since));
		snprintf(buf, len, "rank %lld %s the job back since %s%s (the others waited for it %.0f %% of the time, it %.0f %%)",
			 (long long)json_integer_value(json_object_get(e, "rank")), now ? "holds" : "held", since,
			 now ? "" : ", for a while", 100 * json_real_value(json_object_get(e, "others_wait")),
			 100 * json_real_value(json_object_get(e, "own_wait")));
	}
	json_decref(all);
}
