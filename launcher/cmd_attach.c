/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_attach — `parastack attach [options] (--pids LIST | --pids-file FILE | --slurm-job JOBID)`:
 * watch a job that is already running, under any launcher. The monitors run as an MPI job of
 * their own (monitors.h); a PID file whose ranks run in a Slurm job uses that job's allocation
 * for them. Every listed PID is checked before anything is touched. The outcome comes back as the leader's last line on
 * standard output (its node's files may not be ours). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <limits.h>

#include "../base/exitcodes.h"
#include "../monitor/job/pidlist_check.h"
#include "../monitor/sample/safe/procfs.h"
#include "../base/signals.h"
#include "../sched/lookup/lookup_slurm.h"
#include "commands.h"
#include "monitors.h"
#include "../base/install_paths.h"
#include "../base/options.h"
#include "../base/option_docs.h"

static const char attach_usage_head[] =
	"usage: parastack attach [options] (--pids LIST | --pids-file FILE | --slurm-job JOBID[.STEP])\n"
	"Watch a running MPI job for hangs, started by any launcher. The report is printed here.\n"
	"\n";
static const char attach_usage_tail[] =
	"\n"
	"Exit status: 0 when the job ended (with --on-hang=report, whatever was reported); 86 when a\n"
	"hang was found and the job ended; 1 when the job could not be watched (nothing was touched);\n"
	"2 for bad options.\n";
static const struct command_help attach_usage = { attach_usage_head, HELP_ATTACH, attach_usage_tail };

struct attach {
	struct watch_options w;
	uint32_t job;
	struct slurm_steps steps; /* --slurm-job JOBID.STEP: that step alone */
	const char *pids, *pids_file;
};

static int parse_attach_options(struct attach *at, int argc, char **argv)
{
	static const struct option longopts[] = {
		WATCH_LONGOPTS,
		{ "slurm-job", required_argument, NULL, 'J' },
		{ "pids", required_argument, NULL, 'p' },
		{ "pids-file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx, applied;

	common_options_default(&at->w.opt);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, &idx)) != -1) {
		applied = watch_option_apply("attach", &at->w, c, c ? NULL : longopts[idx].name, optarg);
		if (applied < 0)
			return -1;
		if (applied == 0)
			continue;
		switch (c) {
		case 'J':
			if (lookup_slurm_parse_job_step(optarg, &at->job, &at->steps) < 0) {
				cmd_error("attach", "--slurm-job: '%s' is not a Slurm job id (JOBID or JOBID.STEP)", optarg);
				return -1;
			}
			break;
		case 'p': at->pids = optarg; break;
		case 'f': at->pids_file = optarg; break;
		case 'h':
			command_help_print(stdout, &attach_usage);
			exit(0);
		default:
			option_unknown("attach", argv, longopts);
			return -1;
		}
	}
	if (optind < argc) {
		cmd_error("attach", "unexpected argument '%s'; see 'parastack attach --help'", argv[optind]);
		return -1;
	}
	if (!!at->pids + !!at->pids_file + (at->job && !at->pids_file) != 1) {
		cmd_error("attach", "say which job, once: --pids LIST, --pids-file FILE (with --slurm-job "
			  "JOBID for its allocation) or --slurm-job JOBID");
		return -1;
	}
	return common_options_check("attach", &at->w.opt);
}

/* Pass the monitors' standard output through and pick out the outcome line, until mpirun
 * closes it. A signal to us (Ctrl-C) is passed on: mpirun stops the monitors, which detach. */
static void relay_output(FILE *in, pid_t mon, char *outcome, size_t len, int *interrupted)
{
	char line[4096];

	for (;;) {
		if (signals_caught == SIGUSR1) {
			kill(mon, SIGUSR1); /* a status line, from the monitors */
			signals_caught = 0;
		} else if (signals_caught) {
			*interrupted = signals_caught;
			kill(mon, SIGTERM);
			signals_caught = 0;
		}
		if (!fgets(line, sizeof(line), in)) {
			if (!ferror(in) || errno != EINTR)
				return;
			clearerr(in);
			continue;
		}
		monitors_relay_line(line, outcome, len);
	}
}

/* Check every entry of this machine before anything is touched, fill in the ranks known here,
 * and note the Slurm job the first local rank runs in (0 if none). 0, or -1 after one line. */
