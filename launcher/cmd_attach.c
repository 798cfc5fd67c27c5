/* cmd_attach — `parastack attach [options] --slurm-job JOBID`: watch a Slurm job that is
 * already running. The monitors run as an MPI job of their own inside the job's allocation,
 * one per node: mpirun, told the allocation through the SLURM_* variables, starts them with
 * `srun --overlap`, so they share the nodes' CPUs with the job's steps. The outcome comes back
 * as the leader's last line on standard output (its node's files may not be ours). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <limits.h>

#include "../monitor/exitcodes.h"
#include "../monitor/signals.h"
#include "../sched/slurm/sched_slurm.h"
#include "commands.h"
#include "options.h"

static const char attach_usage[] =
	"usage: parastack attach [options] --slurm-job JOBID\n"
	"Watch a running Slurm job for hangs: one monitor per node of its allocation, started as an\n"
	"overlapping step. The report is printed here.\n"
	"\n"
	"  --slurm-job JOBID     the running job to watch\n"
	"  --alpha A, --interval MS, --max-interval MS, --set-size C, --seed N   the model\n"
	"  --on-hang=report|kill report and keep watching (default), or cancel the job after the report\n"
	"  --report FILE         write the JSON report to FILE (on the first node of the job)\n"
	"  --trace FILE          record every sample (t_ms S C) for parastack replay\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0 when the job ended (with --on-hang=report, whatever was reported); 86 when a\n"
	"hang was found and the job cancelled; 1 when the job could not be watched.\n";

struct attach {
	struct common_options opt;
	bool kill_on_hang;
	const char *report, *trace;
	uint32_t job;
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static int parse_attach_options(struct attach *at, int argc, char **argv)
{
	static const struct option longopts[] = {
		MODEL_LONGOPTS,
		{ "slurm-job", required_argument, NULL, 'J' },
		{ "on-hang", required_argument, NULL, 'H' },
		{ "report", required_argument, NULL, 'R' },
		{ "trace", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx;

	common_options_default(&at->opt);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, &idx)) != -1) {
		switch (c) {
		case 0:
			if (common_option_apply("attach", &at->opt, longopts[idx].name, optarg) < 0)
				return -1;
			break;
		case 'J':
			if (sched_slurm_parse_jobid(optarg, &at->job) < 0) {
				cmd_error("attach", "--slurm-job: '%s' is not a Slurm job id", optarg);
				return -1;
			}
			break;
		case 'H':
			if (option_on_hang("attach", optarg, &at->kill_on_hang) < 0)
				return -1;
			break;
		case 'R':
		case 'T':
			if (option_output_path("attach", c == 'R' ? "report" : "trace", optarg) < 0)
				return -1;
			*(c == 'R' ? &at->report : &at->trace) = optarg;
			break;
		case 'h':
			fputs(attach_usage, stdout);
			exit(0);
		default:
			cmd_error("attach", "option '%s' is unknown or lacks its value; see 'parastack attach --help'",
				  argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		cmd_error("attach", "unexpected argument '%s'; see 'parastack attach --help'", argv[optind]);
		return -1;
	}
	if (!at->job) {
		cmd_error("attach", "say which job: --slurm-job JOBID");
		return -1;
	}
	return common_options_check("attach", &at->opt);
}

/* mpirun, in the job's allocation, with stdout to the pipe fd. */
static pid_t start_monitors(const struct attach *at, const struct slurm_job_info *job,
			    const char *monitor, int out_fd)
{
	char *argv[32], model[5][64], jobid[16], tasks[32], *report = NULL;
	int a = 0;
	pid_t pid;

	snprintf(jobid, sizeof(jobid), "%u", at->job);
	argv[a++] = "mpirun";
	argv[a++] = "--map-by";
	argv[a++] = "ppr:1:node";
	argv[a++] = "--bind-to";
	argv[a++] = "none";
	argv[a++] = (char *)monitor;
	argv[a++] = "--slurm-job";
	argv[a++] = jobid;
	a += model_options_argv(&at->opt, argv + a, model);
	argv[a++] = at->kill_on_hang ? "--on-hang=kill" : "--on-hang=report";
	argv[a++] = "--status-file=-";
	if (at->report) {
		/* The leader may start in another directory, on another node. */
		argv[a++] = "--report";
		argv[a++] = report = option_absolute_path(at->report);
	}
	if (at->trace) {
		argv[a++] = "--trace";
		argv[a++] = (char *)at->trace;
	}
	argv[a] = NULL;
	snprintf(tasks, sizeof(tasks), "1(x%d)", job->num_nodes);
	if ((pid = fork()) == 0) {
		dup2(out_fd, STDOUT_FILENO);
		close(out_fd);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		/* The allocation as Open MPI's Slurm support reads it. */
		setenv("SLURM_JOB_ID", jobid, 1);
		setenv("SLURM_JOBID", jobid, 1);
		setenv("SLURM_NODELIST", job->nodes_expr, 1);
		setenv("SLURM_JOB_NODELIST", job->nodes_expr, 1);
		setenv("SLURM_TASKS_PER_NODE", tasks, 1);
		setenv("OMPI_MCA_plm_slurm_args", "--overlap", 1);
		if (getuid() == 0) {
			setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
			setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "parastack attach: cannot start mpirun: %s\n", strerror(errno));
		_exit(127);
	}
	free(report);
	return pid;
}

