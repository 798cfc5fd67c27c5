/* SPDX-License-Identifier: BSD-3-Clause */
/* promfile — parastack's counters in node_exporter's textfile format (see promfile.h). */
#include "promfile.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct series {
	const char *name, *labels, *help; /* help: for the first series of a name */
} series[PROM_SERIES] = {
	{ "parastack_jobs_watched_total", "", "Watches of MPI jobs ended (the leading monitor's node)." },
	{ "parastack_suspicions_total", "", "Suspicions of a hang raised." },
	{ "parastack_suspicions_dismissed_total", "", "Suspicions dismissed: the job moved on." },
	{ "parastack_hangs_total", "{type=\"computation\"}", "Hangs reported, by type." },
	{ "parastack_hangs_total", "{type=\"communication\"}", NULL },
	{ "parastack_hangs_total", "{type=\"io\"}", NULL },
	{ "parastack_samples_total", "", "Sampling rounds taken." },
	{ "parastack_ranks_stopped_total", "", "Rank stops for a sample (each rank each round)." },
	{ "parastack_sampling_seconds_total", "", "Time the leading monitor spent in sampling rounds." },
	{ "parastack_stragglers_total", "", "Ranks named as holding their job back (a straggler, not a hang)." },
};

void promfile_parse(char *text, double *vals)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		for (int i = 0; i < PROM_SERIES && line[0] != '#'; i++) {
			size_t a = strlen(series[i].name), b = strlen(series[i].labels);
			char *end;
			double v;

			if (strncmp(line, series[i].name, a) || strncmp(line + a, series[i].labels, b) ||
			    line[a + b] != ' ')
				continue;
			v = strtod(line + a + b + 1, &end);
			if (end != line + a + b + 1 && v >= 0 && v < 1e18)
				vals[i] = v;
		}
	}
}

size_t promfile_format(const double *vals, char *buf, size_t len)
{
	size_t k = 0;

	for (int i = 0; i < PROM_SERIES && k < len; i++) {
		if (series[i].help)
			k += (size_t)snprintf(buf + k, len - k, "# HELP %s %s\n# TYPE %s counter\n", series[i].name,
					      series[i].help, series[i].name);
		if (k < len)
			k += (size_t)snprintf(buf + k, len - k, "%s%s %.17g\n", series[i].name, series[i].labels, vals[i]);
	}
	return k < len ? k : len;
}

size_t promfile_format_job(const char *job, int stragglers, char *buf, size_t len)
{
	int n = snprintf(buf, len, "# HELP %s Ranks that hold the watched job back now (a straggler, not a hang).\n"
			 "# TYPE %s gauge\n%s{job=\"%s\"} %d\n", PROMFILE_JOB_GAUGE, PROMFILE_JOB_GAUGE,
			 PROMFILE_JOB_GAUGE, job, stragglers);

	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

void promfile_read(int dirfd, double *vals)
{
	static char text[PROMFILE_READ_MAX + 1];
	int fd = openat(dirfd, PROMFILE_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	ssize_t n = fd >= 0 ? read(fd, text, PROMFILE_READ_MAX) : -1;

	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	promfile_parse(text, vals);
}