static int check_entries(struct pid_entry *e, int n, bool all_local, uint32_t *slurm_job)
{
	char err[512];
	static const char *const job_vars[] = { "SLURM_JOB_ID", NULL };
	struct proc_identity checked; /* the monitors check each rank again on their own nodes */

	*slurm_job = 0;
	for (int i = 0; i < n; i++) {
		if (!monitors_is_this_machine(e[i].host))
			continue;
		if (pidlist_check(&e[i], &checked, err, sizeof(err)) < 0) {
			cmd_error("attach", "%s; nothing was attached", err);
			return -1;
		}
		if (!*slurm_job) {
			long id = procfs_env_number(e[i].pid, job_vars);

			*slurm_job = id > 0 ? (uint32_t)id : 0;
		}
	}
	if (all_local && pidlist_resolve_ranks(e, n, err, sizeof(err)) < 0) {
		cmd_error("attach", "%s; nothing was attached", err);
		return -1;
	}
	return 0;
}

/* Write the entries as "host pid [rank]" lines for the monitors. */
static int write_pid_file(const char *path, const struct pid_entry *e, int n)
{
	char me[256] = "";
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	gethostname(me, sizeof(me) - 1);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s %d", e[i].host[0] ? e[i].host : me, (int)e[i].pid);
		if (e[i].rank >= 0)
			fprintf(f, " %d", e[i].rank);
		fputc('\n', f);
	}
	return fclose(f);
}

/* --pids / --pids-file: check, write the resolved list, place the monitors. 0, or an exit status. */
static int prepare_pids(const struct attach *at, struct placement *pl, char *pid_path,
			struct slurm_job_info *alloc)
{
	static struct pid_entry e[PIDLIST_MAX];
	char err[600];
	uint32_t slurm_job;
	int n = at->pids ? pidlist_parse_list(at->pids, e, PIDLIST_MAX, err, sizeof(err)) :
			   pidlist_read_file(at->pids_file, e, PIDLIST_MAX, err, sizeof(err));

	if (n < 0) {
		cmd_error("attach", "%s", err);
		return at->pids ? EXIT_USAGE : EXIT_INPUT;
	}

	int spans = monitors_spans_hosts(e, n, pl);
	bool remote = spans > 0;

	if (spans < 0) {
		cmd_error("attach", "out of memory listing the PID list's hosts; nothing was attached");
		return EXIT_INPUT;
	}
	if (check_entries(e, n, !remote, &slurm_job) < 0)
		return EXIT_INPUT;
	/* Ranks on other hosts: monitors there, through the job's allocation when it has one (named
	 * by --slurm-job, or carried by a rank of this machine). */
	if (remote && at->job) {
		if (monitors_running_job("attach", at->job, alloc, "its allocation cannot host the monitors") < 0)
			return EXIT_INPUT;
		pl->alloc = alloc;
	} else if (remote && slurm_job && lookup_slurm_job(slurm_job, alloc, err, sizeof(err)) == 0 &&
		   !strcmp(alloc->state, "RUNNING")) {
		pl->alloc = alloc;
	}
	pl->what = "--pids-file";
	if (remote) {
		/* Each monitor reads the user's file where it runs: a shared file system is assumed,
		 * as for the job's own files. Its own host's entries it checks before touching any. */
		pl->value = option_absolute_path(at->pids_file);
	} else if (write_pid_file(pid_path, e, n) < 0) {
		cmd_error("attach", "cannot write %s: %s", pid_path, strerror(errno));
		return EXIT_INPUT;
	} else {
		pl->value = pid_path;
	}
	fprintf(stderr, "parastack: attaching to %d rank(s)%s%s%s\n", n, remote ? " on " : "",
		remote ? pl->hosts : "", pl->alloc ? " (through their Slurm job's allocation)" : "");
	return 0;
}

/* --slurm-job: the job must be running. 0, or an exit status. */
static int prepare_slurm(const struct attach *at, struct placement *pl, struct slurm_job_info *job)
{
	static char id[32];
	char err[512], step[24] = "";

	if (monitors_running_job("attach", at->job, job, "nothing to watch") < 0)
		return EXIT_INPUT;
	/* One step: its monitors on its own nodes, not on the whole allocation's. */
	if (at->steps.one && lookup_slurm_step_nodes(at->job, at->steps.step, job, err, sizeof(err)) < 0) {
		cmd_error("attach", "%s; nothing to watch", err);
		return EXIT_INPUT;
	}
	if (at->steps.one)
		snprintf(step, sizeof(step), ".%u", at->steps.step);
	snprintf(id, sizeof(id), "%u%s", at->job, step);
	pl->alloc = job;
	pl->what = "--slurm-job";
	pl->value = id;
	fprintf(stderr, "parastack: attaching to Slurm %s %s (%d node(s): %s)\n", step[0] ? "step" : "job", id,
		job->num_nodes, job->nodes_expr);
	return 0;
}

