/* layer_place — the recording layer into a launch line's ranks (see layer_place.h for the
 * contract). Open MPI's rules, as mpirun 4.1 applies them (tested in tests/cli/test-launch.sh):
 * `-x` belongs to the application context it stands in (each side of a ':'), and does not
 * reach an appfile's contexts; mca_base_env_list reaches every context, and its value comes
 * from the command line, else the environment, else a parameter file (a --tune file's --mca,
 * -am files, the default files); `-x` anywhere (command line, --tune file, appfile) beside a
 * list from anywhere is refused. */
#include "layer_place.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHIM_DIR_ENV "PARASTACK_SHIM_DIR"
#define SHIM_LIB_ENV "PARASTACK_RECORD_LIB"
/* Set by the mpirun shim for the real mpirun: the srun it runs to start its daemons (orted)
 * is passed through untouched - the daemons are not ranks. */
#define SHIM_PASS_ENV "PARASTACK_SHIM_PASS"
#define TASK_PROLOG "parastack-task-prolog"
#define FILE_MAX (64 * 1024) /* what is read of a --tune, appfile or parameter file */

static const char *const ompi_names[] = { "mpirun", "mpiexec", "orterun", "mpirun.openmpi",
					  "mpiexec.openmpi", NULL };
static const char *const hydra_names[] = { "mpiexec.hydra", "mpiexec.mpich", "mpirun.mpich",
					   "hydra", NULL };
/* The names a job script's launchers are shimmed under. */
static const char *const shim_names[] = { "mpirun", "mpiexec", "orterun", "srun", "mpiexec.hydra",
					  "mpiexec.mpich", "mpirun.mpich", NULL };

enum launcher_kind { LAUNCHER_OMPI, LAUNCHER_HYDRA, LAUNCHER_SRUN, LAUNCHER_OTHER };

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Keep s (malloc'd) with the placement, to be freed with it; NULL when full or s is NULL. */
static char *keep(struct layer_placement *p, char *s)
{
	if (!s || p->nstrs == LAYER_STRS_MAX) {
		free(s);
		return NULL;
	}
	return p->strs[p->nstrs++] = s;
}

__attribute__((format(printf, 2, 3))) static char *keepf(struct layer_placement *p, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : keep(p, s);
}

/* The file's first FILE_MAX bytes, NUL-terminated (malloc'd; *len, when asked, how many), or
 * NULL. Only a regular file is read (never a FIFO or a device), and never blocks. */
static char *read_small_n(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	ssize_t n = -1;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (buf = malloc(FILE_MAX + 1)))
		n = read(fd, buf, FILE_MAX);
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = (size_t)n;
	return buf;
}

static char *read_small(const char *path)
{
	return read_small_n(path, NULL);
}

/* Where a program is in PATH (or itself when it has a '/'), as its real path; false if none.
 * skip_dir: a directory of PATH to pass over (the shims'). */
static bool find_program(const char *name, const char *skip_dir, char *out, size_t len)
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

static enum launcher_kind kind_of_name(const char *name)
{
	if (in_list(name, ompi_names))
		return LAUNCHER_OMPI;
	if (in_list(name, hydra_names))
		return LAUNCHER_HYDRA;
	return strcmp(name, "srun") ? LAUNCHER_OTHER : LAUNCHER_SRUN;
}

/* Which launcher argv[0] is: by the program it really runs (mpirun may be Open MPI's orterun
 * or MPICH's hydra, as Debian's alternatives say), else by its name. */
static enum launcher_kind launcher_kind(const char *argv0)
{
	char real[PATH_MAX];
	enum launcher_kind k = LAUNCHER_OTHER;

	if (find_program(argv0, getenv(SHIM_DIR_ENV), real, sizeof(real)))
		k = kind_of_name(base_name(real));
	return k != LAUNCHER_OTHER ? k : kind_of_name(base_name(argv0));
}

/* The layer built against MPICH, beside the default (Open MPI) one: DIR/mpich/NAME. */
static char *mpich_sibling(struct layer_placement *p, const char *lib, const char *name)
{
	const char *slash = strrchr(lib, '/');

	return slash ? keepf(p, "%.*s/mpich/%s", (int)(slash - lib), lib, name) : NULL;
}

/* Does the ELF file need MPICH's library (DT_NEEDED libmpich*)? Read as bytes: the dynamic
 * string table holds the names, and a regular file's first FILE_MAX bytes are enough to see
 * it in the programs srun runs (a false "no" only means the default layer). */
