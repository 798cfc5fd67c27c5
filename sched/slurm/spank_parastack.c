/* SPDX-License-Identifier: BSD-3-Clause */
/* spank_parastack — parastack as a Slurm SPANK plugin, the way centres deploy per-job tools:
 * installed once (plugstack.conf: `optional PATH [default=on|off] [options=WORDS]
 * [report_dir=DIR] [metrics_dir=DIR] [parastack=PROGRAM]`; the program is found from the
 * plugin's own place otherwise: beside it in the build tree, PREFIX/bin from
 * PREFIX/lib/parastack once installed), turned on per job with
 * `--parastack[=OPTIONS]` on srun, sbatch or salloc (or for every job with default=on, where
 * `--parastack=off` opts out).
 *
 * It owns only the start and the end of a watch. In slurmstepd (the remote context), the step
 * that carries the job's ranks — the batch step (whose script's mpirun or srun starts them), or
 * an srun step of an allocation with no watched batch step — starts, on the node of its task 0,
 * `parastack attach --slurm-job JOB --on-hang=kill`, as the job's owner, with the task's own
 * standard output and error (handed over by the task itself: spank_streams.h), so the lines
 * and the report land in the job's output as under parastack-sbatch; it stops that process, by
 * its PID, when that task ends (the step's end at the latest). For a user's job the site's
 * files come through a spool (spank_collect.h). A step that already runs under a watch (the
 * variable WATCHED_ENV in its environment: the batch step's tasks, parastack run's launchers,
 * the monitors' own step, parastack-sbatch's jobs) starts none.
 *
 * Nothing here may fail a job or drain a node: every callback returns 0 except the option's
 * check at submission (a wrong --parastack value is refused there, in one line), and what goes
 * wrong later is one line in the job's output saying why the job is not watched. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "../../base/layershims.h"
#include "../../base/options.h"
#include "config.h"
#include "spank_collect.h"
#include "spank_streams.h"

#pragma GCC visibility push(default)
SPANK_PLUGIN(parastack, 1);
#pragma GCC visibility pop

#define WORDS_MAX 24
#define WORD_LEN 1100
#define STOP_GRACE_MS 15000 /* the watcher's own grace: its monitors detach from the ranks */
#define STREAMS_WAIT_MS 60000 /* the most the watcher waits for task 0 to reach its exec */
/* Where Slurm carries --parastack's value to every srun, salloc and sbatch run inside the job
 * (SLURM_SPANK_ + the option's variable): a bare --parastack arrives as "(null)", Slurm's
 * rendering of the missing value. */
#define OPTION_ENV "SLURM_SPANK__SLURM_SPANK_OPTION_parastack_parastack"

/* Option words, "--name=value" or "--name", checked against parastack's watch options. */
struct words {
	char w[WORDS_MAX][WORD_LEN];
	int n;
};

/* plugstack.conf's arguments, and where the plugin's own files are. */
static struct {
	bool default_on, layer_off;
	struct words options;
	char report_dir[PATH_MAX], metrics_dir[PATH_MAX], parastack[PATH_MAX];
	char libdir[PATH_MAX]; /* the plugin's directory: the recording layer is beside it */
	char bad[512]; /* why the configuration cannot be used, or "" */
} site;

/* --parastack as this job gave it. */
static struct {
	bool given, off;
	struct words words;
} asked;

static bool watching;     /* this step starts a watch (remote context) */
static pid_t watcher = -1; /* the parastack attach it started */
static uint32_t watched_job;
static struct spool spool; /* a user's job: where its monitors leave the site's files */
static char shims[64];     /* the batch step's launcher shims (layershims.h), or "" */
static uid_t shims_owner;

static const struct option watch_longopts[] = { WATCH_LONGOPTS, { NULL, 0, NULL, 0 } };

/* One word of OPTIONS ("confirm=30", "--quiet"): the watch option it names, checked as
 * parastack would check it, into out. 0, or -1 with a one-line reason in why. */
