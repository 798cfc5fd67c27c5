/* SPDX-License-Identifier: BSD-3-Clause */
/* capture — one rank's state and stack as a JSON object, the unit of every report:
 *   { "rank", "host", "pid", "state": "IN_MPI" | "OUT_MPI" | "EXITED",
 *     "mpi_call": the MPI function it is in ("MPI_Allreduce"), or null,
 *     "path": "main > solve > MPI_Allreduce" (the call path STAT-style grouping uses),
 *     "frames": [ { "func", "file", "line", "module", "in_mpi", "inlined" } ] }
 * Monitors on other nodes send these to the leader as JSON text. */
#ifndef PARASTACK_CAPTURE_H
#define PARASTACK_CAPTURE_H

#include <jansson.h>

#include "../addr/symbolize.h"
#include "../stop/target.h"

/* Snapshot all threads of t and describe the rank; sy may be NULL (no names). */
json_t *capture_rank(struct target *t, struct symbolizer *sy, const char *host);
/* A rank whose process is gone. */
json_t *capture_exited(int rank, pid_t pid, const char *host);

#endif