static bool needs_mpich(const char *program)
{
	char real[PATH_MAX], *text;
	size_t n = 0;
	bool yes = false;

	if (!find_program(program, getenv(SHIM_DIR_ENV), real, sizeof(real)) ||
	    !(text = read_small_n(real, &n)))
		return false;
	yes = n >= 4 && !memcmp(text, "\177ELF", 4) && memmem(text, n, "libmpich", 8) != NULL;
	free(text);
	return yes;
}

/* srun: Slurm's task prolog (SLURM_TASK_PROLOG, srun's own variable for --task-prolog) runs in
 * each task's environment before it starts and preloads the layer there: srun's argv and the
 * user's --export are untouched, and neither srun nor slurmstepd loads it. */
static void place_srun(struct layer_placement *p, char **argv, const char *lib)
{
	const char *user = getenv("SLURM_TASK_PROLOG");
	const char *slash = strrchr(lib, '/');
	char *prolog = slash ? keepf(p, "%.*s/%s", (int)(slash - lib), lib, TASK_PROLOG) : NULL;

	for (int i = 1; argv[i]; i++) {
		if (!strncmp(argv[i], "--task-prolog", 13) && (!argv[i][13] || argv[i][13] == '=')) {
			snprintf(p->why_not, sizeof(p->why_not), "the srun line has its own --task-prolog");
			return;
		}
		/* An MPICH program gets the layer built against MPICH (its own prolog beside it). */
		if (argv[i][0] != '-' && needs_mpich(argv[i]))
			prolog = mpich_sibling(p, lib, TASK_PROLOG);
	}
	if (!prolog || access(prolog, X_OK) < 0) {
		snprintf(p->why_not, sizeof(p->why_not), "%s is not installed beside %s", TASK_PROLOG, lib);
		return;
	}
	if (user && *user && strcmp(user, prolog)) {
		snprintf(p->why_not, sizeof(p->why_not), "SLURM_TASK_PROLOG is the job's own (%s)", user);
		return;
	}
	p->env[p->nenv][0] = "SLURM_TASK_PROLOG";
	p->env[p->nenv++][1] = prolog;
	p->how = "Slurm's task prolog (SLURM_TASK_PROLOG), in each task";
}

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
		char *text = read_small(f);

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

static bool opt_is(const char *t, const char *name)
{
	return (t[0] == '-' && !strcmp(t + 1, name)) || (t[0] == '-' && t[1] == '-' && !strcmp(t + 2, name));
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
		} else if (opt_is(t, "x")) {
			l->has_x = true;
			if (next && is_preload_item(next))
				l->preload_x[l->nctx - 1] = i + 1;
		} else if ((opt_is(t, "mca") || opt_is(t, "gmca")) && next && i + 2 < l->argc) {
			if (!strcmp(next, "mca_base_env_list"))
				l->list_arg = i + 2;
			else if (!strcmp(next, "mca_base_env_list_delimiter"))
				l->delim = argv[i + 2];
		} else if (opt_is(t, "tune") && next) {
			scan_files(l, next, true);
		} else if (opt_is(t, "am") && next) {
			scan_files(l, next, false);
		} else if (opt_is(t, "app") && next) {
			char *text = read_small(next);

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

/* LD_PRELOAD's value for the ranks: the user's libraries first, in their order, then the layer. */
static char *preload_value(struct layer_placement *p, const char *user, const char *lib)
{
	return user && *user ? keepf(p, "%s:%s", user, lib) : keepf(p, "%s", lib);
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
			return r < 0 ? NULL : keep(p, out);
		}
	}
	char *pre = preload_value(p, getenv("LD_PRELOAD"), lib), *out = NULL;

	if (!pre)
		return NULL;
	if (asprintf(&out, "%s%sLD_PRELOAD=%s", item ? item : "", item ? delim : "", pre) < 0)
		return NULL;
	return keep(p, out);
}

/* The appfile again, in a private directory, with -x LD_PRELOAD in each line (-x on mpirun's
 * command line does not reach an appfile's contexts). */
static char *copy_appfile(struct layer_placement *p, const char *app, const char *lib)
{
	char *text = read_small(app), path[128];
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
			fprintf(out, "-x LD_PRELOAD=%s %s\n", preload_value(p, getenv("LD_PRELOAD"), lib), line);
		}
	}
	free(text);
	return fclose(out) == 0 ? keepf(p, "%s", path) : NULL;
}

