/* SPDX-License-Identifier: BSD-3-Clause */
/* lookup_slurm — libslurm calls: slurm_load_job, slurm_get_job_steps, slurm_job_step_get_pids,
 * slurm_kill_job. libslurm finds the cluster the way Slurm's own commands do (SLURM_CONF or
 * the installed slurm.conf). */
#include "lookup_slurm.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#define PROBE_TIMEOUT_MS 10000 /* a controller that does not answer in this long is not there */

/* Read a child's first stderr line (libslurm's own words) into why, waiting at most until
 * deadline_ms; the child is killed past it. The child's exit status, or -1 on a timeout. */
static int probe_wait(pid_t pid, int errfd, char *why, size_t len)
{
	struct pollfd pfd = { .fd = errfd, .events = POLLIN };
	size_t got = 0;
	int status = -1;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	why[0] = '\0';
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);

		long left = PROBE_TIMEOUT_MS - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);

		if (left <= 0 || poll(&pfd, 1, (int)left) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			why[got] = '\0';
			why[strcspn(why, "\n")] = '\0';
			return -1;
		}

		ssize_t n = read(errfd, why + got, got + 1 < len ? len - 1 - got : 0);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	why[got] = '\0';
	why[strcspn(why, "\n")] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* libslurm's line "prog: error: what went wrong, retrying in 1sec up to 60sec": the middle. */
static const char *slurm_words(char *line)
{
	static const char *const heads[] = { "error: ", "fatal: ", NULL };
	char *p = line, *q;
	size_t prog = strlen(program_invocation_short_name);

	if (!strncmp(p, program_invocation_short_name, prog) && !strncmp(p + prog, ": ", 2))
		p += prog + 2;
	for (int i = 0; heads[i]; i++)
		if ((q = strstr(p, heads[i])))
			p = q + strlen(heads[i]);
	if ((q = strstr(p, ", retrying")))
		*q = '\0';
	return *p ? p : "no configuration or controller found";
}

/* Can Slurm be asked from here? libslurm exits the whole process (fatal()) when it finds no
 * configuration, and retries an absent controller for a minute, printing as it goes: so a child
 * asks first, with its words captured and a deadline. Asked once per process. */
static int slurm_reachable(char *err, size_t len)
{
	static int known = -1; /* -1 not asked yet, 0 no, 1 yes */
	static char reason[256];
	int fds[2];

	if (known < 0 && pipe(fds) == 0) {
		pid_t pid = fork();

		if (pid == 0) {
			dup2(fds[1], STDERR_FILENO);
			close(fds[0]);
			close(fds[1]);
			slurm_init(NULL);
			_exit(slurm_ping(0) == SLURM_SUCCESS ? 0 : 3);
		}
		close(fds[1]);

		int rc = pid < 0 ? -1 : probe_wait(pid, fds[0], reason, sizeof(reason));

		close(fds[0]);
		known = rc == 0;
		if (rc < 0)
			snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
				 "%sno answer within %d s", reason[0] ? ", retrying; " : "", PROBE_TIMEOUT_MS / 1000);
		else if (rc != 0 && !reason[0])
			snprintf(reason, sizeof(reason), "its controller does not answer");
	}
	if (known == 1) {
		static bool done;

		if (!done)
			slurm_init(NULL);
		done = true;
		return 0;
	}
	snprintf(err, len, "Slurm cannot be asked from here: %s", slurm_words(reason));
	return -1;
}

static void fail(char *err, size_t len, const char *call, uint32_t id)
{
	int e = slurm_get_errno();

	snprintf(err, len, "%s(job %u): %s", call, id, slurm_strerror(e));
}

static const char *state_name(uint32_t state)
{
	static const char *const names[] = { "PENDING",  "RUNNING",   "SUSPENDED", "COMPLETED",
					     "CANCELLED", "FAILED",    "TIMEOUT",   "NODE_FAIL",
					     "PREEMPTED", "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY" };
	uint32_t base = state & JOB_STATE_BASE;

	return base < sizeof(names) / sizeof(names[0]) ? names[base] : "UNKNOWN";
}

