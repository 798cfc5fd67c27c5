/* watch — the watch loop: the leader's randomized tick, one sampling round of a rank set (asking
 * the monitors that host its ranks), the followers' replies, the model set up per round, and one
 * round from discovery to the end of the job. */
#ifndef PARASTACK_WATCH_H
#define PARASTACK_WATCH_H

#include "monitor.h"

/* Release one round's targets, table and model. */
void watch_round_release(struct monitor *m);

/* One MPI job, from discovery to its end: MONITOR_EXIT_HANG, MONITOR_EXIT_NONE, _ERROR, or
 * ROUND_AGAIN when its ranks are gone but the job (a script running several) goes on. */
int watch_round(struct monitor *m, int round);

#endif
