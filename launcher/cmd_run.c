/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_run — `parastack run [options] -- LAUNCHER ARGS...`: an MPI job run under watch.
 *
 * It owns the launcher's process (started with the recording layer placed in its line, waited
 * for) and the monitors' mpirun beside it. The contract:
 *
 * - The job runs whatever becomes of the watch: a monitor that cannot start, or dies, leaves
 *   the job running; one that dies is started again, at most once a minute, with a line.
 * - Where the monitors run: one on this machine (`mpirun -np 1 parastack-monitor`); inside a
 *   Torque job one per host of $PBS_NODEFILE; inside a Slurm allocation one per node, as an
 *   overlapping step that takes none of the application's CPUs.
 * - A hang with --on-hang=kill ends the job: with --batch (the job script of parastack-sbatch
 *   or parastack-qsub) through the scheduler, scancel's way or qdel; otherwise SIGTERM to the
 *   launcher and, --grace seconds later, SIGKILL to whatever is left of the processes descended
 *   from it - those alone, each by pid and start time (procsig.h: through a pidfd, or by PID
 *   where none can be opened, said in one line) - and run returns once none of them runs.
 * - Its exit status is the launcher's; PARASTACK_EXIT_HUNG (86) when it ended a hung job;
 *   EXIT_USAGE (2) for options it refuses, with one line naming the option.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/clock.h"
#include "../base/exitcodes.h"
#include "../base/pidlist.h"
#include "../monitor/sample/safe/procfs.h"
#include "../monitor/sample/safe/procsig.h"
#include "../base/signals.h"
#include "../sched/lookup/lookup_slurm.h"
#include "../sched/lookup/lookup_torque.h"
#include "commands.h"
#include "monitors.h"
#include "job_pattern.h"
#include "layer_place.h"
#include "layer_util.h"
#include "../base/install_paths.h"
#include "../base/options.h"
#include "../base/option_docs.h"


static const char run_usage_head[] =
	"usage: parastack run [options] -- LAUNCHER [ARGS...]\n"
	"Run an MPI job (e.g. mpirun -np 8 ./app) and watch it for hangs. On a hang, print a report\n"
	"to standard error and, by default, end the job.\n"
	"\n";
static const char run_usage_tail[] =
	"\n"
	"Exit status: the job's own when it ends by itself; 86 when parastack ended a hung job.\n";
static const struct command_help run_usage = { run_usage_head, HELP_RUN, run_usage_tail };

struct run {
	struct watch_options w;
	int grace_s;
	bool batch, local;
	uint32_t slurm_job; /* the allocation we run in, 0 when none (or --local) */
	const struct torque_job *torque; /* the Torque job we run in, NULL when none (or --local) */
	char hostfile[64];  /* its hosts, each once, for mpirun */
	char **job_argv;
};

static int parse_run_options(struct run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		WATCH_LONGOPTS,
		{ "grace", required_argument, NULL, 'G' },
		{ "batch", no_argument, NULL, 'B' },
		{ "local", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx, applied;

	common_options_default(&r->w.opt);
	r->w.kill_on_hang = true;
	r->grace_s = RUN_GRACE_DEFAULT_S;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, &idx)) != -1) {
		if ((applied = watch_option_apply("run", &r->w, c, c ? NULL : longopts[idx].name, optarg)) < 0)
			return -1;
		if (applied == 0)
			continue;
		switch (c) {
		case 'G':
			if (option_int("run", "grace", optarg, 0, 3600, &r->grace_s) < 0)
				return -1;
			break;
		case 'B': r->batch = true; break;
		case 'l': r->local = true; break;
		case 'h':
			command_help_print(stdout, &run_usage);
			exit(0);
		default:
			option_unknown("run", argv, longopts);
			return -1;
		}
	}
	if (common_options_check("run", &r->w.opt) < 0)
		return -1;
	if (optind >= argc) {
		cmd_error("run", "no job to run; usage: parastack run [options] -- mpirun -np 8 ./app");
		return -1;
	}
	r->job_argv = argv + optind;
	/* Inside a batch job, each task of an array gets its own files: %j, %A, %a, ... */
	if ((r->w.report && !(r->w.report = job_pattern_expand(r->w.report))) ||
	    (r->w.trace && !(r->w.trace = job_pattern_expand(r->w.trace)))) {
		cmd_error("run", "out of memory");
		return -1;
	}
	return 0;
}

