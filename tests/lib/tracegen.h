/* SPDX-License-Identifier: BSD-3-Clause */
/* tracegen — synthetic S(t) of a bulk-synchronous MPI job, for testing the model without
 * running for hours. Each of the C sampled ranks computes for its own jittered time per
 * iteration, then waits in MPI until the slowest is done plus a communication time; a hang
 * pins S at a fixed value from a given time on. Deterministic for a seed. */
#ifndef PARASTACK_TRACEGEN_H
#define PARASTACK_TRACEGEN_H

#include <stdint.h>

#include "../../stats/replay.h"
#include "../../stats/rng.h"

enum tracegen_kind {
	TRACEGEN_SHORT, /* ~1 s compute + short collectives: period about 1.3 s */
	TRACEGEN_LONG,  /* ~12 s compute, ~7 s communication: period about 20 s */
};

struct tracegen_config {
	enum tracegen_kind kind;
	int c;              /* ranks in the sampled set */
	uint64_t seed;
	double duration_ms; /* the source ends here */
	double hang_at_ms;  /* < 0: healthy */
	int hang_s;         /* S after the hang (0: everybody waits in MPI) */
};

struct tracegen {
	struct tracegen_config cfg;
	struct rng rng;
	double compute_ms, jitter, comm_ms, comm_jitter;
	double out_in_comm, in_in_compute; /* per-sample state noise */
	double iter_start, iter_end;
	double finish[64];                 /* per-rank end of compute, this iteration */
};

void tracegen_config_default(struct tracegen_config *cfg, enum tracegen_kind kind, uint64_t seed);
/* c must be 1..64. */
int tracegen_init(struct tracegen *g, const struct tracegen_config *cfg);
/* S at time t_ms; calls must come in non-decreasing t. */
int tracegen_s_at(struct tracegen *g, double t_ms);
/* A replay source sampling the generator exactly at the requested times. */
void tracegen_source(struct replay_source *src, struct tracegen *g);

#endif