static int word_add(const char *word, bool check, struct words *out, char *why, size_t len)
{
	const char *name = word + (strncmp(word, "--", 2) ? 0 : 2), *eq = strchr(name, '=');
	size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
	struct watch_options w = { .paths_as_given = !check };
	const struct option *o = watch_longopts;

	common_options_default(&w.opt);
	while (o->name && (strlen(o->name) != nlen || strncmp(o->name, name, nlen)))
		o++;
	if (!o->name) {
		snprintf(why, len, "'%.*s' is not a parastack option (alpha, interval, confirm, on-hang, quiet, "
			 "report, ...: see parastack-spank(8))", (int)nlen, name);
		return -1;
	}
	if ((o->has_arg == required_argument) != (eq != NULL)) {
		snprintf(why, len, "'%s' %s", o->name, eq ? "takes no value" : "needs a value (NAME=VALUE)");
		return -1;
	}
	/* watch_option_apply says what is wrong on standard error itself, in one line. */
	bool bad = check && watch_option_apply("--parastack", &w, o->val, o->name, eq ? eq + 1 : NULL) != 0;

	watch_options_release(&w);
	if (bad) {
		why[0] = '\0';
		return -1;
	}
	if (out->n >= WORDS_MAX || strlen(word) + 3 > WORD_LEN) {
		snprintf(why, len, "too many or too long options (at most %d)", WORDS_MAX);
		return -1;
	}
	snprintf(out->w[out->n++], WORD_LEN, "--%s", name);
	return 0;
}

/* OPTIONS, comma-separated words, into out. 0, or -1 with why. */
static int words_parse(const char *text, bool check, struct words *out, char *why, size_t len)
{
	char copy[4096], *save = NULL;

	if (strlen(text) >= sizeof(copy)) {
		snprintf(why, len, "too long");
		return -1;
	}
	strcpy(copy, text);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (word_add(t, check, out, why, len) < 0)
			return -1;
	return 0;
}

/* --parastack with no options: none given, "", "on", or Slurm's "(null)" for none. */
static bool value_bare(const char *v)
{
	return !v || !*v || !strcmp(v, "on") || !strcmp(v, "(null)");
}

/* Did the value come from the job's environment (OPTION_ENV), not from this command line: an
 * srun, salloc or sbatch run inside a job that asked? It was checked at the job's submission,
 * and a step the job starts never fails because of the plugin. */
static bool value_inherited(const char *v)
{
	const char *env = getenv(OPTION_ENV);

	return env && getenv("SLURM_JOB_ID") && (!strcmp(env, v ? v : "") || (value_bare(env) && value_bare(v)));
}

/* --parastack[=OPTIONS]: checked at submission (srun, sbatch, salloc), taken as given where
 * the job runs and where it comes from the job's environment. */
static int option_given(int val, const char *optarg, int remote)
{
	char why[512] = "";
	bool checked = !remote && !value_inherited(optarg);

	(void)val;
	asked.given = true;
	asked.words.n = 0;
	if (value_bare(optarg))
		optarg = NULL;
	asked.off = optarg && !strcmp(optarg, "off");
	if (!optarg || asked.off)
		return 0;
	if (words_parse(optarg, checked, &asked.words, why, sizeof(why)) == 0 || !checked)
		return 0;
	if (why[0])
		fprintf(stderr, "parastack: --parastack=%s: %s\n", optarg, why);
	/* What srun, sbatch and salloc do next on a refused option (exit), without a second line
	 * ("Invalid --parastack argument") that says less than this one. */
	exit(1);
}

static struct spank_option parastack_option = {
	"parastack", "[OPTIONS]",
	"watch the job for hangs (parastack): OPTIONS like confirm=30,on-hang=report; off: not "
	"this job",
	2, 0, option_given,
};