/* Run the monitors and relay their output; the exit status. */
static int watch(const struct attach *at, const struct placement *pl, const char *monitor)
{
	char outcome[32] = "", err[512];
	int fds[2], st, interrupted = 0;

	if (pipe(fds) < 0) {
		cmd_error("attach", "pipe: %s", strerror(errno));
		return EXIT_INPUT;
	}
	signals_catch();
	signals_catch_usr1();

	char *extra[40];
	struct watch_words words;
	int a = 0;

	watch_options_words(&at->w, &words);
	while (a < words.n) {
		extra[a] = words.word[a];
		a++;
	}

	extra[a++] = "--status-file=-";
	extra[a] = NULL;

	pid_t mon = monitors_start(pl, monitor, extra, fds[1]);

	close(fds[1]);

	FILE *in = fdopen(fds[0], "r");

	relay_output(in, mon, outcome, sizeof(outcome), &interrupted);
	fclose(in);
	while (waitpid(mon, &st, 0) < 0 && errno == EINTR)
		interrupted = interrupted ? interrupted : signals_caught;
	if (!strcmp(outcome, "none") || (!strcmp(outcome, "hang") && !at->w.kill_on_hang))
		return 0;
	/* Watching was stopped (Ctrl-C, or SIGTERM/SIGHUP): a clean end, said once. Only Ctrl-C is
	 * known to leave the job running; SIGTERM also comes when the job itself ends (the SPANK
	 * plugin stops its watch when the batch script has ended). */
	if (interrupted && strcmp(outcome, "hang")) {
		fprintf(stderr, "parastack: stopped watching on %s; %snothing was left attached\n",
			interrupted == SIGINT ? "Ctrl-C" : strsignal(interrupted),
			interrupted == SIGINT ? "the job runs on, " : "");
		return 0;
	}
	if (strcmp(outcome, "hang")) {
		cmd_error("attach", "the monitors stopped without an outcome (mpirun status %d)%s",
			  WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
			  at->pids || at->pids_file ? "; nothing was left attached" : "");
		return EXIT_INPUT;
	}
	if (at->pids || at->pids_file) {
		fprintf(stderr, "parastack: the listed processes were ended (--on-hang=kill)\n");
		return PARASTACK_EXIT_HUNG;
	}
	if (at->steps.one)
		fprintf(stderr, "parastack: cancelling the hung Slurm step %u.%u (the allocation runs on)\n", at->job,
			at->steps.step);
	else
		fprintf(stderr, "parastack: cancelling the hung Slurm job %u\n", at->job);
	if (lookup_slurm_cancel(at->job, &at->steps, err, sizeof(err)) < 0) {
		cmd_error("attach", "%s", err);
		return EXIT_INPUT;
	}
	return PARASTACK_EXIT_HUNG;
}

int cmd_attach(int argc, char **argv)
{
	static struct slurm_job_info job;
	static struct placement pl;
	struct attach at = { 0 };
	char monitor[PATH_MAX], dir[] = "/tmp/parastack-attach.XXXXXX", pid_path[64] = "";
	int rc;

	if (parse_attach_options(&at, argc, argv) < 0)
		return EXIT_USAGE;
	if (sibling_program("parastack-monitor", monitor, sizeof(monitor)) < 0) {
		cmd_error("attach", "cannot find parastack-monitor next to parastack (%s); reinstall parastack",
			  monitor);
		return EXIT_INPUT;
	}
	if (at.job && !at.pids_file)
		rc = prepare_slurm(&at, &pl, &job);
	else if (!mkdtemp(dir)) {
		cmd_error("attach", "mkdtemp(/tmp): %s", strerror(errno));
		return EXIT_INPUT;
	} else {
		snprintf(pid_path, sizeof(pid_path), "%s/pids", dir);
		rc = prepare_pids(&at, &pl, pid_path, &job);
	}
	if (rc == 0)
		rc = watch(&at, &pl, monitor);
	if (pid_path[0]) {
		unlink(pid_path);
		rmdir(dir);
	}
	return rc;
}
