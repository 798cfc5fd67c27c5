/* SPDX-License-Identifier: BSD-3-Clause */
/* layer_ompi — the recording layer into an Open MPI launch line (mpirun, mpiexec, orterun):
 * which of Open MPI's two ways of passing variables the line uses, and the layer through it.
 * Open MPI 4.1's rules, as mpirun applies them (tested in tests/cli/test-launch.sh): `-x`
 * belongs to the application context it stands in (each side of a ':') and does not reach an
 * appfile's contexts; mca_base_env_list reaches every context, its value from the command line,
 * else the environment, else a parameter file (a --tune file's --mca, -am files, the default
 * files); `-x` anywhere (command line, --tune file, appfile) beside a list from anywhere is
 * refused by mpirun. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layer_ompi.h"
#include "layer_util.h"

/* What mpirun's line says about passing environment variables. */
struct ompi_line {
	int argc;
	bool has_x;        /* -x anywhere: the command line, a --tune file, the appfile */
	int ctx_start[64]; /* where each application context's options begin */
	int preload_x[64]; /* the index of the user's "LD_PRELOAD[=...]" after -x, per context */
	int nctx;
	int list_arg;      /* the index of the user's --mca mca_base_env_list value */
	const char *delim; /* mca_base_env_list_delimiter */
	int app_arg;       /* the index of --app's file */
	char *file_list;   /* mca_base_env_list from a parameter file (malloc'd) */
};

static bool is_preload_item(const char *s)
{
	return !strncmp(s, "LD_PRELOAD", 10) && (s[10] == '=' || s[10] == '\0');
}

/* A --tune file holds command-line options: -x and --mca mca_base_env_list are what count. */
static void scan_tune_text(struct ompi_line *l, char *text)
{
	char *save = NULL, *prev = NULL, *prev2 = NULL;

	for (char *t = strtok_r(text, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
		if (!strcmp(t, "-x") || !strcmp(t, "--x"))
			l->has_x = true;
		if (prev && prev2 && !strcmp(prev, "mca_base_env_list") &&
		    (!strcmp(prev2, "--mca") || !strcmp(prev2, "-mca")) && !l->file_list)
			l->file_list = strdup(t);
		prev2 = prev;
		prev = t;
	}
}

/* An MCA parameter file: "name = value" lines. */
static void scan_param_text(struct ompi_line *l, const char *text)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *s = line + strspn(line, " \t");
		size_t n = strcspn(s, "\n");

		if (n > 17 && !strncmp(s, "mca_base_env_list", 17) && !l->file_list) {
			const char *v = s + 17 + strspn(s + 17, " \t");

			if (*v == '=') {
				v++;
				v += strspn(v, " \t");
				l->file_list = strndup(v, strcspn(v, "\r\n"));
			}
		}
	}
}

/* Each file of a comma-separated list, through fn. */
static void scan_files(struct ompi_line *l, const char *list, bool tune)
{
	char *copy = strdup(list), *save = NULL;

	for (char *f = copy ? strtok_r(copy, ",", &save) : NULL; f; f = strtok_r(NULL, ",", &save)) {
		char *text = layer_read_small(f);

		if (text && tune)
			scan_tune_text(l, text);
		else if (text)
			scan_param_text(l, text);
		free(text);
	}
	free(copy);
}

static void scan_default_param_files(struct ompi_line *l)
{
	const char *files = getenv("OMPI_MCA_mca_base_param_files");
	const char *home = getenv("HOME");
	char path[PATH_MAX];

	if (files) {
		char *copy = strdup(files);

		for (char *c = copy; c && *c; c++)
			if (*c == ':')
				*c = ',';
		if (copy)
			scan_files(l, copy, false);
		free(copy);
		return;
	}
	if (home && (size_t)snprintf(path, sizeof(path), "%s/.openmpi/mca-params.conf", home) < sizeof(path))
		scan_files(l, path, false);
	scan_files(l, "/etc/openmpi/openmpi-mca-params.conf", false);
}

