/* SPDX-License-Identifier: BSD-3-Clause */
/* rng — the one seedable random generator behind every random choice parastack makes
 * (sampling steps, rank sets), so tests and replays repeat exactly. xoshiro256** seeded
 * through splitmix64. */
#ifndef PARASTACK_RNG_H
#define PARASTACK_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform double in [0, 1). */
double rng_uniform(struct rng *r);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t rng_below(struct rng *r, uint64_t n);

#endif
