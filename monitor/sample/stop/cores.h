/* SPDX-License-Identifier: BSD-3-Clause */
/* cores — evidence kept before a hung job is ended (--core-dir): a core file of chosen ranks,
 * written by gdb's gcore while the rank still exists, named by rank, host and PID. */
#ifndef PARASTACK_CORES_H
#define PARASTACK_CORES_H

#include <jansson.h>

#include "../safe/ownedfile.h"
#include "target.h"

/* Core files of those of the n local targets whose rank is in ranks (nranks of them), in dir:
 * DIR/core.rank<R>.<host>.<pid>, new files of o's, 0600. A rank no longer the process found
 * (identity.h) gets none. A JSON array of { rank, host, pid, core } or, when one could not be
 * written, { rank, host, pid, error }. */
json_t *cores_dump(struct target *targets, int n, const int *ranks, int nranks, const char *dir,
		   const char *host, const struct file_owner *o);

#endif
