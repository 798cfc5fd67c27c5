/* SPDX-License-Identifier: BSD-3-Clause */
/* runtime_word — the words for what a job waits in ("MPI", "gloo", "MPI and gloo"), from the
 * runtime each rank's capture found (runtimes.h): every sentence of a report, and the monitor's
 * own lines, name the runtime the job uses, never MPI for a job without it. */
#ifndef PARASTACK_RUNTIME_WORD_H
#define PARASTACK_RUNTIME_WORD_H

#include <jansson.h>
#include <stddef.h>

/* What the snapshot's waiting ranks wait in, for sentences: "MPI", "gloo", "MPI and gloo" (the
 * ranks' "runtime", runtimes.h; "MPI" where none says). Written into buf, returned. */
const char *report_runtime_word(json_t *snap, char *buf, size_t len);

#endif
