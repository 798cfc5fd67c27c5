/* SPDX-License-Identifier: BSD-3-Clause */
/* pstack — what `parastack stack` shows of processes, as pstack/eu-stack do but MPI-aware:
 * each process's rank, IN_MPI/OUT_MPI state and every thread's frames, as text or JSON items
 * (printed, or merged into one tree, by hang/report_stacks.h). Used by the command on this
 * machine and by the monitors for a whole job (daemon/jobstack.c). */
#ifndef PARASTACK_PSTACK_H
#define PARASTACK_PSTACK_H

#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

enum pstack_format { PSTACK_NONE, PSTACK_TEXT, PSTACK_JSON, PSTACK_TREE, PSTACK_TREE_JSON };

/* "text", "json", "tree", "tree-json" -> the format; PSTACK_NONE when it is none of them. */
enum pstack_format pstack_format_parse(const char *word);
const char *pstack_format_name(enum pstack_format f);

/* The n processes, each stopped a thread at a time for microseconds and let go, as items of
 * format f, in the order given: {"rank", "text"} objects, process objects (as `parastack stack
 * --json` prints them), or rank objects of a snapshot (capture.h) for a tree. host names
 * the machine in each (NULL: this machine, not named; ranks[] then unused, may be NULL). Each
 * process that cannot be looked at is said on standard error and counted in *failed. */
json_t *pstack_items(const pid_t *pids, const int *ranks, int n, const char *host,
		     enum pstack_format f, int *failed);

#endif
