/* SPDX-License-Identifier: BSD-3-Clause */
/* unwind — turn a thread snapshot into the instruction pointers of its frames, innermost
 * first. Backends sit behind this small table (as strace keeps its unwinders), so another
 * unwinder can be added without touching the sampler. */
#ifndef PARASTACK_UNWIND_H
#define PARASTACK_UNWIND_H

#include <stdbool.h>
#include <sys/types.h>

#include "../addr/maps.h"
#include "snapshot.h"

struct unwinder_ops {
	const char *name;
	/* Per-target state (caches kept across samples); NULL on failure. */
	void *(*open)(pid_t pid);
	void (*close)(void *state);
	/* The target's mappings changed: drop what was cached about them. */
	void (*flush)(void *state);
	/* Frames of the snapshot, innermost first, into ips (at most max); the count. For all but
	 * the innermost frame an entry is a return address. When fhash is not NULL, fhash[i] is
	 * frame i's progress hash (progress.h): the callee-saved registers as that frame sees them
	 * and its own stack bytes. *broken: the walk stopped on an error before the outermost
	 * frame (no unwind information, a stack that does not grow), not at its end or at max. */
	int (*unwind)(void *state, const struct snapshot *s, const struct maps *mp, uint64_t *ips,
		      uint64_t *fhash, int max, bool *broken);
};

extern const struct unwinder_ops unwinder_libunwind;

#endif