/* Expand a host list expression ("n[1-4]") into job->nodes. 0, or -1 when the job has more
 * nodes or longer names than the list holds (never a list cut short). */
static int expand_nodes(const char *expr, struct slurm_job_info *job)
{
	hostlist_t hl = slurm_hostlist_create(expr ? expr : "");
	char *h;
	int rc = 0;

	job->num_nodes = 0;
	if (!hl)
		return 0;
	while (rc == 0 && (h = slurm_hostlist_shift(hl))) {
		if (job->num_nodes == SCHED_SLURM_NODES_MAX || strlen(h) >= SCHED_SLURM_NAME_MAX)
			rc = -1;
		else
			snprintf(job->nodes[job->num_nodes++], SCHED_SLURM_NAME_MAX, "%s", h);
		free(h);
	}
	slurm_hostlist_destroy(hl);
	return rc;
}

int lookup_slurm_job(uint32_t id, struct slurm_job_info *job, char *err, size_t len)
{
	job_info_msg_t *msg = NULL;

	memset(job, 0, sizeof(*job));
	if (slurm_reachable(err, len) < 0)
		return -1;
	if (slurm_load_job(&msg, id, SHOW_ALL) != SLURM_SUCCESS) {
		fail(err, len, "slurm_load_job", id);
		return -1;
	}
	if (!msg || msg->record_count < 1) {
		snprintf(err, len, "slurm_load_job(job %u): no such job", id);
		slurm_free_job_info_msg(msg);
		return -1;
	}

	/* An array's own id brings every task of the array: the one asked for is its own record. */
	slurm_job_info_t *j = &msg->job_array[0];

	for (uint32_t i = 0; i < msg->record_count; i++)
		if (msg->job_array[i].job_id == id)
			j = &msg->job_array[i];

	job->id = j->job_id;
	snprintf(job->state, sizeof(job->state), "%s", state_name(j->job_state));
	job->exit_status = WIFEXITED(j->exit_code) ? WEXITSTATUS(j->exit_code) : 128 + WTERMSIG(j->exit_code);
	job->num_tasks = (int)j->num_tasks;
	job->uid = (uid_t)j->user_id;
	job->gid = (gid_t)j->group_id;
	/* An allocation without a batch script (salloc) names a host too: no batch step there. */
	snprintf(job->batch_host, sizeof(job->batch_host), "%s", j->batch_host && j->batch_flag ? j->batch_host : "");
	int too_big = j->nodes && strlen(j->nodes) >= sizeof(job->nodes_expr);

	snprintf(job->nodes_expr, sizeof(job->nodes_expr), "%s", j->nodes ? j->nodes : "");
	too_big |= expand_nodes(j->nodes, job) < 0;
	slurm_free_job_info_msg(msg);
	if (too_big) {
		snprintf(err, len, "Slurm job %u has more than %d nodes, or names longer than %d "
			 "characters: more than parastack can watch", id, SCHED_SLURM_NODES_MAX,
			 SCHED_SLURM_NAME_MAX - 1);
		return -1;
	}
	return 0;
}

/* SlurmdSpoolDir as configured ("%n" and "%h" in it not yet expanded); "" when unknown. */
static const char *spool_template(void)
{
	static char dir[PATH_MAX];
	static bool asked;
	slurm_conf_t *conf = NULL;

	if (!asked && slurm_load_ctl_conf((time_t)0, &conf) == SLURM_SUCCESS && conf) {
		snprintf(dir, sizeof(dir), "%s", conf->slurmd_spooldir ? conf->slurmd_spooldir : "");
		slurm_free_ctl_conf(conf);
	}
	asked = true;
	return dir;
}

/* Is the step's slurmstepd on this node now? Its socket in the spool directory
 * (NODE_JOB.STEP[.HETCOMP]) says so. Asking slurmd for the pids of a step that has not reached
 * the node, or has just left it, makes libslurm print "Invalid job id specified" into the job's
 * output: a step is asked only when its socket is there, or when that cannot be told. */
