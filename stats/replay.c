/* SPDX-License-Identifier: BSD-3-Clause */
/* replay — the live sampling loop with the clock replaced by a source's timeline. */
#include "replay.h"

static int trace_sample_at(void *ctx, double t_ms, double *t_out, int *s_out)
{
	struct replay_trace *rt = ctx;
	size_t i = trace_find(rt->tr, rt->next, t_ms);

	if (i >= rt->tr->len)
		return 1;
	rt->next = i + 1;
	*t_out = rt->tr->points[i].t_ms;
	*s_out = rt->tr->points[i].s;
	return 0;
}

void replay_trace_source(struct replay_source *src, struct replay_trace *rt, const struct trace *tr)
{
	rt->tr = tr;
	rt->next = 0;
	src->sample_at = trace_sample_at;
	src->ctx = rt;
	src->set_size = tr->len ? tr->points[0].c : 1;
	src->start_ms = tr->len ? tr->points[0].t_ms : 0.0;
}

int replay_run(const struct replay_source *src, const struct detector_config *cfg,
	       struct replay_result *res)
{
	struct detector_config c = *cfg;

	c.set_size = src->set_size;

	struct detector *d = detector_new(&c);

	if (!d)
		return -1;
	res->hang = false;
	res->detected_at_ms = 0.0;

	double t = src->start_ms, at;
	int s;

	res->last_ms = t;
	while (src->sample_at(src->ctx, t, &at, &s) == 0) {
		res->last_ms = at;
		if (detector_add(d, at, s) == DETECTOR_HANG) {
			res->hang = true;
			res->detected_at_ms = at;
			break;
		}
		t = at + detector_next_step_ms(d);
	}
	detector_get_info(d, &res->info);
	detector_free(d);
	return 0;
}

bool replay_has_progress(const struct trace *tr)
{
	for (size_t i = 0; i < tr->len; i++)
		if (!tr->points[i].has_progress)
			return false;
	return tr->len > 0;
}

int replay_decide(const struct trace *tr, const struct detector_config *cfg, double confirm_s,
		  struct replay_decision *res)
{
	struct detector_config c = *cfg;
	struct stall st;
	struct confirm conf;

	c.set_size = tr->len ? tr->points[0].c : 1;
	if (tr->has_watch)
		c.nsets = tr->nsets;

	struct detector *det = detector_new(&c);

	if (!det)
		return -1;
	stall_init(&st, c.alpha);
	confirm_init(&conf, confirm_s);

	struct decide d = { det, &st, &conf, false };

	*res = (struct replay_decision){ 0 };
	for (size_t i = 0; i < tr->len; i++) {
		const struct trace_point *p = &tr->points[i];
		struct decide_input in = { p->t_ms, p->s, p->live, p->moved, p->still, p->kernel, p->init, p->idle, p->busy };
		struct decide_out out;
		enum confirm_event ev = decide_step(&d, &in, &out);

		res->samples++;
		res->last_ms = p->t_ms;
		if (ev == CONFIRM_SUSPECTED) {
			res->suspected = true;
			res->suspected_ms = p->t_ms;
			res->basis = conf.basis;
			res->window_start_ms = conf.suspected_ms;
		}
		if (ev == CONFIRM_HANG) {
			res->hang = true;
			res->hang_ms = p->t_ms;
			if (!res->suspected) { /* --confirm 0: the verdict is the hang */
				res->suspected = true;
				res->suspected_ms = p->t_ms;
				res->basis = conf.basis;
				res->window_start_ms = p->t_ms;
			}
			break;
		}
	}
	res->suspicions = conf.suspicions;
	res->dismissed = conf.dismissed;
	detector_get_info(det, &res->info);
	stall_get_info(&st, &res->stall);
	detector_free(det);
	return 0;
}
