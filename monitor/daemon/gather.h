/* gather — every rank of the job as JSON (gather.c). */
#ifndef PARASTACK_GATHER_H
#define PARASTACK_GATHER_H

#include "monitor.h"

/* Every local rank as JSON; with_record: and what its recording layer says (unless
 * --no-record). */
json_t *gather_local(struct monitor *m, bool with_record);

/* Leader: append every other monitor's reply (a JSON array) to all. */
void gather_replies(struct monitor *m, json_t *all);

/* Leader: a snapshot of every rank of the job, sorted by rank. The other monitors capture
 * their ranks while the leader captures its own. */
json_t *gather_all(struct monitor *m, bool with_record);

#endif