static bool new_tmpdir(struct layer_placement *p)
{
	snprintf(p->tmpdir, sizeof(p->tmpdir), "%s", "/tmp/parastack-launch.XXXXXX");
	if (!mkdtemp(p->tmpdir)) {
		p->tmpdir[0] = '\0';
		return false;
	}
	return true;
}

/* A private directory for an appfile copy: the shims' own when running as a shim (removed
 * with them by the `parastack run` that made it), else a new one. */
static bool make_tmpdir(struct layer_placement *p)
{
	const char *shims = getenv(SHIM_DIR_ENV);

	if (p->tmpdir[0])
		return true;
	if (shims && strlen(shims) < sizeof(p->tmpdir)) {
		snprintf(p->tmpdir, sizeof(p->tmpdir), "%s", shims);
		p->borrowed_tmpdir = true;
		return true;
	}
	return new_tmpdir(p);
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
			out[o++] = keepf(p, "LD_PRELOAD=%s", preload_value(p, getenv("LD_PRELOAD"), lib));
		}
		for (int i = l->ctx_start[c]; i < end; i++) {
			if (i == l->preload_x[c]) {
				const char *v = strchr(argv[i], '=');

				out[o++] = keepf(p, "LD_PRELOAD=%s", preload_value(p, v ? v + 1 : getenv("LD_PRELOAD"), lib));
			} else if (i == l->app_arg) {
				char *copy = make_tmpdir(p) ? copy_appfile(p, argv[i], lib) : NULL;

				out[o++] = copy ? copy : argv[i];
				if (!copy)
					snprintf(p->why_not, sizeof(p->why_not), "the appfile %s could not be copied with -x LD_PRELOAD", argv[i]);
			} else {
				out[o++] = argv[i];
			}
		}
	}
	for (int i = 0; i < o; i++)
		if (!out[i]) {
			free(out);
			return -1;
		}
	p->argv = out;
	p->how = "-x LD_PRELOAD in each application context";
	return 0;
}

static int place_ompi(struct layer_placement *p, char **argv, const char *lib)
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

/* MPICH's hydra (mpiexec.hydra, mpiexec.mpich): -genv LD_PRELOAD first, for every section,
 * unless the user's line has its own -genv LD_PRELOAD; the user's -genv or -env LD_PRELOAD
 * values get the layer after theirs.
 * -genvnone, -genvall, -genvlist and -envnone leave an explicit -genv alone. */
static int place_hydra(struct layer_placement *p, char **argv, const char *lib)
{
	char *mlib = mpich_sibling(p, lib, "libparastack-mpi.so");
	int argc = 0, own = 0;
	char **out;

	if (!mlib || access(mlib, R_OK) < 0) {
		snprintf(p->why_not, sizeof(p->why_not), "the layer built for MPICH is not installed (%s)",
			 mlib ? mlib : "?");
		return 0;
	}
	while (argv[argc])
		argc++;
	if (!(out = calloc((size_t)argc + 4, sizeof(char *))))
		return -1;
	out[0] = argv[0];
	for (int i = 1; i < argc; i++)
		own += opt_is(argv[i], "genv") && i + 2 < argc && !strcmp(argv[i + 1], "LD_PRELOAD");
	int o = 1;

	if (!own) {
		out[o++] = "-genv";
		out[o++] = "LD_PRELOAD";
		out[o++] = preload_value(p, getenv("LD_PRELOAD"), mlib);
	}
	for (int i = 1; i < argc; i++) {
		out[o++] = argv[i];
		if ((opt_is(argv[i], "env") || opt_is(argv[i], "genv")) && i + 2 < argc &&
		    !strcmp(argv[i + 1], "LD_PRELOAD")) {
			out[o++] = argv[++i];
			out[o++] = preload_value(p, argv[++i], mlib);
		}
	}
	for (int i = 0; i < o; i++)
		if (!out[i]) {
			free(out);
			return -1;
		}
	p->argv = out;
	p->how = "-genv LD_PRELOAD (the layer built against MPICH)";
	return 0;
}

/* A launcher parastack does not read (a job script): shims for the Open MPI launchers it may
 * run, first in PATH. */
