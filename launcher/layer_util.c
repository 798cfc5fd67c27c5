/* SPDX-License-Identifier: BSD-3-Clause */
/* layer_util — what the launch-line placements of the recording layer share (layer_util.h):
 * strings kept with a placement, small files read without blocking, programs found in PATH,
 * options recognised, the private directory, and the new line adopted. */
#include "layer_util.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *layer_base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Keep s (malloc'd) with the placement, to be freed with it; NULL when full or s is NULL. */
char *layer_keep(struct layer_placement *p, char *s)
{
	if (!s || p->nstrs == LAYER_STRS_MAX) {
		free(s);
		return NULL;
	}
	return p->strs[p->nstrs++] = s;
}

char *layer_keepf(struct layer_placement *p, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : layer_keep(p, s);
}

char *layer_read_small(const char *path)
{
	return layershims_read_file(path, NULL);
}

/* Where a program is in PATH (or itself when it has a '/'), as its real path; false if none.
 * skip_dir: a directory of PATH to pass over (the shims'). */
bool layer_find_program(const char *name, const char *skip_dir, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char cand[PATH_MAX];

	if (strchr(name, '/'))
		return realpath(name, out) != NULL;
	for (const char *p = path ? path : "/usr/bin:/bin"; p;) {
		const char *colon = strchr(p, ':');
		size_t dl = colon ? (size_t)(colon - p) : strlen(p);

		if (dl && !(skip_dir && strlen(skip_dir) == dl && !strncmp(p, skip_dir, dl)) &&
		    (size_t)snprintf(cand, sizeof(cand), "%.*s/%s", (int)dl, p, name) < sizeof(cand) &&
		    access(cand, X_OK) == 0 && realpath(cand, out))
			return true;
		p = colon ? colon + 1 : NULL;
	}
	(void)len;
	return false;
}

bool layer_opt_is(const char *t, const char *name)
{
	return (t[0] == '-' && !strcmp(t + 1, name)) || (t[0] == '-' && t[1] == '-' && !strcmp(t + 2, name));
}

/* LD_PRELOAD's value for the ranks: the user's libraries first, in their order, then the layer. */
char *layer_preload_value(struct layer_placement *p, const char *user, const char *lib)
{
	return user && *user ? layer_keepf(p, "%s:%s", user, lib) : layer_keepf(p, "%s", lib);
}

bool layer_new_tmpdir(struct layer_placement *p)
{
	snprintf(p->tmpdir, sizeof(p->tmpdir), "%s", LAYERSHIMS_DIR_TEMPLATE);
	if (!mkdtemp(p->tmpdir)) {
		p->tmpdir[0] = '\0';
		return false;
	}
	return true;
}

/* A private directory for an appfile copy: the shims' own when running as a shim (removed
 * with them by the `parastack run` that made it), else a new one. */
bool layer_tmpdir(struct layer_placement *p)
{
	const char *shims = getenv(SHIM_DIR_ENV);

	if (p->tmpdir[0])
		return true;
	if (shims && strlen(shims) < sizeof(p->tmpdir)) {
		snprintf(p->tmpdir, sizeof(p->tmpdir), "%s", shims);
		p->borrowed_tmpdir = true;
		return true;
	}
	return layer_new_tmpdir(p);
}

/* The new line (n words) is the placement's, unless a word of it could not be made. */
int layer_adopt_argv(struct layer_placement *p, char **out, int n, const char *how)
{
	for (int i = 0; i < n; i++)
		if (!out[i]) {
			free(out);
			return -1;
		}
	p->argv = out;
	p->how = how;
	return 0;
}