static bool stepd_here(const slurm_step_id_t *sid, const char *node)
{
	const char *t = spool_template();
	char dir[PATH_MAX], path[PATH_MAX + 128], host[256] = "";
	size_t o = 0;
	struct stat st;

	gethostname(host, sizeof(host) - 1);
	for (; *t && o + 1 < sizeof(dir); t++) {
		if (t[0] == '%' && (t[1] == 'n' || t[1] == 'h')) {
			o += (size_t)snprintf(dir + o, sizeof(dir) - o, "%s", t[1] == 'n' ? node : host);
			t++;
		} else {
			dir[o++] = *t;
		}
		o = o < sizeof(dir) ? o : sizeof(dir) - 1;
	}
	dir[o] = '\0';
	if (!dir[0])
		return true;
	if (sid->step_het_comp != NO_VAL)
		snprintf(path, sizeof(path), "%s/%s_%u.%u.%u", dir, node, sid->job_id, sid->step_id, sid->step_het_comp);
	else
		snprintf(path, sizeof(path), "%s/%s_%u.%u", dir, node, sid->job_id, sid->step_id);
	return stat(path, &st) == 0 || errno != ENOENT;
}

/* libslurm says its own errors on standard error, which under the SPANK plugin is the job's
 * output: for a step that ends between the listing and the question ("Invalid job id
 * specified") that is noise the caller handles (the step is gone; it is asked no more). Its
 * words are kept out of the job's output while a node is asked; the caller is the monitor's
 * discovery, when no other thread of it writes. The saved descriptor, or -1. */
static int quiet_begin(void)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	if (null >= 0)
		close(null);
	return saved;
}

static void quiet_end(int saved)
{
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
}

/* Append the PIDs one step (its het component too) has on node; the new count. */
static int step_pids_on(const slurm_step_id_t *step, const char *node, pid_t *pids, int n, int max)
{
	slurm_step_id_t sid = *step;
	job_step_pids_response_msg_t *resp = NULL;
	char name[SCHED_SLURM_NAME_MAX];

	snprintf(name, sizeof(name), "%s", node);
	if (!stepd_here(&sid, node))
		return n;

	int saved = quiet_begin(), rc = slurm_job_step_get_pids(&sid, name, &resp);

	quiet_end(saved);
	if (rc != SLURM_SUCCESS || !resp)
		return n;
	if (resp->pid_list) {
		ListIterator it = slurm_list_iterator_create(resp->pid_list);
		job_step_pids_t *p;

		while ((p = slurm_list_next(it)))
			for (uint32_t i = 0; i < p->pid_cnt && n < max; i++)
				pids[n++] = (pid_t)p->pid[i];
		slurm_list_iterator_destroy(it);
	}
	slurm_job_step_pids_response_msg_free(resp);
	return n;
}

/* Does the step have tasks on node? (Asking a node it does not run on makes libslurm log an
 * error.) */
static bool step_runs_on(const job_step_info_t *step, const char *node)
{
	hostlist_t hl = slurm_hostlist_create(step->nodes ? step->nodes : "");
	bool found = hl && slurm_hostlist_find(hl, node) >= 0;

	if (hl)
		slurm_hostlist_destroy(hl);
	return found;
}