/* One plugstack.conf argument. 0, or -1 with site.bad set. */
static int site_arg(const char *arg)
{
	static const struct {
		const char *key;
		char *dir;
	} dirs[] = { { "report_dir=", site.report_dir }, { "metrics_dir=", site.metrics_dir },
		     { "parastack=", site.parastack } };
	char why[512];

	if (!strcmp(arg, "default=on") || !strcmp(arg, "default=off")) {
		site.default_on = !strcmp(arg, "default=on");
		return 0;
	}
	if (!strcmp(arg, "layer=on") || !strcmp(arg, "layer=off")) {
		site.layer_off = !strcmp(arg, "layer=off");
		return 0;
	}
	if (!strncmp(arg, "options=", 8)) {
		if (words_parse(arg + 8, false, &site.options, why, sizeof(why)) == 0)
			return 0;
		snprintf(site.bad, sizeof(site.bad), "plugstack.conf: options=: %.400s", why);
		return -1;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t k = strlen(dirs[i].key);

		if (strncmp(arg, dirs[i].key, k))
			continue;
		if (arg[k] != '/' || strlen(arg + k) >= PATH_MAX) {
			snprintf(site.bad, sizeof(site.bad), "plugstack.conf: %s must be an absolute path", dirs[i].key);
			return -1;
		}
		strcpy(dirs[i].dir, arg + k);
		return 0;
	}
	snprintf(site.bad, sizeof(site.bad), "plugstack.conf: unknown argument '%.100s' (default=on|off, options=, "
		 "layer=on|off, report_dir=, metrics_dir=, parastack=)", arg);
	return -1;
}

/* Does this step start a watch? Not the extern step, not a step that runs under one already. */
static bool step_wants_watch(spank_t sp)
{
	uint32_t step = 0;
	char buf[64];

	if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS || step == SLURM_EXTERN_CONT ||
	    step == SLURM_INTERACTIVE_STEP)
		return false;
	if (spank_getenv(sp, WATCHED_ENV, buf, sizeof(buf)) == ESPANK_SUCCESS)
		return false;
	return asked.given ? !asked.off : site.default_on;
}

/* The task's standard output or error, opened anew for the watcher (its file, or the pipe to
 * srun); /dev/null when it cannot be. */
static int task_stream(pid_t task, int fd)
{
	char path[64];
	int out;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)task, fd);
	out = open(path, O_WRONLY | O_APPEND | O_NOCTTY);
	return out >= 0 ? out : open("/dev/null", O_WRONLY);
}

/* The environment the watcher runs with: none of the job's (it is the user's to set), only what
 * attach and its mpirun need. */
static void watcher_env(spank_t sp, const char *home, char **env, char storage[][PATH_MAX + 32])
{
	const char *conf = getenv("SLURM_CONF");
	char job_conf[PATH_MAX];
	struct stat st;
	int n = 0;

	/* The job's SLURM_CONF only if root alone may have written it (the watcher runs as root). */
	if (!conf && spank_getenv(sp, "SLURM_CONF", job_conf, sizeof(job_conf)) == ESPANK_SUCCESS &&
	    stat(job_conf, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022))
		conf = job_conf;
	snprintf(storage[n], PATH_MAX + 32, "PATH=/usr/local/bin:/usr/bin:/bin");
	env[n] = storage[n], n++;
	snprintf(storage[n], PATH_MAX + 32, "%s=spank", WATCHED_ENV);
	env[n] = storage[n], n++;
	snprintf(storage[n], PATH_MAX + 32, "HOME=%s", home);
	env[n] = storage[n], n++;
	if (conf) {
		snprintf(storage[n], PATH_MAX + 32, "SLURM_CONF=%s", conf);
		env[n] = storage[n], n++;
	}
	env[n] = NULL;
}

/* In the child: become the job's owner, as a user's own parastack-sbatch would run (Slurm lets
 * no one else, root included, start the monitors' step in the job); root's job stays root's.
 * 0, or -1 after one line in the job's output. */
