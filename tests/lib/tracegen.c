/* SPDX-License-Identifier: BSD-3-Clause */
/* tracegen — see tracegen.h. */
#include "tracegen.h"

#include <string.h>

static double jittered(struct tracegen *g, double base, double jitter)
{
	return base * (1.0 + jitter * (2.0 * rng_uniform(&g->rng) - 1.0));
}

static void tracegen_next_iteration(struct tracegen *g, double start)
{
	double slowest = 0.0;

	g->iter_start = start;
	for (int i = 0; i < g->cfg.c; i++) {
		g->finish[i] = start + jittered(g, g->compute_ms, g->jitter);
		if (g->finish[i] > slowest)
			slowest = g->finish[i];
	}
	g->iter_end = slowest + jittered(g, g->comm_ms, g->comm_jitter);
}

void tracegen_config_default(struct tracegen_config *cfg, enum tracegen_kind kind, uint64_t seed)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->kind = kind;
	cfg->c = 10;
	cfg->seed = seed;
	cfg->duration_ms = 60.0 * 60.0 * 1000.0;
	cfg->hang_at_ms = -1.0;
	cfg->hang_s = 0;
}

int tracegen_init(struct tracegen *g, const struct tracegen_config *cfg)
{
	if (cfg->c < 1 || cfg->c > 64)
		return -1;
	memset(g, 0, sizeof(*g));
	g->cfg = *cfg;
	rng_seed(&g->rng, cfg->seed ^ 0x7472616365ULL);
	if (cfg->kind == TRACEGEN_SHORT) {
		g->compute_ms = 1000.0;
		g->jitter = 0.25;
		g->comm_ms = 60.0;
		g->comm_jitter = 0.5;
		g->out_in_comm = 0.02;
		g->in_in_compute = 0.05;
	} else {
		g->compute_ms = 12000.0;
		g->jitter = 0.1;
		g->comm_ms = 7000.0;
		g->comm_jitter = 0.2;
		g->out_in_comm = 0.1;
		g->in_in_compute = 0.05;
	}
	tracegen_next_iteration(g, 0.0);
	return 0;
}

int tracegen_s_at(struct tracegen *g, double t_ms)
{
	if (g->cfg.hang_at_ms >= 0.0 && t_ms >= g->cfg.hang_at_ms)
		return g->cfg.hang_s;
	while (t_ms >= g->iter_end)
		tracegen_next_iteration(g, g->iter_end);

	int s = 0;

	for (int i = 0; i < g->cfg.c; i++) {
		int computing = t_ms < g->finish[i];
		double flip = computing ? g->in_in_compute : g->out_in_comm;

		if (rng_uniform(&g->rng) < flip)
			computing = !computing;
		s += computing;
	}
	return s;
}

static int tracegen_sample_at(void *ctx, double t_ms, double *t_out, int *s_out)
{
	struct tracegen *g = ctx;

	if (t_ms > g->cfg.duration_ms)
		return 1;
	*t_out = t_ms;
	*s_out = tracegen_s_at(g, t_ms);
	return 0;
}

void tracegen_source(struct replay_source *src, struct tracegen *g)
{
	src->sample_at = tracegen_sample_at;
	src->ctx = g;
	src->set_size = g->cfg.c;
	src->start_ms = 0.0;
}
