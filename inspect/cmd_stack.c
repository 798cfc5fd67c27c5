/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_stack — `parastack stack`: one-shot, MPI-aware stacks of running processes, like pstack:
 * each PID's MPI rank, IN_MPI/OUT_MPI state, and every thread's frames with file:line. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../monitor/job/discover.h"
#include "../base/pidlist.h"
#include "../monitor/hang/report_stacks.h"
#include "../launcher/commands.h"
#include "../launcher/monitors.h"
#include "../base/install_paths.h"
#include "../base/options.h"
#include "../base/option_docs.h"

static const char stack_usage_head[] =
	"usage: parastack stack [--json] [--tree] (PID... | --pids LIST | --launcher PID |\n"
	"                       --pids-file FILE | --slurm-job JOBID)\n"
	"Print the stacks of running processes, with each one's MPI rank and whether it is inside\n"
	"MPI (IN_MPI) or in application code (OUT_MPI). Each thread is stopped for microseconds.\n"
	"\n";
static const char stack_usage_tail[] =
	"\n"
	"Exit status: 0 when every process was looked at; 1 when one could not be (each is named);\n"
	"2 for bad options.\n";
static const struct command_help stack_usage = { stack_usage_head, HELP_STACK, stack_usage_tail };

static int parse_pid(const char *arg, pid_t *pid)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v <= 0 || v > 4194304)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

#define STACK_REMOTE (-2) /* file_pids: the ranks are on other hosts too */

/* The MPI ranks below the launcher PID, in rank order; count or -1. */
static int launcher_pids(const char *launcher, pid_t **pids)
{
	struct job_proc *procs = calloc(PIDLIST_MAX, sizeof(*procs));
	pid_t root;
	int n;

	if (!procs || parse_pid(launcher, &root) < 0) {
		cmd_error("stack", "--launcher: '%s' is not a process id", launcher);
		free(procs);
		return -1;
	}
	n = discover_descendants(root, procs, PIDLIST_MAX);
	if (n < 0) {
		cmd_error("stack", "--launcher %d: no such process", (int)root);
		free(procs);
		return -1;
	}
	*pids = calloc((size_t)n + 1, sizeof(pid_t));
	for (int i = 0; *pids && i < n; i++)
		(*pids)[i] = procs[i].pid;
	free(procs);
	if (n == 0)
		cmd_error("stack", "--launcher %s: no MPI ranks among its descendants", launcher);
	return n ? n : -1;
}

/* The PIDs of a --pids list (count, or -1 after one line). */
static int list_pids(const char *list, pid_t **pids)
{
	char err[600];
	struct pid_entry *e = calloc(PIDLIST_MAX, sizeof(*e));
	int n = e ? pidlist_parse_list(list, e, PIDLIST_MAX, err, sizeof(err)) : -1;

	if (n < 0)
		cmd_error("stack", "%s", e ? err : "out of memory");
	*pids = n > 0 ? calloc((size_t)n + 1, sizeof(pid_t)) : NULL;
	for (int i = 0; *pids && i < n; i++)
		(*pids)[i] = e[i].pid;
	free(e);
	return n;
}

/* The PIDs of FILE when all are this machine's (count, or -1); STACK_REMOTE with pl's hosts
 * when it names other hosts too. */
static int file_pids(const char *file, pid_t **pids, struct placement *pl)
{
	char err[600];
	struct pid_entry *e = calloc(PIDLIST_MAX, sizeof(*e));
	int n = e ? pidlist_read_file(file, e, PIDLIST_MAX, err, sizeof(err)) : -1;

	if (n < 0) {
		cmd_error("stack", "%s", e ? err : "out of memory");
		free(e);
		return -1;
	}
	int spans = monitors_spans_hosts(e, n, pl);

	if (spans != 0) {
		free(e);
		if (spans < 0)
			fprintf(stderr, "parastack stack: out of memory listing the PID list's hosts\n");
		return spans < 0 ? -1 : STACK_REMOTE;
	}
	*pids = calloc((size_t)n + 1, sizeof(pid_t));
	for (int i = 0; *pids && i < n; i++)
		(*pids)[i] = e[i].pid;
	free(e);
	return n;
}

/* mpirun's standard output passed on, but for the leader's outcome line: did it say "none"
 * (every rank looked at)? */
static bool relay_output(int fd)
{
	FILE *in = fdopen(fd, "r");
	char line[4096], outcome[16] = "";

	while (in && fgets(line, sizeof(line), in))
		monitors_relay_line(line, outcome, sizeof(outcome));
	if (in)
		fclose(in);
	return !strcmp(outcome, "none");
}

/* A job on several nodes: parastack-monitor on each (pl) looks at its node's ranks and the first
 * prints them all. The exit status. */
