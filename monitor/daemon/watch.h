/* SPDX-License-Identifier: BSD-3-Clause */
/* watch — the watch loop: the leader's randomized tick, one sampling round of a rank set (asking
 * the monitors that host its ranks), the followers' replies, the model set up per round, and one
 * round from discovery to the end of the job. */
#ifndef PARASTACK_WATCH_H
#define PARASTACK_WATCH_H

#include "../../base/exitcodes.h"
#include "monitor.h"

/* How one round (one MPI job) ended. The first three are the monitor's own exit statuses
 * (exitcodes.h) when the watch ends there; ROUND_AGAIN is not one: the watch goes on. */
enum round_end {
	ROUND_NO_HANG = MONITOR_EXIT_NONE, /* the job ended, or the monitor was stopped */
	ROUND_ERROR = MONITOR_EXIT_ERROR,
	ROUND_HANG = MONITOR_EXIT_HANG,
	ROUND_AGAIN = 100, /* its ranks are gone, but the job (a script running several) goes on */
};

/* Release one round's targets, table and model. */
void watch_round_release(struct monitor *m);

/* One MPI job, from discovery to its end. */
enum round_end watch_round(struct monitor *m, int round);

#endif
