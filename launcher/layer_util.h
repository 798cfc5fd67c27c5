/* SPDX-License-Identifier: BSD-3-Clause */
/* layer_util — what the launch-line placements of the recording layer share (layer_place.c,
 * layer_ompi.c): strings kept with a placement, small files read without blocking, programs
 * found in PATH, and the new line adopted (layer_util.c). Internal to launcher/. */
#ifndef PARASTACK_LAYER_UTIL_H
#define PARASTACK_LAYER_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/layershims.h"
#include "layer_placement.h"

const char *layer_base_name(const char *path);
/* Keep s (malloc'd) with the placement, to be freed with it; NULL when full or s is NULL. */
char *layer_keep(struct layer_placement *p, char *s);
__attribute__((format(printf, 2, 3))) char *layer_keepf(struct layer_placement *p, const char *fmt, ...);
/* A --tune, appfile or parameter file: layershims_read_file's first bytes, NUL-terminated. */
char *layer_read_small(const char *path);
/* Where a program is in PATH (or itself when it has a '/'), as its real path; skip_dir: a
 * directory of PATH passed over (the shims'). */
bool layer_find_program(const char *name, const char *skip_dir, char *out, size_t len);
/* t is the option -name or --name. */
bool layer_opt_is(const char *t, const char *name);
/* LD_PRELOAD's value for the ranks: the user's libraries first, in their order, then lib. */
char *layer_preload_value(struct layer_placement *p, const char *user, const char *lib);
/* A private directory for a copied file: the shims' when running as one, else a new one. */
bool layer_tmpdir(struct layer_placement *p);
/* A new private directory (p->tmpdir), always. */
bool layer_new_tmpdir(struct layer_placement *p);
/* The new line (n words) is the placement's, unless a word of it could not be made (-1). */
int layer_adopt_argv(struct layer_placement *p, char **out, int n, const char *how);

#endif