static int stack_remote(const struct placement *pl, enum pstack_format f)
{
	char monitor[PATH_MAX];
	char *extra[] = { "--stack", (char *)pstack_format_name(f), "--status-file=-", NULL };
	int fds[2], st;

	if (sibling_program("parastack-monitor", monitor, sizeof(monitor)) < 0) {
		cmd_error("stack", "cannot find parastack-monitor next to parastack (%s); reinstall parastack",
			  monitor);
		return EXIT_INPUT;
	}
	if (pipe(fds) < 0) {
		cmd_error("stack", "pipe: %s", strerror(errno));
		return EXIT_INPUT;
	}
	/* Ctrl-C reaches mpirun too (same terminal): it stops the monitors, which let go. */
	signal(SIGINT, SIG_IGN);

	pid_t pid = monitors_start(pl, monitor, extra, fds[1]);

	close(fds[1]);

	bool ok = relay_output(fds[0]);

	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return pid > 0 && ok ? 0 : EXIT_INPUT;
}

/* --slurm-job, or --pids-file naming other hosts: where the monitors go. 0, or an exit status. */
static int place_remote(uint32_t job, const char *file, struct placement *pl,
			struct slurm_job_info *alloc)
{
	static char id[16];

	if (job && monitors_running_job("stack", job, alloc, "there is nothing to look at") < 0)
		return EXIT_INPUT;
	pl->alloc = job ? alloc : NULL;
	if (file) {
		pl->what = "--pids-file";
		pl->value = option_absolute_path(file);
	} else {
		snprintf(id, sizeof(id), "%u", job);
		pl->what = "--slurm-job";
		pl->value = id;
		pl->hosts = NULL;
	}
	return 0;
}

/* This machine's processes, looked at here. The exit status. */
static int stack_local(const pid_t *pids, int n, enum pstack_format f)
{
	int failed = 0;
	json_t *items = pstack_items(pids, NULL, n, NULL, f, &failed);

	report_print_stacks(stdout, items, f);
	json_decref(items);
	return failed ? EXIT_INPUT : 0;
}

/* The PIDs given as arguments; count, or -1 after one line. */
static int argument_pids(int argc, char **argv, pid_t **pids)
{
	*pids = calloc((size_t)argc + 1, sizeof(pid_t));
	for (int i = 0; *pids && i < argc; i++)
		if (parse_pid(argv[i], &(*pids)[i]) < 0) {
			cmd_error("stack", "'%s' is not a process id (a positive whole number)", argv[i]);
			return -1;
		}
	return argc;
}

int cmd_stack(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "tree", no_argument, NULL, 't' },
		{ "launcher", required_argument, NULL, 'L' },
		{ "pids", required_argument, NULL, 'P' },
		{ "pids-file", required_argument, NULL, 'F' },
		{ "slurm-job", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct placement pl;
	static struct slurm_job_info alloc;
	bool json = false, tree = false;
	const char *launcher = NULL, *file = NULL, *list = NULL;
	uint32_t job = 0;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			command_help_print(stdout, &stack_usage);
			return 0;
		}
		if (c == 'j' || c == 't') {
			*(c == 'j' ? &json : &tree) = true;
			continue;
		}
		if (c == 'L' || c == 'F' || c == 'P') {
			*(c == 'L' ? &launcher : c == 'F' ? &file : &list) = optarg;
			continue;
		}
		if (c == 'J' && lookup_slurm_parse_jobid(optarg, &job) == 0)
			continue;
		if (c == 'J')
			cmd_error("stack", "--slurm-job: '%s' is not a Slurm job id", optarg);
		else if (optopt >= '0' && optopt <= '9')
			cmd_error("stack", "'%s' is not a process id (a positive whole number)", argv[optind - 1]);
		else
			option_unknown("stack", argv, longopts);
		return EXIT_USAGE;
	}
	if ((optind < argc) + !!launcher + !!file + !!list + (job && !file) != 1) {
		cmd_error("stack", "name the processes once: PIDs, --pids LIST, --launcher PID, --pids-file FILE or "
			  "--slurm-job JOBID; see 'parastack stack --help'");
		return EXIT_USAGE;
	}

	enum pstack_format format = tree ? (json ? PSTACK_TREE_JSON : PSTACK_TREE) :
				    json ? PSTACK_JSON : PSTACK_TEXT;
	pid_t *pids = NULL;
	int n = launcher ? launcher_pids(launcher, &pids) :
		list ? list_pids(list, &pids) :
		file ? file_pids(file, &pids, &pl) :
		job ? STACK_REMOTE : argument_pids(argc - optind, argv + optind, &pids);
	int rc;

	if (n == STACK_REMOTE)
		rc = place_remote(job, file, &pl, &alloc) ? EXIT_INPUT : stack_remote(&pl, format);
	else if (n < 0 || !pids)
		rc = n < 0 && !launcher && !file && !job ? EXIT_USAGE : EXIT_INPUT;
	else
		rc = stack_local(pids, n, format);
	free(pids);
	return rc;
}