static int become_owner(spank_t sp, char *home, size_t len)
{
	uid_t uid = 0;
	gid_t gid = 0;
	struct passwd pw, *found = NULL;
	char buf[4096];

	snprintf(home, len, "/");
	if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS || spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS) {
		dprintf(STDERR_FILENO, "parastack: this job is not watched for hangs: its owner is unknown\n");
		return -1;
	}
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) == 0 && found && found->pw_dir)
		snprintf(home, len, "%s", found->pw_dir);
	if (uid == 0)
		return 0;
	if ((found ? initgroups(found->pw_name, gid) : setgroups(0, NULL)) < 0 || setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0 || geteuid() != uid || getegid() != gid) {
		dprintf(STDERR_FILENO, "parastack: this job is not watched for hangs: cannot take its owner's identity "
			"(uid %d): %s\n", (int)uid, strerror(errno));
		return -1;
	}
	return 0;
}

/* Where the JSON report goes, as its owner may write: the submit directory, else the job's
 * working directory; -1 (the report only in the job's output) after one line when neither. */
static int report_place(spank_t sp, pid_t task, char *dir, size_t len)
{
	char cwd[64];
	ssize_t n;

	if (spank_getenv(sp, "SLURM_SUBMIT_DIR", dir, (int)len) == ESPANK_SUCCESS && dir[0] == '/' &&
	    access(dir, W_OK) == 0)
		return 0;
	snprintf(cwd, sizeof(cwd), "/proc/%d/cwd", (int)task);
	n = readlink(cwd, dir, len - 1);
	if (n > 0 && (dir[n] = '\0', dir[0] == '/') && access(dir, W_OK) == 0)
		return 0;
	dprintf(STDERR_FILENO, "parastack: no JSON report for this job: neither its submit directory nor its "
		"working directory can be written by its owner (the report is in this output)\n");
	return -1;
}

/* In the child: `parastack attach --slurm-job JOB[.STEP] --on-hang=kill --report FILE [site] [user]`,
 * its output the task's. Never returns. */
static void watcher_exec(spank_t sp, pid_t task, uint32_t job, uint32_t step)
{
	static char storage[8][PATH_MAX + 32], report[PATH_MAX + 64], submit[PATH_MAX], id[32], home[PATH_MAX];
	char *argv[16 + 2 * WORDS_MAX], *env[8];
	int a = 0, out, err;
	sigset_t all;

	if (streams_receive(&out, &err, STREAMS_WAIT_MS) < 0) {
		out = task_stream(task, STDOUT_FILENO);
		err = task_stream(task, STDERR_FILENO);
	}
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(STDIN_FILENO);
	open("/dev/null", O_RDONLY);
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	setpgid(0, 0);
	if (become_owner(sp, home, sizeof(home)) < 0)
		_exit(126);
	/* The batch step's watch is the job's (every step its script starts); an srun step's is
	 * that step's alone, so two watched steps of one allocation never share a rank. */
	if (step == SLURM_BATCH_SCRIPT)
		snprintf(id, sizeof(id), "%u", job);
	else
		snprintf(id, sizeof(id), "%u.%u", job, step);
	argv[a++] = site.parastack;
	argv[a++] = "attach";
	argv[a++] = "--slurm-job";
	argv[a++] = id;
	argv[a++] = "--on-hang=kill";
	if (report_place(sp, task, submit, sizeof(submit)) == 0) {
		if (step == SLURM_BATCH_SCRIPT)
			snprintf(report, sizeof(report), "%s/parastack-%u.json", submit, job);
		else
			snprintf(report, sizeof(report), "%s/parastack-%u.%u.json", submit, job, step);
		argv[a++] = "--report";
		argv[a++] = report;
	}
	/* A user's monitors leave the site's files in the spool, for the plugin to collect. */
	if (site.report_dir[0] && (spool.made || !spool.uid))
		argv[a++] = "--report-dir", argv[a++] = spool.made ? spool.dir : site.report_dir;
	if (site.metrics_dir[0] && (spool.made || !spool.uid))
		argv[a++] = "--metrics-dir", argv[a++] = spool.made ? spool.dir : site.metrics_dir;
	for (int i = 0; i < site.options.n; i++)
		argv[a++] = site.options.w[i];
	for (int i = 0; i < asked.words.n; i++)
		argv[a++] = asked.words.w[i];
	argv[a] = NULL;
	watcher_env(sp, home, env, storage);
	execve(site.parastack, argv, env);
	dprintf(STDERR_FILENO, "parastack: this job is not watched for hangs: %s: %s (the SPANK plugin's "
		"parastack= in plugstack.conf, or make install)\n", site.parastack, strerror(errno));
	_exit(127);
}