static pid_t spawn(char **argv, bool as_monitor, bool in_slurm, const struct layer_placement *layer)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		setenv(WATCHED_ENV, "parastack run", 1); /* its steps: no second watch from the SPANK plugin */
		if (as_monitor)
			monitor_launch_env(in_slurm);
		if (layer)
			layer_placement_setenv(layer);
		execvp(argv[0], argv);
		fprintf(stderr, "parastack run: cannot start %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/* The monitors' launch line: mpirun's head, the monitor with its own words (the launcher's pid,
 * the job and its host, the status file), the watch options' words, and the NULL. */
#define MONITOR_OWN_WORDS 9
#define MONITOR_ARGV_MAX (MONITORS_ARGV_MAX + MONITOR_OWN_WORDS + WATCH_WORDS_MAX + 1)
struct argv_build {
	char *v[MONITOR_ARGV_MAX];
	int n;
	bool full; /* a word did not fit (a bug: the bounds above undercount) */
};

static void argv_add(struct argv_build *b, const char *word)
{
	if (b->n < MONITOR_ARGV_MAX - 1)
		b->v[b->n++] = (char *)word;
	else
		b->full = true;
}

static pid_t start_monitor(const struct run *r, const char *monitor, pid_t launcher,
			   const char *status_file)
{
	char pid_s[16], job_s[16], host[256] = "";
	struct argv_build b = { .n = 0 };
	struct watch_words words;
	struct monitor_spread spread = { .hostfile = r->torque ? r->hostfile : NULL,
					 .per_node = r->slurm_job || r->torque, .oversubscribe = true };

	b.n = monitors_mpirun_argv(b.v, &spread);
	argv_add(&b, monitor);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)launcher);
	argv_add(&b, "--launcher-pid");
	argv_add(&b, pid_s);
	if (r->slurm_job || r->torque) {
		/* Only the monitor on this node can see the launcher; it leads. */
		snprintf(job_s, sizeof(job_s), "%u", r->slurm_job);
		argv_add(&b, r->torque ? "--pbs-job" : "--slurm-job");
		argv_add(&b, r->torque ? r->torque->id : job_s);
		gethostname(host, sizeof(host) - 1);
		argv_add(&b, "--launcher-host");
		argv_add(&b, host);
	}
	watch_options_words(&r->w, &words);
	for (int i = 0; i < words.n; i++)
		argv_add(&b, words.word[i]);
	argv_add(&b, "--status-file");
	argv_add(&b, status_file);
	if (b.full) {
		fprintf(stderr, "parastack run: the monitor's command line needs more than %d words (a bug in parastack: "
			"please report it); the job goes on unwatched\n", MONITOR_ARGV_MAX - 1);
		return -1;
	}
	b.v[b.n] = NULL;
	/* A Torque job run by Slurm's wrappers is a Slurm job too: mpirun then starts the remote
	 * monitors with srun, which must overlap the application's step. */
	return spawn(b.v, true, r->slurm_job != 0 || r->torque, NULL);
}

struct proc_id {
	pid_t pid;
	unsigned long long start;
};

/* The launcher and all its descendants, however many, with start times so a reused pid is
 * never hit: malloc'd (NULL when out of memory), *n of them. */
static struct proc_id *job_processes(pid_t launcher, int *n)
{
	struct pid_list queue = { 0 };
	struct proc_id *out = NULL;

