/* SPDX-License-Identifier: BSD-3-Clause */
/* monitors — parastack-monitor as an MPI job over a running job's nodes (monitors.h). */
#include "monitors.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/exitcodes.h"
#include "../base/install_paths.h"
#include "../base/options.h"

#define ARGV_MAX 48

/* The allocation as Open MPI's Slurm support reads it, in the environment of mpirun. */
static void export_allocation(const struct slurm_job_info *job)
{
	char id[16], tasks[32];

	snprintf(id, sizeof(id), "%u", job->id);
	snprintf(tasks, sizeof(tasks), "1(x%d)", job->num_nodes);
	setenv("SLURM_JOB_ID", id, 1);
	setenv("SLURM_JOBID", id, 1);
	setenv("SLURM_NODELIST", job->nodes_expr, 1);
	setenv("SLURM_JOB_NODELIST", job->nodes_expr, 1);
	setenv("SLURM_TASKS_PER_NODE", tasks, 1);
}

bool monitors_is_this_machine(const char *host)
{
	static char me[256];

	if (!me[0])
		gethostname(me, sizeof(me) - 1);
	return pidlist_same_host(host, me);
}

static const struct pid_entry *sort_base;

/* Entries by host, then by position: the first of each host comes first. */
static int compare_host_index(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y, c = strcmp(sort_base[a].host, sort_base[b].host);

	return c ? c : (a > b) - (a < b);
}

int monitors_spans_hosts(const struct pid_entry *e, int n, struct placement *pl)
{
	int *order = malloc(sizeof(int) * ((size_t)n + 1));
	bool *first = calloc((size_t)n + 1, sizeof(bool)), remote = false;
	size_t len = 1, o = 0;

	free(pl->hosts);
	pl->hosts = NULL;
	if (!order || !first) {
		free(first);
		free(order);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		order[i] = i;
		remote |= !monitors_is_this_machine(e[i].host);
	}
	sort_base = e;
	qsort(order, (size_t)n, sizeof(int), compare_host_index);
	for (int k = 0; k < n; k++)
		if (k == 0 || strcmp(e[order[k]].host, e[order[k - 1]].host)) {
			first[order[k]] = true;
			len += strlen(e[order[k]].host) + 1;
		}
	if (remote && (pl->hosts = malloc(len)))
		for (int i = 0; i < n; i++)
			if (first[i])
				o += (size_t)snprintf(pl->hosts + o, len - o, "%s%s", o ? "," : "", e[i].host);
	free(first);
	free(order);
	return !remote ? 0 : pl->hosts ? 1 : -1;
}

int monitors_running_job(const char *cmd, uint32_t id, struct slurm_job_info *job,
			 const char *why_it_matters)
{
	char err[512];

	if (lookup_slurm_job(id, job, err, sizeof(err)) < 0) {
		cmd_error(cmd, "%s", err);
		return -1;
	}
	if (strcmp(job->state, "RUNNING")) {
		cmd_error(cmd, "Slurm job %u is %s, not running; %s", id, job->state, why_it_matters);
		return -1;
	}
	return 0;
}

/* How many monitors one per node makes, for hydra's -n (Open MPI's ppr:1:node counts them
 * itself): the hosts named, the host file's lines, or the allocation's nodes. */
static int spread_nodes(const struct monitor_spread *s)
{
	const char *env;
	int n = 0;

	if (s->hosts) {
		n = 1;
		for (const char *c = s->hosts; *c; c++)
			n += *c == ',';
		return n;
	}
	if (s->hostfile) {
		FILE *f = fopen(s->hostfile, "r");
		char line[256];

		for (int i = 0; f && i < 65536 && fgets(line, sizeof(line), f); i++)
			n += line[strspn(line, " \t\r\n")] != '\0';
		if (f)
			fclose(f);
		return n > 0 ? n : 1;
	}
	if (s->nodes > 0)
		return s->nodes;
	env = getenv("SLURM_JOB_NUM_NODES");
	n = env ? atoi(env) : 0;
	return n > 0 ? n : 1;
}

int monitors_mpirun_argv(char **argv, struct monitor_spread *s)
{
	bool hydra = install_mpirun_is_hydra();
	int a = 0;

	argv[a++] = (char *)install_mpirun();
	if (s->hosts) {
		argv[a++] = hydra ? "-hosts" : "--host";
		argv[a++] = (char *)s->hosts;
	} else if (s->hostfile) {
		argv[a++] = hydra ? "-f" : "--hostfile";
		argv[a++] = (char *)s->hostfile;
	}
	if (!hydra) {
		argv[a++] = s->per_node ? "--map-by" : "-np";
		argv[a++] = s->per_node ? "ppr:1:node" : "1";
		argv[a++] = "--bind-to";
		argv[a++] = "none";
		if (s->oversubscribe)
			argv[a++] = "--oversubscribe"; /* hydra places as many as asked */
		return a;
	}
	if (s->per_node) {
		argv[a++] = "-ppn";
		argv[a++] = "1";
	}
	snprintf(s->count, sizeof(s->count), "%d", s->per_node ? spread_nodes(s) : 1);
	argv[a++] = "-n";
	argv[a++] = s->count;
	argv[a++] = "-bind-to";
	argv[a++] = "none";
	return a;
}

pid_t monitors_start(const struct placement *pl, const char *monitor, char *const *extra, int out_fd)
{
	char *argv[ARGV_MAX];
	bool named = pl->hosts && pl->hosts[0];
	struct monitor_spread spread = { .hosts = named ? pl->hosts : NULL, .per_node = pl->alloc || named,
					 .nodes = pl->alloc ? pl->alloc->num_nodes : 0 };
	int a = monitors_mpirun_argv(argv, &spread);
	pid_t pid;

	argv[a++] = (char *)monitor;
	argv[a++] = (char *)pl->what;
	argv[a++] = (char *)pl->value;
	for (int i = 0; extra[i] && a < ARGV_MAX - 1; i++)
		argv[a++] = extra[i];
	argv[a] = NULL;
	if ((pid = fork()) == 0) {
		if (out_fd >= 0) {
			dup2(out_fd, STDOUT_FILENO);
			close(out_fd);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (pl->alloc)
			export_allocation(pl->alloc);
		monitor_launch_env(pl->alloc != NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "parastack: cannot start %s (the monitors' launcher): %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

void monitors_relay_line(const char *line, char *outcome, size_t len)
{
	size_t plen = strlen(MONITOR_STATUS_PREFIX);

	if (!strncmp(line, MONITOR_STATUS_PREFIX, plen))
		snprintf(outcome, len, "%.*s", (int)strcspn(line + plen, "\n"), line + plen);
	else
		fputs(line, stdout);
}