static void scan_ompi_line(struct ompi_line *l, char **argv)
{
	*l = (struct ompi_line){ .list_arg = -1, .app_arg = -1, .delim = ";", .nctx = 1 };
	l->ctx_start[0] = 1;
	l->preload_x[0] = -1;
	for (l->argc = 0; argv[l->argc]; l->argc++)
		;
	for (int i = 1; i < l->argc; i++) {
		const char *t = argv[i], *next = i + 1 < l->argc ? argv[i + 1] : NULL;

		if (!strcmp(t, ":") && l->nctx < 64) {
			l->ctx_start[l->nctx] = i + 1;
			l->preload_x[l->nctx++] = -1;
		} else if (layer_opt_is(t, "x")) {
			l->has_x = true;
			if (next && is_preload_item(next))
				l->preload_x[l->nctx - 1] = i + 1;
		} else if ((layer_opt_is(t, "mca") || layer_opt_is(t, "gmca")) && next && i + 2 < l->argc) {
			if (!strcmp(next, "mca_base_env_list"))
				l->list_arg = i + 2;
			else if (!strcmp(next, "mca_base_env_list_delimiter"))
				l->delim = argv[i + 2];
		} else if (layer_opt_is(t, "tune") && next) {
			scan_files(l, next, true);
		} else if (layer_opt_is(t, "am") && next) {
			scan_files(l, next, false);
		} else if (layer_opt_is(t, "app") && next) {
			char *text = layer_read_small(next);

			l->app_arg = i + 1;
			if (text && (strstr(text, "-x ") || strstr(text, "-x\t")))
				l->has_x = true;
			free(text);
		}
	}
	if (getenv("OMPI_MCA_mca_base_env_list_delimiter") && l->delim[0] == ';')
		l->delim = getenv("OMPI_MCA_mca_base_env_list_delimiter");
	scan_default_param_files(l);
}

/* An mca_base_env_list with the layer in its LD_PRELOAD item (added when it has none). */
static char *merge_list(struct layer_placement *p, const char *list, const char *delim,
			const char *lib)
{
	const char *item = list && *list ? list : NULL;
	size_t dl = strlen(delim);

	for (const char *s = item; s; s = strstr(s, delim), s = s ? s + dl : NULL) {
		size_t n = strstr(s, delim) ? (size_t)(strstr(s, delim) - s) : strlen(s);

		if (n >= 10 && !strncmp(s, "LD_PRELOAD", 10) && (n == 10 || s[10] == '=')) {
			/* "LD_PRELOAD=v": v then the layer; bare "LD_PRELOAD": mpirun's value. */
			char *head = strndup(list, (size_t)(s - list) + n), *out = NULL;
			const char *env = getenv("LD_PRELOAD");
			int r;

			if (!head)
				return NULL;
			if (n == 10)
				r = asprintf(&out, "%s=%s%s%s%s", head, env && *env ? env : "",
					     env && *env ? ":" : "", lib, s + n);
			else
				r = asprintf(&out, "%s:%s%s", head, lib, s + n);
			free(head);
			return r < 0 ? NULL : layer_keep(p, out);
		}
	}
	char *pre = layer_preload_value(p, getenv("LD_PRELOAD"), lib), *out = NULL;

	if (!pre)
		return NULL;
	if (asprintf(&out, "%s%sLD_PRELOAD=%s", item ? item : "", item ? delim : "", pre) < 0)
		return NULL;
	return layer_keep(p, out);
}

/* The appfile again, in a private directory, with -x LD_PRELOAD in each line (-x on mpirun's
 * command line does not reach an appfile's contexts). */
