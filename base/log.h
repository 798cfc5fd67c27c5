/* SPDX-License-Identifier: BSD-3-Clause */
/* log — parastack's own lines in the job's output ("parastack: ..."), from any floor of the
 * monitor. Only the leading monitor speaks, so a job of a thousand nodes prints each line once;
 * lines of information (what is watched, status, the summary) are left out under --quiet.
 * Where the lines go: standard error, or standard output when PARASTACK_REPORT_STREAM=stdout
 * (Torque jobs, whose stderr goes to a file of its own that users do not look in). */
#ifndef PARASTACK_LOG_H
#define PARASTACK_LOG_H

#include <stdbool.h>
#include <stdio.h>

/* Once the monitors know their leader and the options are read: whether this one speaks, and
 * whether information lines are wanted. Before that, every line is printed. */
void log_setup(bool speaks, bool quiet);

/* The stream the job's output gets parastack's lines and report on. */
FILE *log_stream(void);

/* One line (a suspicion, a hang, an error). */
void log_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line of information only: not with --quiet. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