/* One line in the task's error output (the job's), for what keeps the job from being watched;
 * and the same in slurmd's log with the job's id, where the site's administrator looks. At
 * info: slurmstepd echoes its errors into the job's output, which has the line already. */
static void say_to_task(pid_t task, uint32_t job, const char *line)
{
	int fd = task_stream(task, STDERR_FILENO);

	dprintf(fd, "parastack: this job is not watched for hangs: %s\n", line);
	close(fd);
	slurm_info("parastack: job %u is not watched for hangs: %s", job, line);
}

/* A user's job with the site's directories set: the spool its monitors write into. */
static void site_spool(spank_t sp, pid_t task, uint32_t job, uint32_t step)
{
	char err[PATH_MAX + 128], line[PATH_MAX + 192];

	spool.uid = 0;
	if ((!site.report_dir[0] && !site.metrics_dir[0]) || spank_get_item(sp, S_JOB_UID, &spool.uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &spool.gid) != ESPANK_SUCCESS || spool.uid == 0)
		return;
	if (spool_make(&spool, job, step, spool.uid, spool.gid, err, sizeof(err)) == 0)
		return;
	snprintf(line, sizeof(line), "parastack: the site's copy of this job's report and its counters are not kept: %.*s\n",
		 PATH_MAX, err);
	int fd = task_stream(task, STDERR_FILENO);

	if (write(fd, line, strlen(line)) < 0) {
		/* the task's stream is gone: slurmd's log alone says it, below */
	}
	close(fd);
	slurm_info("parastack: job %u: the site's copy of its report and its counters are not kept: %.*s", job,
		    PATH_MAX, err);
}

/* SIGTERM to the watcher (attach passes it to its monitors, which detach from the ranks and
 * write their summary), SIGKILL after its grace; reaped either way. */
static void watcher_stop(void)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	int st;

	if (watcher <= 0)
		return;
	if (waitpid(watcher, &st, WNOHANG) == 0) {
		kill(watcher, SIGTERM);
		for (int waited = 0; waited < STOP_GRACE_MS && waitpid(watcher, &st, WNOHANG) == 0; waited += 50)
			nanosleep(&tick, NULL);
		if (kill(watcher, 0) == 0 && waitpid(watcher, &st, WNOHANG) == 0) {
			kill(watcher, SIGKILL);
			waitpid(watcher, &st, 0);
		}
	}
	watcher = -1;
	spool_collect(&spool, site.report_dir, site.metrics_dir, watched_job);
}

/* The recording layer for the watched ranks, as parastack run places it: unless the site
 * (layer=off) or the job (--parastack=no-record) says no. */
static bool words_have(const struct words *w, const char *word)
{
	for (int i = 0; i < w->n; i++)
		if (!strcmp(w->w[i], word))
			return true;
	return false;
}

static bool layer_wanted(void)
{
	return !site.layer_off && site.libdir[0] && !words_have(&site.options, "--no-record") &&
	       !words_have(&asked.words, "--no-record");
}

/* The layer for a program: the MPICH build (DIR/mpich/) for one that needs libmpich, else the
 * default; false when that one is not installed. */
static bool layer_for(const char *program, char *lib, size_t len)
{
	char real[PATH_MAX];
	/* srun sends the program's full path when it finds it; "./app" is the task's own cwd's. */
	bool mpich = program && strchr(program, '/') && realpath(program, real) && layershims_needs_mpich(real);

	if ((size_t)snprintf(lib, len, "%.*s%s/libparastack-mpi.so", PATH_MAX - 32, site.libdir, mpich ? "/mpich" : "") >= len)
		return false;
	return access(lib, R_OK) == 0 && !strpbrk(lib, ": \t\n");
}

