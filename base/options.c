/* SPDX-License-Identifier: BSD-3-Clause */
/* options — strict number parsing: the whole argument must be a finite number in range,
 * so "--alpha 0.0O1" or "--interval -5" fail with a message instead of meaning something. */
#include "options.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


void cmd_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	/* The front ends are programs of their own ("parastack-sbatch: ..."). */
	fprintf(stderr, strncmp(cmd, "parastack-", 10) ? "parastack %s: " : "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int option_double(const char *cmd, const char *name, const char *arg, double min_excl,
		  double max_incl, double *out)
{
	char *end;

	errno = 0;
	double v = strtod(arg, &end);

	if (!*arg || *end || errno || !isfinite(v)) {
		cmd_error(cmd, "--%s: '%s' is not a number", name, arg);
		return -1;
	}
	if (!(v > min_excl) || v > max_incl) {
		cmd_error(cmd, "--%s: %s is out of range (must be > %g and <= %g)", name, arg,
			  min_excl, max_incl);
		return -1;
	}
	*out = v;
	return 0;
}

int option_int(const char *cmd, const char *name, const char *arg, long min, long max, int *out)
{
	char *end;

	errno = 0;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || errno) {
		cmd_error(cmd, "--%s: '%s' is not a whole number", name, arg);
		return -1;
	}
	if (v < min || v > max) {
		cmd_error(cmd, "--%s: %ld is out of range (%ld..%ld)", name, v, min, max);
		return -1;
	}
	*out = (int)v;
	return 0;
}

int option_u64(const char *cmd, const char *name, const char *arg, uint64_t *out)
{
	char *end;

	errno = 0;
	if (!*arg || *arg == '-') {
		cmd_error(cmd, "--%s: '%s' is not a non-negative whole number", name, arg);
		return -1;
	}
	uintmax_t v = strtoumax(arg, &end, 10);

	if (*end || errno || v > UINT64_MAX) {
		cmd_error(cmd, "--%s: '%s' is not a non-negative whole number below 2^64", name, arg);
		return -1;
	}
	*out = (uint64_t)v;
	return 0;
}

void common_options_default(struct common_options *o)
{
	memset(o, 0, sizeof(*o));
	detector_config_default(&o->model);
}

/* A sampling interval in ms: at least DETECTOR_MIN_INTERVAL_MS, or ranks would be stopped
 * nearly all the time. */
static int option_interval(const char *cmd, const char *name, const char *arg, double max,
			   double *out)
{
	double v;

	if (option_double(cmd, name, arg, 0.0, max, &v) < 0)
		return -1;
	if (v < DETECTOR_MIN_INTERVAL_MS) {
		cmd_error(cmd, "--%s: %s ms is below %g ms; sampling that often would keep ranks stopped",
			  name, arg, DETECTOR_MIN_INTERVAL_MS);
		return -1;
	}
	*out = v;
	return 0;
}

int common_option_apply(const char *cmd, struct common_options *o, const char *name,
			const char *arg)
{
	if (!strcmp(name, "alpha"))
		return option_double(cmd, name, arg, 0.0, 0.5, &o->model.alpha);
	if (!strcmp(name, "interval"))
		return option_interval(cmd, name, arg, 3600e3, &o->model.interval_ms);
	if (!strcmp(name, "max-interval"))
		return option_interval(cmd, name, arg, 86400e3, &o->model.max_interval_ms);
	if (!strcmp(name, "set-size")) {
		o->set_size_given = true;
		return option_int(cmd, name, arg, 1, DETECTOR_MAX_SET_SIZE, &o->model.set_size);
	}
	if (!strcmp(name, "seed"))
		return option_u64(cmd, name, arg, &o->model.seed);
	return 1;
}

int common_options_check(const char *cmd, const struct common_options *o)
{
	if (o->model.interval_ms > o->model.max_interval_ms) {
		cmd_error(cmd, "--interval %g ms is above --max-interval %g ms; lower --interval or raise --max-interval",
			  o->model.interval_ms, o->model.max_interval_ms);
		return -1;
	}
	return 0;
}

int common_options_match_trace(const char *cmd, const struct common_options *o, const char *path,
			       int c)
{
	if (o->set_size_given && o->model.set_size != c) {
		cmd_error(cmd, "%s: the trace's set size is C = %d but --set-size is %d; drop --set-size or pass the matching trace",
			  path, c, o->model.set_size);
		return -1;
	}
	return 0;
}

