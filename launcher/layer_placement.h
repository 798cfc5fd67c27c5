/* SPDX-License-Identifier: BSD-3-Clause */
/* layer_placement — the recording layer's placement in a launch line, as layer_place() returns
 * it (the contract is layer_place.h's) and as the placements of each launcher (layer_ompi.c,
 * layer_util.c) build it. A type only. Internal to launcher/. */
#ifndef PARASTACK_LAYER_PLACEMENT_H
#define PARASTACK_LAYER_PLACEMENT_H

#include <stdbool.h>

#define LAYER_ENV_MAX 6
#define LAYER_STRS_MAX 64

struct layer_placement {
	char **argv;                  /* the line to exec (NULL-terminated) */
	const char *env[LAYER_ENV_MAX][2]; /* variables to set in the launcher's environment */
	int nenv;
	const char *how;              /* how it was placed (for tests and the man page's words) */
	char why_not[256];            /* empty when placed; else why not, as one phrase */
	char tmpdir[64];              /* a private directory of shims or an appfile copy, or "" */
	bool borrowed_tmpdir;         /* it is the shims' (a shim's placement): not removed */
	char *strs[LAYER_STRS_MAX];   /* strings allocated for argv/env */
	int nstrs;
};

#endif