/* The batch step (user_init, as the job's owner): the script's launchers are shims that place
 * the layer in their ranks, as under parastack run (layershims.h): PATH starts with a private
 * directory of them, removed when the step ends. Nothing is changed when one cannot be made. */
static void layer_into_script(spank_t sp)
{
	char lib[PATH_MAX], path[8192], *newpath = NULL;
	struct stat st;

	if (!layer_wanted() || !layer_for(NULL, lib, sizeof(lib)) || access(site.parastack, X_OK) < 0)
		return;
	if (spank_getenv(sp, "PATH", path, sizeof(path)) != ESPANK_SUCCESS)
		snprintf(path, sizeof(path), "/usr/local/bin:/usr/bin:/bin");
	if (layershims_make(site.parastack, shims, sizeof(shims)) < 0) {
		slurm_info("parastack: no launcher shims for the recording layer: %s", strerror(errno));
		return;
	}
	/* Removed at the step's end (as root) only while it is still the one made here. */
	shims_owner = lstat(shims, &st) == 0 ? st.st_uid : (uid_t)-2;
	if (asprintf(&newpath, "%s:%s", shims, path) < 0 || spank_setenv(sp, "PATH", newpath, 1) != ESPANK_SUCCESS ||
	    spank_setenv(sp, SHIM_DIR_ENV, shims, 1) != ESPANK_SUCCESS ||
	    spank_setenv(sp, SHIM_LIB_ENV, lib, 1) != ESPANK_SUCCESS) {
		spank_setenv(sp, "PATH", path, 1);
		spank_unsetenv(sp, SHIM_DIR_ENV);
		layershims_remove(shims, (uid_t)-1);
		shims[0] = '\0';
	}
	free(newpath);
}

/* The daemons an MPI launcher starts as an srun step's tasks: never given the layer. */
static bool is_launcher_daemon(const char *program)
{
	static const char *const daemons[] = { "orted", "prted", "hydra_pmi_proxy", "pmi_proxy", NULL };
	const char *base = strrchr(program, '/');

	base = base ? base + 1 : program;
	for (int i = 0; daemons[i]; i++)
		if (!strcmp(base, daemons[i]))
			return true;
	return false;
}

/* A watched srun step's task (task_init, in the task as its owner): the layer after the task's
 * own LD_PRELOAD, as parastack-task-prolog gives it under parastack run. */
static void layer_into_task(spank_t sp)
{
	char lib[PATH_MAX], pre[8192], *value = NULL;
	char **argv = NULL;
	int argc = 0;

	if (!layer_wanted() || spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS || argc < 1 ||
	    !argv || !argv[0] || is_launcher_daemon(argv[0]) || !layer_for(argv[0], lib, sizeof(lib)))
		return;
	if (spank_getenv(sp, "LD_PRELOAD", pre, sizeof(pre)) != ESPANK_SUCCESS)
		pre[0] = '\0';
	if (strchr(pre, '\n'))
		return;
	if (asprintf(&value, "%s%s%s", pre, pre[0] ? ":" : "", lib) >= 0)
		spank_setenv(sp, "LD_PRELOAD", value, 1);
	free(value);
}

/* The parastack program beside the plugin (the build tree), else in BINDIR, reached from the
 * plugin's own directory (LIBDIR/parastack) by the path configured between the two (config.h):
 * "../../bin" for PREFIX/lib, "../../../bin" for Debian's /usr/lib/<triplet>. The layer beside
 * the plugin. */
static void default_program(void)
{
	Dl_info self;
	char dir[PATH_MAX], *slash;

	if (!dladdr((void *)default_program, &self) || !self.dli_fname || strlen(self.dli_fname) >= sizeof(dir))
		return;
	strcpy(dir, self.dli_fname);
	if (!(slash = strrchr(dir, '/')))
		return;
	*slash = '\0';
	snprintf(site.libdir, sizeof(site.libdir), "%s", dir);
	snprintf(site.parastack, sizeof(site.parastack), "%.*s/parastack", PATH_MAX - 16, dir);
	if (access(site.parastack, X_OK) == 0)
		return;
	snprintf(site.parastack, sizeof(site.parastack), "%.*s/%s/parastack", PATH_MAX - 64, dir,
		 PARASTACK_BIN_FROM_LAYER);
}

