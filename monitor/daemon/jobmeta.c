/* SPDX-License-Identifier: BSD-3-Clause */
/* jobmeta — the job a report is about, and the report's versions (jobmeta.h). */
#include "jobmeta.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sched/lookup/lookup_slurm.h"
#include "../sample/safe/procfs.h"

#define JOBMETA_COMMAND_MAX 4096 /* bytes of a command line kept */
#define JOBMETA_HOSTS_MAX 4096   /* hosts listed; a bigger job's list is cut, and says so */

uint32_t jobmeta_slurm_job(const struct monitor *m)
{
	uint32_t id = 0;
	const char *env = getenv("SLURM_JOB_ID");

	if (m->job.slurm_job)
		return m->job.slurm_job;
	if (env && lookup_slurm_parse_jobid(env, &id) < 0)
		id = 0;
	return id;
}

static const char *pbs_job(const struct monitor *m)
{
	const char *pbs = m->job.pbs_job ? m->job.pbs_job : getenv("PBS_JOBID");

	return pbs && *pbs ? pbs : NULL;
}

void jobmeta_scheduler_id(const struct monitor *m, char *buf, size_t len)
{
	uint32_t id = jobmeta_slurm_job(m);

	if (id && m->job.slurm_steps.one)
		snprintf(buf, len, "%u.%u", id, m->job.slurm_steps.step); /* one of the job's watched steps */
	else if (id)
		snprintf(buf, len, "%u", id);
	else
		snprintf(buf, len, "%s", pbs_job(m) ? pbs_job(m) : "");
}

void jobmeta_file_name(const struct monitor *m, char *buf, size_t len)
{
	size_t k = 0;

	jobmeta_scheduler_id(m, buf, len);
	if (!*buf)
		snprintf(buf, len, "%s-%d", m->comm.host, (int)getpid());
	for (char *p = buf; *p && k < 64; p++, k++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '-' || *p == '_'))
			*p = '_';
	buf[k < len ? k : len - 1] = '\0';
}

/* The command line of pid as one string: arguments joined by spaces, unprintable bytes '?'. */
static char *command_of(pid_t pid)
{
	char buf[JOBMETA_COMMAND_MAX];
	ssize_t n = pid > 0 ? procfs_cmdline(pid, buf, sizeof(buf)) : -1;

	if (n <= 0)
		return NULL;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
		else if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] == 0x7f)
			buf[i] = '?';
	buf[n] = '\0';
	return strdup(buf);
}

/* The launcher where this monitor sees it, else the lowest rank on this node. */
static pid_t command_pid(const struct monitor *m)
{
	int best = -1;

	if (m->job.launcher > 0 && m->job.on_launcher_host)
		return m->job.launcher;
	for (int i = 0; i < m->job.nranks; i++)
		if (m->job.table[i].monitor == m->comm.me && (best < 0 || m->job.table[i].rank < m->job.table[best].rank))
			best = i;
	return best >= 0 ? m->job.table[best].pid : 0;
}

/* s as a JSON string; where it is not UTF-8 (a process's bytes are its own), its bytes past
 * ASCII as '?'. */
static json_t *text_json(const char *s)
{
	json_t *j = s ? json_string(s) : json_null();
	char *copy;

	if (j || !(copy = strdup(s)))
		return j;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

void jobmeta_note_round(struct monitor *m)
{
	json_t *hosts = json_array();
	bool *seen = calloc((size_t)m->comm.size + 1, sizeof(bool)); /* a host per monitor */

	if (!hosts || !seen) {
		json_decref(hosts);
		free(seen);
		return;
	}
	/* The table is sorted by rank: hosts in the order their first rank comes. */
	for (int i = 0; i < m->job.nranks && json_array_size(hosts) < JOBMETA_HOSTS_MAX; i++) {
		const struct table_entry *e = &m->job.table[i];
		char h[COMM_HOST_MAX + 1];

		if (e->monitor < 0 || e->monitor >= m->comm.size || seen[e->monitor])
			continue;
		seen[e->monitor] = true;
		snprintf(h, sizeof(h), "%.*s", COMM_HOST_MAX, e->host);
		json_array_append_new(hosts, text_json(h));
	}
	free(seen);
	json_decref(m->meta_hosts);
	m->meta_hosts = hosts;
	if (!m->meta_command)
		m->meta_command = command_of(command_pid(m));
	if (m->meta_started_wall <= 0)
		m->meta_started_wall = wall_s() - (mono_ms() - m->t0_ms) / 1e3;
}

static json_t *user_json(uid_t uid)
{
	struct passwd pw, *found = NULL;
	char buf[4096];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) == 0 && found)
		return text_json(found->pw_name);
	return json_null();
}

void jobmeta_add(const struct monitor *m, json_t *report)
{
	char id[96];
	json_t *job, *hosts = m->meta_hosts ? json_incref(m->meta_hosts) : json_array();

	jobmeta_scheduler_id(m, id, sizeof(id));
	job = json_pack("{s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o}",
			"id", *id ? text_json(id) : json_null(),
			"scheduler", jobmeta_slurm_job(m) ? json_string("slurm") :
				     pbs_job(m) ? json_string("torque") : json_null(),
			"launcher_pid", m->job.launcher > 0 ? json_integer(m->job.launcher) : json_null(),
			"uid", (int)m->job.uid, "user", user_json(m->job.uid),
			"command", text_json(m->meta_command),
			"hosts", hosts,
			"watch_started_at", m->meta_started_wall > 0 ? json_real(m->meta_started_wall) : json_null());
	if (!job)
		return;
	json_object_set_new(report, "schema_version", json_integer(REPORT_SCHEMA_VERSION));
	json_object_set_new(report, "parastack_version", json_string(PARASTACK_VERSION));
	json_object_set_new(report, "job", job);
}
