/* SPDX-License-Identifier: BSD-3-Clause */
/* promfile — parastack's counters in node_exporter's textfile format (parastack.prom): the one
 * list of series, read back from a file's text (bounded: the file may be anyone's) and written
 * out. What the monitor's site.c and the SPANK plugin share; neither locks nor writes here. */
#ifndef PARASTACK_PROMFILE_H
#define PARASTACK_PROMFILE_H

#include <stddef.h>

#define PROMFILE_NAME "parastack.prom"
#define PROMFILE_LOCK ".parastack.prom.lock"
#define PROMFILE_READ_MAX 65536 /* what of an existing file is read */
/* A watched job's gauges, one file per job beside PROMFILE_NAME (node_exporter's textfile
 * collector reads every *.prom): PROMFILE_JOB_PREFIX NAME ".prom", removed at the watch's end. */
#define PROMFILE_JOB_PREFIX "parastack-job-"
#define PROMFILE_JOB_GAUGE "parastack_job_stragglers"

/* The job's gauge file's text: how many ranks hold job NAME back now. The length written. */
size_t promfile_format_job(const char *job, int stragglers, char *buf, size_t len);

/* The series, in the order they are written. */
enum promfile_series {
	PROM_JOBS,
	PROM_SUSPICIONS,
	PROM_DISMISSED,
	PROM_HANGS_COMPUTATION,
	PROM_HANGS_COMMUNICATION,
	PROM_HANGS_IO,
	PROM_SAMPLES,
	PROM_RANKS_STOPPED,
	PROM_SAMPLING_SECONDS,
	PROM_STRAGGLERS,
	PROM_SERIES
};

/* The value of each of our series that text holds (NUL-terminated), into vals (those it does
 * not hold are left as they are); lines that are not ours are ignored. */
void promfile_parse(char *text, double *vals);
/* promfile_parse of PROMFILE_NAME in the directory dirfd, if it is there: read without
 * following a link and without blocking, at most PROMFILE_READ_MAX bytes. */
void promfile_read(int dirfd, double *vals);
/* vals as the file's text, with HELP and TYPE lines and no timestamps: the length written. */
size_t promfile_format(const double *vals, char *buf, size_t len);

#endif