int lookup_slurm_step_pids(uint32_t id, const struct slurm_steps *which, const char *node, pid_t *pids,
			  int max, char *err, size_t len)
{
	job_step_info_response_msg_t *steps = NULL;
	int n = 0;

	if (slurm_reachable(err, len) < 0)
		return -1;
	if (slurm_get_job_steps(0, id, which->one ? which->step : NO_VAL, &steps, SHOW_ALL) != SLURM_SUCCESS) {
		fail(err, len, "slurm_get_job_steps", id);
		return -1;
	}
	for (uint32_t i = 0; steps && i < steps->job_step_count; i++) {
		const job_step_info_t *st = &steps->job_steps[i];

		/* Asked for an array's own id, the controller lists the steps of its other tasks too:
		 * they are other jobs. A step that is not running is not asked either. */
		if (st->step_id.job_id == id && st->step_id.step_id != SLURM_BATCH_SCRIPT &&
		    (!which->one || st->step_id.step_id == which->step) && (st->state & JOB_STATE_BASE) == JOB_RUNNING &&
		    step_runs_on(st, node))
			n = step_pids_on(&st->step_id, node, pids, n, max);
	}
	slurm_free_job_step_info_response_msg(steps);
	if (which->one)
		return n;

	/* The batch script's step is not listed; ask for it on the node that runs it. */
	static struct slurm_job_info job;
	char ignored[256];

	if (lookup_slurm_job(id, &job, ignored, sizeof(ignored)) == 0 && !strcmp(job.batch_host, node))
		n = step_pids_on(&(slurm_step_id_t){ .job_id = id, .step_id = SLURM_BATCH_SCRIPT, .step_het_comp = NO_VAL },
				 node, pids, n, max);
	return n;
}

int lookup_slurm_step_nodes(uint32_t id, uint32_t step, struct slurm_job_info *job, char *err, size_t len)
{
	job_step_info_response_msg_t *steps = NULL;
	const job_step_info_t *s = NULL;
	int rc = -1;

	if (slurm_reachable(err, len) < 0)
		return -1;
	if (slurm_get_job_steps(0, id, step, &steps, SHOW_ALL) != SLURM_SUCCESS) {
		fail(err, len, "slurm_get_job_steps", id);
		return -1;
	}
	for (uint32_t i = 0; steps && i < steps->job_step_count && !s; i++)
		if (steps->job_steps[i].step_id.job_id == id && steps->job_steps[i].step_id.step_id == step)
			s = &steps->job_steps[i];
	if (!s)
		snprintf(err, len, "Slurm job %u has no step %u running", id, step);
	else if (!s->nodes || strlen(s->nodes) >= sizeof(job->nodes_expr) || expand_nodes(s->nodes, job) < 0)
		snprintf(err, len, "Slurm step %u.%u has more nodes than parastack can watch", id, step);
	else
		rc = 0;
	if (rc == 0)
		snprintf(job->nodes_expr, sizeof(job->nodes_expr), "%s", s->nodes);
	slurm_free_job_step_info_response_msg(steps);
	return rc;
}

/* SlurmUser's uid, from the controller's configuration; (uid_t)-1 when it cannot be had. */
static uid_t slurm_user(void)
{
	slurm_conf_t *conf = NULL;
	uid_t uid = (uid_t)-1;

	if (slurm_load_ctl_conf((time_t)0, &conf) == SLURM_SUCCESS && conf) {
		uid = conf->slurm_user_id;
		slurm_free_ctl_conf(conf);
	}
	return uid;
}

int lookup_slurm_admin_comment(uint32_t id, const char *text, char *err, size_t len)
{
	job_desc_msg_t desc;

	if (slurm_reachable(err, len) < 0)
		return -1;
	if (geteuid() != 0 && geteuid() != slurm_user())
		return 1;
	slurm_init_job_desc_msg(&desc);
	desc.job_id = id;
	desc.admin_comment = (char *)text;
	if (slurm_update_job(&desc) != SLURM_SUCCESS) {
		fail(err, len, "slurm_update_job", id);
		return -1;
	}
	return 0;
}

int lookup_slurm_cancel(uint32_t id, const struct slurm_steps *steps, char *err, size_t len)
{
	if (slurm_reachable(err, len) < 0)
		return -1;
	if (steps->one ? slurm_kill_job_step(id, steps->step, SIGKILL) != SLURM_SUCCESS
		       : slurm_kill_job(id, SIGKILL, 0) != SLURM_SUCCESS) {
		fail(err, len, steps->one ? "slurm_kill_job_step" : "slurm_kill_job", id);
		return -1;
	}
	return 0;
}
