/* SPDX-License-Identifier: BSD-3-Clause */
/* site — what a watch leaves for the site that runs parastack, besides the user's own output:
 * a copy of every report in the administrator's directory (--report-dir, named after the job),
 * counters for the site's monitoring in a node_exporter textfile (--metrics-dir), and one line
 * in the Slurm job's record (AdminComment, when the monitor may set it). The leader alone
 * writes them; a failure is one line in the job's output and never stops the watch. Files are
 * written as root only where root alone can change the path (outfile_replace_site). */
#include "site.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "../../base/log.h"
#include "../../sched/lookup/lookup_slurm.h"
#include "../../base/promfile.h"
#include "../../base/ranges.h"
#include "jobmeta.h"
#include "outfile.h"

#define FAULTY_TEXT_MAX 128

/* In promfile.h's order of PROM_HANGS_*. */
static const char *const hang_types[SITE_HANG_TYPES] = { "computation", "communication", "io" };
_Static_assert(sizeof(((struct monitor *)0)->site_sent) / sizeof(long) == PROM_SERIES, "site_sent is one per series");
_Static_assert(PROM_HANGS_IO - PROM_HANGS_COMPUTATION + 1 == SITE_HANG_TYPES, "one series per hang type");

static int hang_index(const char *type)
{
	for (int i = 0; i < SITE_HANG_TYPES; i++)
		if (type && !strcmp(type, hang_types[i]))
			return i;
	return 0;
}

/* "6", "0-3,5": the report's faulty ranks, cut to fit. */
static void faulty_text(json_t *report, char *buf, size_t len)
{
	json_t *f = json_object_get(report, "faulty_ranks");
	int ranks[64], n = 0;
	size_t i;
	json_t *v;

	json_array_foreach(f, i, v)
		if (n < 64 && json_is_integer(v))
			ranks[n++] = (int)json_integer_value(v);
	if (n == 0)
		snprintf(buf, len, "none named");
	else
		ranges_format(ranks, n, buf, len);
	if (json_array_size(f) > 64)
		snprintf(buf + strlen(buf), len - strlen(buf), " and %zu more", json_array_size(f) - 64);
}

static void report_copy(struct monitor *m, json_t *report)
{
	char name[96], path[PATH_MAX], err[PATH_MAX + 160];

	jobmeta_file_name(m, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/parastack-%s.json", m->w.report_dir, name);
	if (outfile_replace_site(path, report, NULL, 0, &m->job.files_owner, 0640, err, sizeof(err)) < 0)
		log_say("the site's report directory: %s", err);
}

static void admin_comment(const struct monitor *m, json_t *report)
{
	uint32_t id = jobmeta_slurm_job(m);
	char faulty[FAULTY_TEXT_MAX], text[FAULTY_TEXT_MAX + 64], err[512];
	const char *type = json_string_value(json_object_get(report, "hang_type"));

	if (!id)
		return;
	faulty_text(report, faulty, sizeof(faulty));
	snprintf(text, sizeof(text), "parastack: hang (%s), faulty %s", type ? type : "unknown", faulty);
	if (lookup_slurm_admin_comment(id, text, err, sizeof(err)) < 0)
		log_say("the job's AdminComment was not set: %s", err);
}

/* The counters of this watch not yet written. */
static void counts_now(const struct monitor *m, long *now)
{
	now[PROM_JOBS] = m->cost_samples > 0; /* ranks were sampled: a job was watched */
	now[PROM_SUSPICIONS] = m->suspicions_total;
	now[PROM_DISMISSED] = m->dismissed_total + m->conf.dismissed;
	for (int i = 0; i < SITE_HANG_TYPES; i++)
		now[PROM_HANGS_COMPUTATION + i] = m->site_hangs[i];
	now[PROM_SAMPLES] = m->cost_samples;
	now[PROM_RANKS_STOPPED] = m->cost_stopped;
	now[PROM_SAMPLING_SECONDS] = (long)(m->cost_ms_sum + 0.5); /* ms, written as seconds */
	now[PROM_STRAGGLERS] = m->stragglers_total;
}

/* Add what this watch counted since the last flush to the node's textfile, under a lock so two
 * jobs' monitors on one node never lose each other's counts. */
void site_metrics_flush(struct monitor *m)
{
	char path[PATH_MAX], err[PATH_MAX + 160], text[4096];
	double vals[PROM_SERIES] = { 0 };
	long now[PROM_SERIES];
	int dirfd, lock;

	if (!is_leader(m) || !m->w.metrics_dir)
		return;
	counts_now(m, now);
	dirfd = open(m->w.metrics_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	lock = dirfd >= 0 ? openat(dirfd, PROMFILE_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
	if (lock < 0 || flock(lock, LOCK_EX) < 0) {
		if (!m->site_said)
			log_say("the metrics in %s cannot be updated: %s", m->w.metrics_dir, strerror(errno));
		m->site_said = true;
	} else {
		promfile_read(dirfd, vals);
		for (int i = 0; i < PROM_SERIES; i++)
			vals[i] += (double)(now[i] - m->site_sent[i]) / (i == PROM_SAMPLING_SECONDS ? 1e3 : 1.0);
		snprintf(path, sizeof(path), "%s/%s", m->w.metrics_dir, PROMFILE_NAME);
		if (outfile_replace_site(path, NULL, text, promfile_format(vals, text, sizeof(text)), &m->job.files_owner, 0644,
					 err, sizeof(err)) < 0)
			log_say("the metrics: %s", err);
		else
			memcpy(m->site_sent, now, sizeof(now));
	}
	if (lock >= 0)
		close(lock);
	if (dirfd >= 0)
		close(dirfd);
}

/* The job's gauge file, parastack-job-NAME.prom: how many ranks hold it back now; -1 removes it
 * (the watch's end: a finished job has no gauge). */
void site_stragglers_gauge(struct monitor *m, int now)
{
	char name[96], file[160], path[PATH_MAX], text[512], err[PATH_MAX + 160];

	if (!is_leader(m) || !m->w.metrics_dir || (now < 0 && !m->site_gauge))
		return;
	jobmeta_file_name(m, name, sizeof(name));
	snprintf(file, sizeof(file), PROMFILE_JOB_PREFIX "%s.prom", name);
	if (now < 0) {
		int dirfd = open(m->w.metrics_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (dirfd >= 0 && unlinkat(dirfd, file, 0) < 0 && errno != ENOENT)
			log_say("the metrics: unlink(%s/%s): %s", m->w.metrics_dir, file, strerror(errno));
		if (dirfd >= 0)
			close(dirfd);
		m->site_gauge = false;
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", m->w.metrics_dir, file);
	if (outfile_replace_site(path, NULL, text, promfile_format_job(name, now, text, sizeof(text)), &m->job.files_owner,
				 0644, err, sizeof(err)) < 0)
		log_say("the metrics: %s", err);
	else
		m->site_gauge = true;
}

void site_hang_reported(struct monitor *m, json_t *report)
{
	if (!is_leader(m))
		return;
	m->site_hangs[hang_index(json_string_value(json_object_get(report, "hang_type")))]++;
	if (m->w.report_dir)
		report_copy(m, report);
	/* A site's deployment (its directories named) also wants the job's record to say it. */
	if (m->w.report_dir || m->w.metrics_dir)
		admin_comment(m, report);
	site_metrics_flush(m);
}