/* Pass the monitors' standard output through and pick out the outcome line, until mpirun
 * closes it. A signal to us (Ctrl-C) is passed on: mpirun stops the monitors, which detach. */
static void relay_output(FILE *in, pid_t mon, char *outcome, size_t len)
{
	char line[4096];
	size_t plen = strlen(MONITOR_STATUS_PREFIX);

	for (;;) {
		if (got_signal) {
			kill(mon, SIGTERM);
			got_signal = 0;
		}
		if (!fgets(line, sizeof(line), in)) {
			if (!ferror(in) || errno != EINTR)
				return;
			clearerr(in);
			continue;
		}
		if (!strncmp(line, MONITOR_STATUS_PREFIX, plen))
			snprintf(outcome, len, "%.*s", (int)strcspn(line + plen, "\n"), line + plen);
		else
			fputs(line, stdout);
	}
}

int cmd_attach(int argc, char **argv)
{
	static struct slurm_job_info job;
	struct attach at = { 0 };
	char monitor[PATH_MAX], err[512], outcome[32] = "";
	int fds[2], st;

	if (parse_attach_options(&at, argc, argv) < 0)
		return EXIT_USAGE;
	if (sibling_program("parastack-monitor", monitor, sizeof(monitor)) < 0) {
		cmd_error("attach", "cannot find parastack-monitor next to parastack (%s); reinstall parastack",
			  monitor);
		return EXIT_INPUT;
	}
	if (sched_slurm_job(at.job, &job, err, sizeof(err)) < 0) {
		cmd_error("attach", "%s", err);
		return EXIT_INPUT;
	}
	if (strcmp(job.state, "RUNNING")) {
		cmd_error("attach", "Slurm job %u is %s, not running; nothing to watch", at.job, job.state);
		return EXIT_INPUT;
	}
	if (pipe(fds) < 0) {
		cmd_error("attach", "pipe: %s", strerror(errno));
		return EXIT_INPUT;
	}
	signals_install(on_signal);

	pid_t mon = start_monitors(&at, &job, monitor, fds[1]);

	close(fds[1]);
	fprintf(stderr, "parastack: attaching to Slurm job %u (%d node(s): %s)\n", at.job, job.num_nodes,
		job.nodes_expr);
	FILE *in = fdopen(fds[0], "r");

	relay_output(in, mon, outcome, sizeof(outcome));
	fclose(in);
	while (waitpid(mon, &st, 0) < 0 && errno == EINTR)
		;
	if (strcmp(outcome, "hang")) {
		if (!strcmp(outcome, "none"))
			return 0;
		cmd_error("attach", "the monitors stopped without an outcome (mpirun status %d)",
			  WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return EXIT_INPUT;
	}
	fprintf(stderr, "parastack: cancelling the hung Slurm job %u\n", at.job);
	if (sched_slurm_cancel(at.job, err, sizeof(err)) < 0) {
		cmd_error("attach", "%s", err);
		return EXIT_INPUT;
	}
	return PARASTACK_EXIT_HUNG;
}