/* Edit distance between a and b (short strings: option names). */
static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0], up;

		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = a[i - 1] == b[j - 1] ? diag :
				 1 + (diag < up ? (diag < row[j - 1] ? diag : row[j - 1]) : (up < row[j - 1] ? up : row[j - 1]));
			diag = up;
		}
	}
	return row[lb];
}

void option_unknown(const char *cmd, char **argv, const struct option *longopts)
{
	const char *word = argv[optind - 1], *best = NULL;
	char name[64];
	int best_d = 3;

	/* getopt_long may have stepped past the value it took: the option is the word before. */
	if (word[0] != '-' && optind >= 2)
		word = argv[optind - 2];
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(word + strspn(word, "-"), "="), word + strspn(word, "-"));
	for (const struct option *o = longopts; word[0] == '-' && word[1] == '-' && o->name; o++) {
		int d = edit_distance(name, o->name);

		if (!strcmp(name, o->name) && o->has_arg == required_argument) {
			cmd_error(cmd, "option '--%s' needs a value; see 'parastack %s --help'", o->name, cmd);
			return;
		}
		if (d < best_d || (strlen(name) >= 3 && !strncmp(o->name, name, strlen(name)) && best_d > 1)) {
			best_d = d < best_d ? d : 1;
			best = o->name;
		}
	}
	if (best)
		cmd_error(cmd, "unknown option '%s'; did you mean '--%s'? (see 'parastack %s --help')", word,
			  best, cmd);
	else
		cmd_error(cmd, "unknown option '%s'; see 'parastack %s --help'", word, cmd);
}

bool wants_version(int argc, char **argv, bool stop_at_word)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--version"))
			return true;
		if (stop_at_word && argv[i][0] != '-')
			return false;
	}
	return false;
}

