/* SPDX-License-Identifier: BSD-3-Clause */
/* gather — every rank of the job as JSON (gather.c). */
#ifndef PARASTACK_GATHER_H
#define PARASTACK_GATHER_H

#include "monitor.h"

/* Leader: append every other monitor's reply (a JSON array) to all, waiting for each at most
 * until deadline_ms (mono_ms); a monitor left out is not waited for. */
void gather_replies(struct monitor *m, json_t *all, double deadline_ms);

/* This monitor's ranks and its subtree's in the monitors' tree, in the class form
 * (hang/snapclass.h), asked with cmd (CMD_CAPTURE: what the checks between snapshots compare;
 * CMD_CAPTURE_RECORD: whole, with the records) for snapshot snap, within budget_ms; the monitors
 * of the subtree that did not answer in time are appended to missing, those below them (not
 * asked) to unreached. */
json_t *gather_subtree(struct monitor *m, enum comm_cmd cmd, int snap, int budget_ms, json_t *missing,
		       json_t *unreached);

/* Leader: monitor mon did not answer `request` ("a sample request in 10 s") in time: left out
 * from now on (not sampled, not asked for snapshots, its ranks not in a report), named once in
 * the job's output and in the report's missing_monitors. */
void gather_leave_out(struct monitor *m, int mon, const char *request);

/* Follower: answer a capture command (its payload: snapshot, budget, the monitors left out)
 * with this monitor's subtree, to the monitor that asked. */
void gather_answer(struct monitor *m, enum comm_cmd cmd, const int *payload, int n, int asker);

/* Leader: a snapshot of every rank of the job the tree reaches, in the class form
 * (hang/snapclass.h); a monitor that did not answer is named (the job's output, m->missing) and
 * left out from then on. with_record: whole, with the records; else compact. */
json_t *gather_all(struct monitor *m, bool with_record);

#endif