	*n = 0;
	if (pid_list_push(&queue, launcher) < 0)
		return NULL;
	for (int head = 0; head < queue.n; head++)
		procfs_children(queue.v[head], &queue);
	if ((out = calloc((size_t)queue.n, sizeof(*out)))) {
		for (int i = 0; i < queue.n; i++)
			out[i] = (struct proc_id){ queue.v[i], procfs_start_time(queue.v[i]) };
		*n = queue.n;
	}
	pid_list_free(&queue);
	return out;
}

static int exit_status_of(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

/* Wait up to ms for pid (our child) to end; its status, or -1 if it did not. */
static int wait_child(pid_t pid, int ms)
{
	int st;

	for (int waited = 0;; waited += 20) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0 && errno == ECHILD)
			return 0;
		if (waited >= ms)
			return -1;
		sleep_ms(20);
	}
}

/* Is this process of the job still there and not yet a zombie (its start time unchanged)? */
static bool job_process_runs(const struct proc_id *p)
{
	return procsig_same_start(p->pid, &p->start);
}

/* Wait up to ms for the job's processes (other than the launcher) to be gone: one that was
 * killed goes on running while the kernel tears it down, longer on a loaded node, and parastack
 * exits only once none of them runs (a batch script's next step, a test, may look at once). */
static void wait_job_gone(const struct proc_id *procs, int n, int ms)
{
	int i = 1; /* those before it are gone, and a gone one (pid and start time) never returns */

	for (int waited = 0; waited < ms; waited += 20) {
		while (i < n && !job_process_runs(&procs[i]))
			i++;
		if (i >= n)
			return;
		sleep_ms(20);
	}
}

/* End the job we started: SIGTERM to the launcher, SIGKILL after the grace period to every
 * process of the job that is still there (identified by pid and start time). */
static void end_job(pid_t launcher, int sig, int grace_s)
{
	int n;
	struct proc_id *procs = job_processes(launcher, &n);

	kill(launcher, sig);
	if (wait_child(launcher, grace_s * 1000) < 0)
		kill(launcher, SIGKILL);
	/* The launcher is gone (or killed); ranks it could not take with it go now, each only while
	 * it is the process recorded (procsig.h: by pidfd, or by PID when none can be opened). */
	struct procsig ps = { 0 };

	for (int i = 1; i < n; i++)
		procsig_send(&ps, procs[i].pid, procsig_same_start, &procs[i].start, SIGKILL);
	if (ps.by_pid)
		fprintf(stderr, "parastack: pidfd_open: %s - %d leftover process(es) of the job killed by PID, "
			"each checked by its start time just before\n", strerror(ps.pidfd_errno), ps.by_pid);
	wait_child(launcher, 5000);
	wait_job_gone(procs, n, 10000);
	free(procs);
}

/* Stop the monitor (our child) if it has not ended by itself. */
static void end_monitor(pid_t monitor, int patience_ms)
{
	if (wait_child(monitor, patience_ms) >= 0)
		return;
	kill(monitor, SIGTERM);
	if (wait_child(monitor, 5000) < 0) {
		kill(monitor, SIGKILL);
		wait_child(monitor, 5000);
	}
}

/* Where the leading monitor writes its pid: beside the status file (path: 96 bytes). */
static void pid_file_of(const char *status_file, char *path)
{
	snprintf(path, 96, "%s" MONITOR_PID_SUFFIX, status_file);
}

/* The monitor's files in the run's directory, before it starts again or the directory goes. */
static void remove_monitor_files(const char *status_file)
{
	char path[96];

	pid_file_of(status_file, path);
	unlink(path);
	unlink(status_file);
}

static int run_job(const struct run *r, const char *monitor, const char *status_file);

/* Inside a Torque job (and not --local): its hosts, each once, into a host file in dir for the
 * monitors' mpirun. true when the job is watched as a Torque job. */
