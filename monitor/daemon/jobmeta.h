/* SPDX-License-Identifier: BSD-3-Clause */
/* jobmeta — what a report is about and which contract it keeps (issue 70): the job's scheduler
 * id (Slurm JOB[.STEP], Torque's PBS_JOBID) or the launcher's pid, its owner, its command line,
 * its hosts and when the watch began, and the report's schema_version and parastack_version.
 * Every JSON report the watch writes carries them (docs/report.schema.json). The job's name for
 * files (the admin copy, the gauge file) is the same id. What the job's processes show (the
 * command line) is the job's to write: cut to a fixed size, only printable bytes kept. */
#ifndef PARASTACK_JOBMETA_H
#define PARASTACK_JOBMETA_H

#include <stddef.h>
#include <stdint.h>

#include "monitor.h"

/* The report's contract: bumped on a change a reader must know of (a key removed or changed in
 * meaning); new keys alone keep it. docs/report.schema.json says the same number. */
#define REPORT_SCHEMA_VERSION 1

/* The Slurm job the watch belongs to (0: none). */
uint32_t jobmeta_slurm_job(const struct monitor *m);
/* "123.4", "123", Torque's id, or "" when the job has no scheduler's id. */
void jobmeta_scheduler_id(const struct monitor *m, char *buf, size_t len);
/* A name for the job's files: the scheduler's id, else the leader's host and pid; only
 * characters safe in a file name. */
void jobmeta_file_name(const struct monitor *m, char *buf, size_t len);
/* Once the round's table is known: the job's hosts and command line kept (the launcher, or the
 * lowest local rank, may be gone when the last report is written). */
void jobmeta_note_round(struct monitor *m);
/* report["schema_version"], ["parastack_version"] and ["job"]. */
void jobmeta_add(const struct monitor *m, json_t *report);

#endif