int option_output_path(const char *cmd, const char *opt, const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!*path) {
		cmd_error(cmd, "--%s: empty file name", opt);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
		 slash ? path : ".");
	if (access(dir, W_OK) < 0) {
		cmd_error(cmd, "--%s %s: cannot write in %s: %s", opt, path, dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* --report-ranks all|summary|auto. */
static int option_report_ranks(const char *cmd, const char *arg, enum report_ranks *out)
{
	if (!strcmp(arg, "all") || !strcmp(arg, "summary") || !strcmp(arg, "auto")) {
		*out = !strcmp(arg, "all") ? REPORT_RANKS_ALL : !strcmp(arg, "summary") ? REPORT_RANKS_SUMMARY :
		       REPORT_RANKS_AUTO;
		return 0;
	}
	cmd_error(cmd, "--report-ranks: '%s' is none of all, summary, auto", arg);
	return -1;
}

int option_on_hang(const char *cmd, const char *arg, bool *kill)
{
	if (strcmp(arg, "kill") && strcmp(arg, "report")) {
		cmd_error(cmd, "--on-hang: '%s' is neither kill nor report", arg);
		return -1;
	}
	*kill = !strcmp(arg, "kill");
	return 0;
}

char *option_absolute_path(const char *path)
{
	char cwd[PATH_MAX], *out;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	if (asprintf(&out, "%s/%s", cwd, path) < 0)
		return NULL;
	return out;
}

/* --report, --trace, --core-dir: checked and made absolute where the user typed them (the
 * leading monitor may start in another directory, on another node); as given in the monitor. */
/* The check of a path option's value (its name for the messages). */
static int path_check(const char *cmd, int c, const char *arg)
{
	switch (c) {
	case WOPT_CORE_DIR: return option_core_dir(cmd, arg);
	case WOPT_MEMORY: return option_writable_dir(cmd, "memory", arg);
	case WOPT_REPORT_DIR: return option_site_dir(cmd, "report-dir", arg);
	case WOPT_METRICS_DIR: return option_site_dir(cmd, "metrics-dir", arg);
	default: return option_output_path(cmd, c == WOPT_REPORT ? "report" : "trace", arg);
	}
}

static int watch_path_apply(const char *cmd, struct watch_options *w, int c, const char *arg)
{
	const char **slot = c == WOPT_REPORT ? &w->report : c == WOPT_TRACE ? &w->trace :
			    c == WOPT_REPORT_DIR ? &w->report_dir : c == WOPT_METRICS_DIR ? &w->metrics_dir :
			    c == WOPT_MEMORY ? &w->memory_dir : &w->core_dir;

	if (w->paths_as_given) {
		*slot = arg;
		return 0;
	}
	if (path_check(cmd, c, arg) < 0)
		return -1;
	free((void *)*slot); /* the last one given wins */
	*slot = option_absolute_path(arg);
	return 0;
}

void watch_options_release(struct watch_options *w)
{
	const char **slots[] = { &w->report, &w->trace, &w->core_dir, &w->report_dir, &w->metrics_dir, &w->memory_dir };

	for (size_t k = 0; k < sizeof(slots) / sizeof(slots[0]); k++) {
		if (!w->paths_as_given)
			free((void *)*slots[k]);
		*slots[k] = NULL;
	}
}

int watch_option_apply(const char *cmd, struct watch_options *w, int c, const char *name,
		       const char *arg)
{
	switch (c) {
	case 0:
		return common_option_apply(cmd, &w->opt, name, arg) == 0 ? 0 : -1;
	case WOPT_ON_HANG:
		return option_on_hang(cmd, arg, &w->kill_on_hang);
	case WOPT_CONFIRM:
		w->confirm_given = true;
		return option_confirm(cmd, arg, &w->confirm_s);
	case WOPT_NO_RECORD:
		w->no_record = true;
		return 0;
	case WOPT_NO_PROOF:
		w->no_proof = true;
		return 0;
	case WOPT_NO_MEMORY:
		w->no_memory = true;
		return 0;
	case WOPT_QUIET:
		w->quiet = true;
		return 0;
	case WOPT_PROGRESS:
		return option_progress(cmd, arg, &w->progress_s);
	case WOPT_FANOUT:
		return option_int(cmd, "fanout", arg, WATCH_FANOUT_MIN, WATCH_FANOUT_MAX, &w->fanout);
	case WOPT_REPORT_RANKS:
		return option_report_ranks(cmd, arg, &w->report_ranks);
	case WOPT_REPORT:
	case WOPT_TRACE:
	case WOPT_CORE_DIR:
	case WOPT_REPORT_DIR:
	case WOPT_METRICS_DIR:
	case WOPT_MEMORY:
		return watch_path_apply(cmd, w, c, arg);
	default:
		return 1;
	}
}

/* --OPT DIR names an existing directory: 0, or -1 with one line saying what to do. */
static int option_existing_dir(const char *cmd, const char *opt, const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		cmd_error(cmd, "--%s %s: %s; create the directory first", opt, dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		cmd_error(cmd, "--%s %s: not a directory", opt, dir);
		return -1;
	}
	return 0;
}

int option_writable_dir(const char *cmd, const char *opt, const char *dir)
{
	if (option_existing_dir(cmd, opt, dir) < 0)
		return -1;
	if (access(dir, W_OK) < 0) {
		cmd_error(cmd, "--%s %s: cannot write there: %s", opt, dir, strerror(errno));
		return -1;
	}
	return 0;
}

int option_core_dir(const char *cmd, const char *dir)
{
	return option_writable_dir(cmd, "core-dir", dir);
}

int option_site_dir(const char *cmd, const char *opt, const char *dir)
{
	return option_existing_dir(cmd, opt, dir);
}

/* --NAME SECONDS: a number of seconds from lo up to a day. */
static int option_seconds(const char *cmd, const char *name, const char *arg, double lo,
			  double *seconds)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= lo && v <= 86400.0)) {
		cmd_error(cmd, "--%s: '%s' is not a number of seconds from %g to 86400", name, arg, lo);
		return -1;
	}
	*seconds = v;
	return 0;
}

int option_progress(const char *cmd, const char *arg, double *seconds)
{
	return option_seconds(cmd, "progress", arg, 1.0, seconds);
}

int option_confirm(const char *cmd, const char *arg, double *seconds)
{
	return option_seconds(cmd, "confirm", arg, 0.0, seconds);
}

static void words_add(struct watch_words *out, const char *word)
{
	if (out->n < WATCH_WORDS_MAX - 1)
		out->word[out->n++] = (char *)word;
}

static void words_add_number(struct watch_words *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void words_add_number(struct watch_words *out, const char *fmt, ...)
{
	va_list ap;
	char *buf;

	if (out->nnumbers >= (int)(sizeof(out->numbers) / sizeof(out->numbers[0])))
		return;
	buf = out->numbers[out->nnumbers++];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(out->numbers[0]), fmt, ap);
	va_end(ap);
	words_add(out, buf);
}