static int place_shims(struct layer_placement *p, const char *lib)
{
	char self[PATH_MAX], link[128];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *path = getenv("PATH");

	if (n <= 0 || !new_tmpdir(p)) {
		snprintf(p->why_not, sizeof(p->why_not), "no private directory for the launcher shims: %s",
			 strerror(errno));
		return 0;
	}
	self[n] = '\0';
	for (int i = 0; shim_names[i]; i++) {
		snprintf(link, sizeof(link), "%s/%s", p->tmpdir, shim_names[i]);
		if (symlink(self, link) < 0) {
			snprintf(p->why_not, sizeof(p->why_not), "symlink %s: %s", link, strerror(errno));
			return 0;
		}
	}
	p->env[p->nenv][0] = "PATH";
	p->env[p->nenv++][1] = keepf(p, "%s:%s", p->tmpdir, path && *path ? path : "/usr/bin:/bin");
	p->env[p->nenv][0] = SHIM_DIR_ENV;
	p->env[p->nenv++][1] = p->tmpdir;
	p->env[p->nenv][0] = SHIM_LIB_ENV;
	p->env[p->nenv++][1] = lib;
	p->how = "shims for mpirun, mpiexec and orterun first in the job's PATH";
	return p->env[0][1] ? 0 : -1;
}

int layer_place(char **argv, const char *lib, struct layer_placement *p)
{
	int rc = 0;

	*p = (struct layer_placement){ .argv = argv };
	if (strpbrk(lib, ": \t\n")) {
		snprintf(p->why_not, sizeof(p->why_not), "its path (%s) has a ':' or a space", lib);
		return 0;
	}
	switch (launcher_kind(argv[0])) {
	case LAUNCHER_OMPI: rc = place_ompi(p, argv, lib); break;
	case LAUNCHER_HYDRA: rc = place_hydra(p, argv, lib); break;
	case LAUNCHER_SRUN: place_srun(p, argv, lib); break;
	case LAUNCHER_OTHER: rc = place_shims(p, lib); break;
	}
	if (rc < 0 || p->why_not[0]) {
		if (p->argv != argv)
			free(p->argv);
		p->argv = argv;
		p->nenv = 0;
		p->how = NULL;
		if (rc < 0)
			snprintf(p->why_not, sizeof(p->why_not), "out of memory");
	}
	return rc;
}

void layer_placement_setenv(const struct layer_placement *p)
{
	for (int i = 0; i < p->nenv; i++)
		setenv(p->env[i][0], p->env[i][1], 1);
}

void layer_placement_free(struct layer_placement *p)
{
	if (p->tmpdir[0] && !p->borrowed_tmpdir) {
		/* Its entries: the shims, and the appfile copies the shims made. */
		int fd = open(p->tmpdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *e;

		for (int n = 0; d && (e = readdir(d)) && n < 4096; n++)
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(fd, e->d_name, 0);
		if (d)
			closedir(d);
		else if (fd >= 0)
			close(fd);
		rmdir(p->tmpdir);
		p->tmpdir[0] = '\0';
	}
	for (int i = 0; i < p->nstrs; i++)
		free(p->strs[i]);
	p->nstrs = 0;
}

bool layer_shim_invoked(const char *argv0)
{
	return getenv(SHIM_DIR_ENV) && in_list(base_name(argv0), shim_names);
}

int layer_shim_main(int argc, char **argv)
{
	const char *dir = getenv(SHIM_DIR_ENV), *lib = getenv(SHIM_LIB_ENV);
	char real[PATH_MAX];
	struct layer_placement p = { .argv = NULL };

	(void)argc;
	if (!find_program(base_name(argv[0]), dir, real, sizeof(real))) {
		fprintf(stderr, "%s: command not found\n", base_name(argv[0]));
		return 127;
	}
	argv[0] = real;
	if (getenv(SHIM_PASS_ENV)) {
		execv(real, argv); /* an srun that mpirun runs for its daemons */
		fprintf(stderr, "%s: cannot run %s: %s\n", base_name(argv[0]), real, strerror(errno));
		return 126;
	}
	if (strcmp(base_name(real), "srun"))
		setenv(SHIM_PASS_ENV, "1", 1);
	if (lib && layer_place(argv, lib, &p) == 0 && !p.why_not[0])
		layer_placement_setenv(&p);
	else if (lib)
		fprintf(stderr, "parastack: recording layer not loaded: %s; communication hangs are "
			"diagnosed from stacks\n", p.why_not[0] ? p.why_not : "out of memory");
	/* An appfile copy stays in the shims' directory, which `parastack run` removes. */
	execv(real, p.argv ? p.argv : argv);
	fprintf(stderr, "%s: cannot run %s: %s\n", base_name(argv[0]), real, strerror(errno));
	return 126;
}