static char *copy_appfile(struct layer_placement *p, const char *app, const char *lib)
{
	char *text = layer_read_small(app), path[128];
	FILE *out;

	if (!text)
		return NULL;
	snprintf(path, sizeof(path), "%s/appfile.%d", p->tmpdir, (int)getpid());
	if (!p->tmpdir[0] || !(out = fopen(path, "wx"))) {
		free(text);
		return NULL;
	}
	for (char *line = text, *nl; line && *line; line = nl) {
		char *pre = strstr(line, "-x LD_PRELOAD");

		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		if (line[strspn(line, " \t")] == '#' || !line[strspn(line, " \t")]) {
			fprintf(out, "%s\n", line);
		} else if (pre && (pre[13] == '=' || pre[13] == ' ' || pre[13] == '\0')) {
			/* Merge: the user's value, then the layer. */
			char *end = pre + 13 + strcspn(pre + 13 + (pre[13] == '='), " \t") + (pre[13] == '=');
			const char *env = getenv("LD_PRELOAD");

			if (pre[13] == '=')
				fprintf(out, "%.*s:%s%s\n", (int)(end - line), line, lib, end);
			else
				fprintf(out, "%.*s=%s%s%s%s\n", (int)(pre + 13 - line), line,
					env && *env ? env : "", env && *env ? ":" : "", lib, pre + 13);
		} else {
			fprintf(out, "-x LD_PRELOAD=%s %s\n", layer_preload_value(p, getenv("LD_PRELOAD"), lib), line);
		}
	}
	free(text);
	return fclose(out) == 0 ? layer_keepf(p, "%s", path) : NULL;
}

/* The user's line through -x: one per context, or merged into theirs. */
static int place_by_x(struct layer_placement *p, char **argv, const struct ompi_line *l,
		      const char *lib)
{
	char **out = calloc((size_t)l->argc + 2 * (size_t)l->nctx + 1, sizeof(char *));
	int o = 0;

	if (!out)
		return -1;
	out[o++] = argv[0];
	for (int c = 0; c < l->nctx; c++) {
		int end = c + 1 < l->nctx ? l->ctx_start[c + 1] : l->argc;

		if (l->preload_x[c] < 0 && l->app_arg < 0) {
			out[o++] = "-x";
			out[o++] = layer_keepf(p, "LD_PRELOAD=%s", layer_preload_value(p, getenv("LD_PRELOAD"), lib));
		}
		for (int i = l->ctx_start[c]; i < end; i++) {
			if (i == l->preload_x[c]) {
				const char *v = strchr(argv[i], '=');

				out[o++] = layer_keepf(p, "LD_PRELOAD=%s", layer_preload_value(p, v ? v + 1 : getenv("LD_PRELOAD"), lib));
			} else if (i == l->app_arg) {
				char *copy = layer_tmpdir(p) ? copy_appfile(p, argv[i], lib) : NULL;

				out[o++] = copy ? copy : argv[i];
				if (!copy)
					snprintf(p->why_not, sizeof(p->why_not), "the appfile %s could not be copied with -x LD_PRELOAD", argv[i]);
			} else {
				out[o++] = argv[i];
			}
		}
	}
	return layer_adopt_argv(p, out, o, "-x LD_PRELOAD in each application context");
}

int layer_place_ompi(struct layer_placement *p, char **argv, const char *lib)
{
	struct ompi_line l;
	const char *env_list = getenv("OMPI_MCA_mca_base_env_list");
	int rc = 0;

	scan_ompi_line(&l, argv);
	if (strstr(lib, l.delim)) {
		snprintf(p->why_not, sizeof(p->why_not), "its path has the list delimiter '%s'", l.delim);
	} else if (l.has_x && (l.list_arg >= 0 || (env_list && *env_list) || l.file_list)) {
		snprintf(p->why_not, sizeof(p->why_not), "the line mixes mpirun -x with "
			 "mca_base_env_list, which Open MPI refuses by itself");
	} else if (l.has_x) {
		rc = place_by_x(p, argv, &l, lib);
	} else if (l.list_arg >= 0) {
		char **out = calloc((size_t)l.argc + 1, sizeof(char *));

		if (!out) {
			rc = -1;
		} else {
			memcpy(out, argv, (size_t)l.argc * sizeof(char *));
			out[l.list_arg] = merge_list(p, argv[l.list_arg], l.delim, lib);
			if (!out[l.list_arg]) {
				free(out);
				rc = -1;
			} else {
				p->argv = out;
				p->how = "the line's own --mca mca_base_env_list";
			}
		}
	} else {
		const char *v = merge_list(p, env_list && *env_list ? env_list : l.file_list, l.delim, lib);

		if (!v) {
			rc = -1;
		} else {
			p->env[p->nenv][0] = "OMPI_MCA_mca_base_env_list";
			p->env[p->nenv++][1] = v;
			p->how = "OMPI_MCA_mca_base_env_list in mpirun's environment";
		}
	}
	free(l.file_list);
	return rc;
}