#pragma GCC visibility push(default)

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	if (spank_option_register(sp, &parastack_option) != ESPANK_SUCCESS)
		slurm_error("parastack: cannot register --parastack");
	default_program();
	for (int i = 0; i < ac && !site.bad[0]; i++)
		site_arg(av[i]);
	return 0;
}

/* The remote context, once per step, before its tasks start: their environment says that the
 * job is watched from here on, so its inner steps start no second watch. */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	uint32_t step = 0;

	(void)ac, (void)av;
	watching = spank_remote(sp) == 1 && step_wants_watch(sp);
	if (!watching)
		return 0;
	spank_setenv(sp, WATCHED_ENV, "spank", 1);
	streams_open();
	if (spank_get_item(sp, S_JOB_STEPID, &step) == ESPANK_SUCCESS && step == SLURM_BATCH_SCRIPT)
		layer_into_script(sp);
	return 0;
}

/* The remote context, in each task just before it execs: task 0 hands its standard streams to
 * the watcher (spank_streams.h); a watched srun step's ranks get the recording layer (the batch
 * step's get it from the shims). */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	uint32_t step = 0, task_id = 1;

	(void)ac, (void)av;
	if (!watching)
		return 0;
	streams_send(spank_get_item(sp, S_TASK_GLOBAL_ID, &task_id) == ESPANK_SUCCESS && task_id == 0);
	if (spank_get_item(sp, S_JOB_STEPID, &step) == ESPANK_SUCCESS && step != SLURM_BATCH_SCRIPT)
		layer_into_task(sp);
	return 0;
}

/* The remote context, once per task after its start: task 0 of the step (the batch script in
 * the batch step) starts the watch. */
int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	uint32_t job = 0, step = 0, task_id = 1;
	pid_t task = 0;

	(void)ac, (void)av;
	if (!watching || watcher > 0 || spank_get_item(sp, S_TASK_GLOBAL_ID, &task_id) != ESPANK_SUCCESS ||
	    task_id != 0 || spank_get_item(sp, S_TASK_PID, &task) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS || spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
		return 0;
	if (site.bad[0]) {
		say_to_task(task, job, site.bad);
		return 0;
	}
	/* Said here, where slurmd's log can have it too; the child's exec says it only to the task. */
	if (access(site.parastack, X_OK) < 0) {
		char line[PATH_MAX + 256];
		int err = errno;

		snprintf(line, sizeof(line), "%.*s: %s (the SPANK plugin's parastack= in plugstack.conf, or make install)",
			 PATH_MAX, site.parastack, strerror(err));
		say_to_task(task, job, line);
		return 0;
	}
	site_spool(sp, task, job, step);
	watched_job = job;
	watcher = fork();
	if (watcher == 0)
		watcher_exec(sp, task, job, step);
	streams_close();
	if (watcher < 0) {
		char line[128];

		snprintf(line, sizeof(line), "fork: %s", strerror(errno));
		say_to_task(task, job, line);
	}
	return 0;
}

/* The task the watch was started beside has ended (the batch script, or task 0): the watch
 * ends now, while the job still runs, so its monitors stop in order — their summary and
 * counters written, the ranks detached — before Slurm ends the job's other steps. */
int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	uint32_t task_id = 1;

	(void)ac, (void)av;
	if (watcher > 0 && spank_get_item(sp, S_TASK_GLOBAL_ID, &task_id) == ESPANK_SUCCESS && task_id == 0)
		watcher_stop();
	return 0;
}

/* The step's end: the watch goes with it, if it has not yet, and the shims with the script. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp, (void)ac, (void)av;
	streams_close();
	watcher_stop();
	if (shims[0])
		layershims_remove(shims, shims_owner);
	shims[0] = '\0';
	return 0;
}

#pragma GCC visibility pop
