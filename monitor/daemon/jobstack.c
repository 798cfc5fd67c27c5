/* SPDX-License-Identifier: BSD-3-Clause */
/* jobstack — a whole job's stacks, gathered to monitor 0 (jobstack.h). Each monitor renders its
 * own ranks (pstack.c: text is rendered where the ranks run, so nothing of their files is needed
 * elsewhere) and sends the JSON array of items; monitor 0 sorts them by rank and prints. */
#include "jobstack.h"

#define STACK_REPLY_MS 120000 /* a monitor that has not sent its ranks' stacks by then is left out */

#include <stdio.h>
#include <stdlib.h>

#include "../../base/clock.h"
#include "../hang/report.h"
#include "../hang/report_stacks.h"

long jobstack_print(const struct comm *c, const struct job_proc *local, int nlocal,
		    enum pstack_format f)
{
	pid_t *pids = calloc((size_t)nlocal + 1, sizeof(pid_t));
	int *ranks = calloc((size_t)nlocal + 1, sizeof(int)), failed = 0;

	for (int i = 0; pids && ranks && i < nlocal; i++) {
		pids[i] = local[i].pid;
		ranks[i] = local[i].rank;
	}

	json_t *mine = pids && ranks ? pstack_items(pids, ranks, nlocal, c->host, f, &failed) : NULL;

	if (!mine) {
		fprintf(stderr, "parastack stack: on %s: out of memory\n", c->host);
		failed = nlocal;
		mine = json_array();
	}

	free(ranks);
	free(pids);
	if (c->me != c->leader) {
		comm_send_json(mine);
	} else {
		for (int mon = 0; mon < c->size; mon++) {
			json_t *part = mon == c->me ? NULL : comm_recv_json(mon, mono_ms() + STACK_REPLY_MS);

			if (json_is_array(part))
				json_array_extend(mine, part);
			json_decref(part);
		}
		report_sort_by_rank(mine);
		report_print_stacks(stdout, mine, f);
	}
	json_decref(mine);
	return comm_sum(failed);
}
