/* SPDX-License-Identifier: BSD-3-Clause */
/* timeline — the detector replayed over every point of a trace, one row per sample. */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

/* When the first hang was seen: the model's verdict, else the first hang the monitor recorded
 * (confirmed on progress evidence alone); < 0 when none. */
static double timeline_first_hang(const struct trace *tr, const struct timeline *tl)
{
	if (tl->first_hang_ms >= 0)
		return tl->first_hang_ms;
	for (size_t i = 0; i < tr->nevents; i++)
		if (tr->events[i].kind == TRACE_EVENT_HANG)
			return tr->events[i].t_ms;
	return -1.0;
}

/* When the hang the monitor reported was suspected: the last recorded suspicion before its
 * first recorded hang (earlier suspicions were dismissed: the job moved on after them); without
 * recorded checks, the model's first verdict. */
static double timeline_reported_suspicion(const struct trace *tr, const struct timeline *tl)
{
	double suspect = -1.0;

	for (size_t i = 0; i < tr->nevents; i++) {
		if (tr->events[i].kind == TRACE_EVENT_HANG)
			return suspect >= 0 ? suspect : tr->events[i].t_ms;
		if (tr->events[i].kind == TRACE_EVENT_SUSPECT)
			suspect = tr->events[i].t_ms;
	}
	return timeline_first_hang(tr, tl);
}

/* The last row before the reported hang's suspicion whose sample was above the threshold, as
 * the monitor notes it (report.json's confirmation.last_progress_at): only while no suspicion
 * is being confirmed — from a recorded suspicion until the check that dismissed it, a sample of
 * the job computing is the confirmation's business. */
static double timeline_last_progress(const struct trace *tr, const struct timeline *tl)
{
	double hang = timeline_reported_suspicion(tr, tl), last = -1.0;
	bool confirming = false;
	size_t ev = 0;

	for (size_t i = 0; hang >= 0 && i < tl->len && tl->rows[i].t_ms < hang; i++) {
		for (; ev < tr->nevents && tr->events[ev].t_ms <= tl->rows[i].t_ms; ev++)
			confirming = tr->events[ev].kind != TRACE_EVENT_SLOWDOWN;
		if (!confirming && tl->rows[i].threshold >= 0 && tl->rows[i].s > tl->rows[i].threshold)
			last = tl->rows[i].t_ms;
	}
	return last;
}

/* Apply the recorded checks decided at or before t_ms; *next indexes tr->events. */
static void timeline_apply_events(const struct trace *tr, size_t *next, double t_ms,
				  struct detector *d)
{
	for (; *next < tr->nevents && tr->events[*next].t_ms <= t_ms; (*next)++)
		if (tr->events[*next].kind == TRACE_EVENT_SLOWDOWN)
			detector_dismiss(d);
}

int timeline_build(const struct trace *tr, const struct detector_config *cfg, bool resample,
		   struct timeline *tl)
{
	struct detector_config c = *cfg;
	struct detector_info in;
	struct detector *d;
	size_t ev = 0;

	memset(tl, 0, sizeof(*tl));
	tl->first_hang_ms = -1.0;
	tl->last_progress_ms = -1.0;
	c.set_size = tr->len ? tr->points[0].c : 1;
	if (!(d = detector_new(&c)))
		return -1;
	if (tr->len && !(tl->rows = calloc(tr->len, sizeof(*tl->rows)))) {
		detector_free(d);
		return -1;
	}
	for (size_t i = 0; i < tr->len;) {
		const struct trace_point *p = &tr->points[i];
		struct timeline_row *r = &tl->rows[tl->len++];

		r->verdict = detector_add(d, p->t_ms, p->s);
		detector_get_info(d, &in);
		r->t_ms = p->t_ms;
		r->s = p->s;
		r->threshold = in.usable ? in.threshold : -1;
		r->interval_ms = in.interval_ms;
		if (r->verdict == DETECTOR_HANG && tl->first_hang_ms < 0)
			tl->first_hang_ms = p->t_ms;
		timeline_apply_events(tr, &ev, p->t_ms, d);
		i = resample ? trace_find(tr, i + 1, p->t_ms + detector_next_step_ms(d)) : i + 1;
	}
	detector_get_info(d, &in);
	tl->doublings = in.doublings;
	tl->last_progress_ms = timeline_last_progress(tr, tl);
	detector_free(d);
	return 0;
}

void timeline_free(struct timeline *tl)
{
	free(tl->rows);
	memset(tl, 0, sizeof(*tl));
}