static bool find_torque_job(struct run *r, const char *dir)
{
	static struct torque_job job;
	char err[512], host[256] = "";
	int got = lookup_torque_from_env(&job, err, sizeof(err));

	if (got < 0)
		fprintf(stderr, "parastack: %s; not watching this as a Torque job\n", err);
	if (got <= 0)
		return false;
	gethostname(host, sizeof(host) - 1);

	bool here = false;

	for (int i = 0; i < job.nhosts; i++)
		here |= pidlist_same_host(job.hosts[i], host);
	if (!here) {
		fprintf(stderr, "parastack: this node (%s) is not in $PBS_NODEFILE (%s); watching this "
			"node only\n", host, job.nodefile);
		return false;
	}
	snprintf(r->hostfile, sizeof(r->hostfile), "%s/hosts", dir);
	if (lookup_torque_write_hostfile(&job, r->hostfile, err, sizeof(err)) < 0) {
		fprintf(stderr, "parastack: %s; watching this node only\n", err);
		return false;
	}
	fprintf(stderr, "parastack: Torque job %s: one monitor on each of the %d host(s) of "
		"$PBS_NODEFILE (%d slot(s))\n", job.id, job.nhosts, job.slots);
	if (job.num_nodes >= 0 && job.num_nodes != job.nhosts)
		fprintf(stderr, "parastack: note: PBS_NUM_NODES=%d, but $PBS_NODEFILE lists %d host(s); "
			"following the file\n", job.num_nodes, job.nhosts);
	r->torque = &job;
	return true;
}

/* Inside a Slurm allocation (and not --local): the job to watch across its nodes. */
static void find_slurm_job(struct run *r)
{
	static struct slurm_job_info job;
	const char *id = getenv("SLURM_JOB_ID"), *node = getenv("SLURMD_NODENAME");
	char err[512], host[256] = "";
	uint32_t jobid;

	if (!id)
		return;
	if (lookup_slurm_parse_jobid(id, &jobid) < 0)
		snprintf(err, sizeof(err), "not a job id");
	else if (lookup_slurm_job(jobid, &job, err, sizeof(err)) == 0)
		err[0] = '\0';
	if (err[0]) {
		fprintf(stderr, "parastack: SLURM_JOB_ID=%s, but Slurm does not answer for it (%s); "
			"watching this node only\n", id, err);
		return;
	}
	gethostname(host, sizeof(host) - 1);
	for (int i = 0; i < job.num_nodes; i++)
		if (!strcmp(job.nodes[i], host) || (node && !strcmp(job.nodes[i], node))) {
			r->slurm_job = jobid;
			return;
		}
	fprintf(stderr, "parastack: this node (%s) is not in Slurm job %u; watching this node only\n",
		host, jobid);
}

/* The job to watch across nodes: Torque's when its variables are there (a Torque job may run
 * on Slurm, through its wrappers), else Slurm's; none with --local. */
static void find_allocation(struct run *r, const char *dir)
{
	if (!r->local && !find_torque_job(r, dir))
		find_slurm_job(r);
}

/* --batch: end the Slurm or Torque job we run in. true if that was done. */
static bool cancel_batch_job(const struct run *r)
{
	char err[512];

	if (!r->batch)
		return false;
	if (r->torque) {
		fprintf(stderr, "parastack: ending the hung Torque job %s (qdel %s)\n", r->torque->id,
			r->torque->id);
		fflush(stderr);
		if (lookup_torque_delete(r->torque->id, err, sizeof(err)) == 0)
			return true;
		fprintf(stderr, "parastack: %s; ending the launcher instead\n", err);
		return false;
	}
	if (!r->slurm_job) {
		fprintf(stderr, "parastack: --batch, but not inside a Slurm or Torque job; ending the "
			"launcher instead\n");
		return false;
	}
	fprintf(stderr, "parastack: cancelling the hung Slurm job %u\n", r->slurm_job);
	fflush(stderr);
	if (lookup_slurm_cancel(r->slurm_job, &(struct slurm_steps){ .one = false }, err, sizeof(err)) < 0) {
		fprintf(stderr, "parastack: %s; ending the launcher instead\n", err);
		return false;
	}
	return true;
}

