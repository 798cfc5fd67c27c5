/* pstack — what `parastack stack` prints for processes, as pstack/eu-stack do but MPI-aware:
 * each process's rank, IN_MPI/OUT_MPI state and every thread's frames (as text or as JSON), or
 * the processes' call paths merged into one tree with rank ranges (as STAT draws it). Used by
 * the command on this machine and by the monitors for a whole job (jobstack.c). */
#ifndef PARASTACK_PSTACK_H
#define PARASTACK_PSTACK_H

#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#include "symbolize.h"

/* Stop pid's threads one at a time, unwind, detach, and describe it: as text on `text`, or as
 * an object appended to the JSON array `json` (when text is NULL). host, when not NULL, is
 * named in both (a job spanning hosts). 0, or -1 with err (nothing is left stopped). */
int pstack_process(pid_t pid, struct symbolizer_pool *syms, const char *host, FILE *text,
		   json_t *json, char *err, size_t len);

/* pid as a rank object of a report snapshot (capture.h): its deciding thread's call path.
 * NULL with err when it cannot be looked at. */
json_t *pstack_capture(pid_t pid, struct symbolizer_pool *syms, const char *host, char *err,
		       size_t len);

/* Rank objects (pstack_capture), sorted by rank, merged into one tree: printed as text, or as
 * the JSON tree when json is true. */
void pstack_print_tree(FILE *out, json_t *snap, bool json);

#endif