/* "--name PATH", two words, when the path is given. */
static void words_add_path(struct watch_words *out, const char *name, const char *path)
{
	if (path) {
		words_add(out, name);
		words_add(out, path);
	}
}

void watch_options_words(const struct watch_options *w, struct watch_words *out)
{
	const struct detector_config *m = &w->opt.model;

	out->n = out->nnumbers = 0;
	words_add_number(out, "--alpha=%.17g", m->alpha);
	words_add_number(out, "--interval=%.17g", m->interval_ms);
	words_add_number(out, "--max-interval=%.17g", m->max_interval_ms);
	words_add_number(out, "--set-size=%d", m->set_size);
	words_add_number(out, "--seed=%llu", (unsigned long long)m->seed);
	if (w->confirm_given)
		words_add_number(out, "--confirm=%.17g", w->confirm_s);
	words_add(out, w->kill_on_hang ? "--on-hang=kill" : "--on-hang=report");
	if (w->no_record)
		words_add(out, "--no-record");
	if (w->no_proof)
		words_add(out, "--no-proof");
	if (w->quiet)
		words_add(out, "--quiet");
	if (w->progress_s > 0)
		words_add_number(out, "--progress=%.17g", w->progress_s);
	if (w->fanout > 0)
		words_add_number(out, "--fanout=%d", w->fanout);
	if (w->report_ranks != REPORT_RANKS_AUTO)
		words_add(out, w->report_ranks == REPORT_RANKS_ALL ? "--report-ranks=all" : "--report-ranks=summary");
	words_add_path(out, "--core-dir", w->core_dir);
	words_add_path(out, "--report", w->report);
	words_add_path(out, "--report-dir", w->report_dir);
	words_add_path(out, "--metrics-dir", w->metrics_dir);
	words_add_path(out, "--trace", w->trace);
	words_add_path(out, "--memory", w->memory_dir);
	if (w->no_memory)
		words_add(out, "--no-memory");
	out->word[out->n] = NULL;
}

/* The monitors' Open MPI session directories apart from the job's. Two mpiruns on one node share
 * $TMPDIR/ompi.HOST.UID, and one's clean-up removing it (empty) while the other creates its own
 * below it fails the other's start: "A call to mkdir was unable to create the desired
 * directory" (open-mpi/ompi#8510). The job's next mpirun in a batch script starts as the
 * monitors of the last one end, and a per-job /tmp starts empty: the monitors must never be the
 * other mpirun. Their base is TMPDIR/parastack-monitors.UID, made here (0700) and used only if
 * it is this user's own directory, not a link; else Open MPI's default stays. */
static void monitor_session_base(void)
{
	const char *tmp = getenv("TMPDIR");
	char base[PATH_MAX];
	struct stat st;

	if (snprintf(base, sizeof(base), "%s/parastack-monitors.%u", tmp && *tmp == '/' ? tmp : "/tmp",
		     (unsigned)getuid()) >= (int)sizeof(base))
		return;
	if (mkdir(base, 0700) < 0 && errno != EEXIST)
		return;
	if (lstat(base, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 0077))
		return;
	setenv("OMPI_MCA_orte_tmpdir_base", base, 1); /* Open MPI 4 */
	setenv("PRTE_MCA_prte_tmpdir_base", base, 1); /* Open MPI 5 (PRRTE) */
}

void monitor_launch_env(bool in_slurm)
{
	setenv(WATCHED_ENV, "parastack monitors", 1); /* their own step is not a job to watch */
	monitor_session_base();
	if (getuid() == 0) {
		/* Open MPI refuses root without these. */
		setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
		setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	}
	if (in_slurm) {
		/* mpirun starts its remote daemons with srun: --overlap shares the nodes' CPUs with
		 * the application's steps; a job submitted with --export=NONE passes that on to srun
		 * (SLURM_EXPORT_ENV), whose tasks would then start with no environment at all. */
		setenv("OMPI_MCA_plm_slurm_args", "--overlap", 1);
		setenv("HYDRA_LAUNCHER_EXTRA_ARGS", "--overlap", 1); /* hydra's srun, the same */
		setenv("SLURM_EXPORT_ENV", "ALL", 1);
	}
}