int cmd_run(int argc, char **argv)
{
	struct run r = { 0 };
	char monitor[PATH_MAX];

	if (parse_run_options(&r, argc, argv) < 0)
		return EXIT_USAGE;
	if (sibling_program("parastack-monitor", monitor, sizeof(monitor)) < 0) {
		cmd_error("run", "cannot find parastack-monitor next to parastack (%s); reinstall parastack",
			  monitor);
		return EXIT_INPUT;
	}
	char dir[] = "/tmp/parastack-run.XXXXXX", status_file[64];

	if (!mkdtemp(dir)) {
		cmd_error("run", "mkdtemp(/tmp): %s", strerror(errno));
		return EXIT_INPUT;
	}
	snprintf(status_file, sizeof(status_file), "%s/status", dir);
	signals_catch();
	signals_catch_usr1();
	find_allocation(&r, dir);

	int rc = run_job(&r, monitor, status_file);

	if (r.torque)
		unlink(r.hostfile);
	remove_monitor_files(status_file);
	rmdir(dir);
	return rc;
}

/* The leading monitor, if its pid file names a child of mon (our monitors' mpirun, which
 * starts it on this node); else 0. */
static pid_t leader_of(const char *status_file, pid_t mon)
{
	char path[96];
	int pid = 0;
	FILE *f;

	pid_file_of(status_file, path);
	if (!(f = fopen(path, "re")))
		return 0;
	if (fscanf(f, "%d", &pid) != 1)
		pid = 0;
	fclose(f);
	return pid > 0 && procfs_parent(pid) == mon ? pid : 0;
}

/* A status line asked for (SIGUSR1): from the leading monitor directly, so that nothing but the
 * line is printed (the monitors' mpirun says "Forwarding signal" when it passes a signal on),
 * else through mpirun. */
static void ask_status(const char *status_file, pid_t mon)
{
	pid_t leader = leader_of(status_file, mon);

	kill(leader > 0 ? leader : mon, SIGUSR1);
}

/* Did the monitor's status file say it found a hang? */
static bool monitor_found_hang(const char *status_file)
{
	char buf[16] = "";
	FILE *f = fopen(status_file, "r");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return !strncmp(buf, "hang", 4);
}

/* Where the recording layer goes in the user's line (layer_place.h); false when it does not. */
static bool place_layer(const struct run *r, struct layer_placement *layer)
{
	char lib[PATH_MAX];

	*layer = (struct layer_placement){ .argv = r->job_argv };
	if (r->w.no_record)
		return false;
	if (install_layer_file("libparastack-mpi.so", lib, sizeof(lib)) < 0) {
		fprintf(stderr, "parastack: the recording layer is not installed (%s); the report will "
			"rely on stacks alone\n", lib);
		return false;
	}
	layer_place(r->job_argv, lib, layer);
	if (layer->why_not[0]) {
		fprintf(stderr, "parastack: recording layer not loaded: %s; communication hangs are "
			"diagnosed from stacks\n", layer->why_not);
		return false;
	}
	return true;
}

static int run_job_watch(const struct run *r, const char *monitor, const char *status_file,
			 pid_t launcher);

/* A monitor that died while the job runs is started again, at most once a minute (a monitor
 * that keeps dying must not be restarted in a loop); one line says which. true when watching
 * goes on (*mon the new monitor). */
