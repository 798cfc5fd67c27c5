/* SPDX-License-Identifier: BSD-3-Clause */
/* output — the output of a watch: parastack's lines in the job's output (say, status lines), the
 * report written (JSON and text), the model and cost as the report has them, and the core files
 * of the culprits. */
#ifndef PARASTACK_OUTPUT_H
#define PARASTACK_OUTPUT_H

#include "monitor.h"
#include "../../base/log.h"

/* "2 h 13 min", "5 min 3 s", "42 s". */
void output_duration_text(double s, char *buf, size_t len);

/* One sample round's cost: its duration on the leader and the ranks it stopped. */
/* A sample planned at `planned` was taken at `taken` (monotonic ms): the interval achieved and
 * how late the monitor's own scheduling made it (a busy node). */
void output_tick_add(struct monitor *m, double planned, double taken);
void output_cost_add(struct monitor *m, double ms, int stopped);

json_t *output_model_json(struct monitor *m);

void output_write_report(struct monitor *m, json_t *report);

/* --core-dir: every monitor writes the cores of its chosen ranks while they still exist; the
 * report lists them, and its next step opens the first faulty rank's. */
void output_write_cores(struct monitor *m, json_t *report);

/* The status line SIGUSR1 asks for: what the model is doing now. */
void output_say_status(struct monitor *m);

/* The monitors left out of the watch (they stopped answering), for the report; NULL: none. */
json_t *output_missing_json(const struct monitor *m);

/* What the report cost the leader, from the decision (started, mono_ms) to now: when that was
 * (Unix time), seconds, the bytes the other monitors sent it, and its peak resident set so far. */
json_t *output_report_cost(double started, unsigned long long bytes_to_leader);

/* With --on-hang=kill and no cores, the process the next step names is about to be ended: say
 * how to keep it. */
void output_next_step_outlived(json_t *report);

#endif