static bool restart_monitor(const struct run *r, const char *monitor, pid_t launcher,
			    const char *status_file, int st, time_t *restarted, pid_t *mon)
{
	time_t now = time(NULL);
	char how[64];

	int code = exit_status_of(st);
	/* Under its own mpirun, a monitor that died of a signal is mpirun's 128 + the signal. */
	const char *sig = code > 128 && code < 128 + 65 ? sigabbrev_np(code - 128) : NULL;

	if (WIFSIGNALED(st))
		snprintf(how, sizeof(how), "killed by SIG%s", sig ? sig : "?");
	else if (sig)
		snprintf(how, sizeof(how), "exit status %d: SIG%s", code, sig);
	else
		snprintf(how, sizeof(how), "exit status %d", code);
	if (*restarted && now - *restarted < 60) {
		fprintf(stderr, "parastack: the monitor stopped again (%s) within a minute; the "
			"job goes on unwatched\n", how);
		return false;
	}
	*restarted = now;
	remove_monitor_files(status_file);
	*mon = start_monitor(r, monitor, launcher, status_file);
	fprintf(stderr, "parastack: the monitor stopped (%s); %s\n", how,
		*mon > 0 ? "started it again: the job stays watched" : "the job goes on unwatched");
	return *mon > 0;
}

/* Can the launcher be started (a program in PATH, or a path)? errno set when not. */
static bool launcher_found(const char *name)
{
	char real[PATH_MAX];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	if (layer_find_program(name, NULL, real, sizeof(real)))
		return true;
	errno = ENOENT;
	return false;
}

static int run_job(const struct run *r, const char *monitor, const char *status_file)
{
	struct layer_placement layer;

	/* A launcher that cannot start: its one line, and nothing watched. */
	if (!launcher_found(r->job_argv[0])) {
		fprintf(stderr, "parastack run: cannot start %s: %s\n", r->job_argv[0], strerror(errno));
		return 127;
	}
	bool placed = place_layer(r, &layer);
	pid_t launcher = spawn(layer.argv, false, false, placed ? &layer : NULL);
	int rc = run_job_watch(r, monitor, status_file, launcher);

	if (layer.argv != r->job_argv)
		free(layer.argv);
	layer_placement_free(&layer);
	return rc;
}

static int run_job_watch(const struct run *r, const char *monitor, const char *status_file,
			 pid_t launcher)
{
	if (launcher < 0) {
		cmd_error("run", "fork: %s", strerror(errno));
		return EXIT_INPUT;
	}

	pid_t mon = start_monitor(r, monitor, launcher, status_file);
	bool monitoring = mon > 0;
	time_t restarted = 0; /* when a monitor that died was last started again */

	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, 0);

		if (w < 0 && errno == EINTR && signals_caught == SIGUSR1) {
			if (monitoring)
				ask_status(status_file, mon);
			signals_caught = 0;
			continue;
		}
		if (w < 0 && errno == EINTR && signals_caught) {
			/* Ctrl-C, an outside timeout, a scheduler's time limit: say what happens, end
			 * the job as mpirun and srun would (the signal to the launcher, then what is
			 * left of the job's processes after the grace period), and exit only once they
			 * are gone. */
			int sig = signals_caught;

			signals_caught = 0;
			fprintf(stderr, "parastack: %s: ending the job (launcher pid %d) and its watch\n",
				sig == SIGINT ? "interrupted" : strsignal(sig), (int)launcher);
			if (monitoring)
				kill(mon, SIGTERM);
			end_job(launcher, sig, r->grace_s);
			if (monitoring)
				end_monitor(mon, 3000);
			return 128 + sig;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
		if (w == launcher) {
			int status = exit_status_of(st);

			if (monitoring)
				end_monitor(mon, 3000);
			return status;
		}
		if (w == mon) {
			monitoring = false;
			if (monitor_found_hang(status_file) ||
			    (WIFEXITED(st) && WEXITSTATUS(st) == MONITOR_EXIT_HANG)) {
				if (!cancel_batch_job(r))
					fprintf(stderr, "parastack: ending the hung job (launcher pid %d)\n", (int)launcher);
				end_job(launcher, SIGTERM, r->grace_s);
				return PARASTACK_EXIT_HUNG;
			}
			if (!(WIFEXITED(st) && WEXITSTATUS(st) == MONITOR_EXIT_NONE))
				monitoring = restart_monitor(r, monitor, launcher, status_file, st,
							     &restarted, &mon);
		}
	}
	return EXIT_INPUT;
}
