/* SPDX-License-Identifier: BSD-3-Clause */
/* report — from snapshots of every rank (JSON objects made by capture.c) to the hang report
 * (design.md §4): the transient-slowdown test, the faulty ranks, stack groups as compact rank
 * ranges (like STAT's equivalence classes), the diagnosis, the JSON report and its text form.
 * Pure functions of their inputs: no ptrace, no MPI. */
#ifndef PARASTACK_REPORT_H
#define PARASTACK_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../../base/ranges.h"

/* "0-2,4-7" from sorted ranks (ranges.h). */
static inline void report_ranges(const int *ranks, int n, char *buf, size_t len)
{
	ranges_format(ranks, n, buf, len);
}
/* Sort an array of rank objects by "rank", in place. */
void report_sort_by_rank(json_t *ranks);
/* A snapshot is an array of rank objects or its class form (snapclass.h). */
/* A rank object cut to what the checks between snapshots read (report_moved, report_faulty,
 * report_summary): rank, host, pid, state, MPI call, path, runtime, Python site, stopped, in
 * the kernel. */
void report_compact_rank(json_t *rank);
/* Did any rank move between two snapshots? Why, in why. A rank moved
 * if it went from one MPI call to another, or from MPI back into application code — except
 * within an MPI_Test/MPI_Iprobe busy-wait loop. */
bool report_moved(json_t *before, json_t *after, char *why, size_t len);
/* Ranks OUT_MPI in every one of the snapshots: a JSON array of integers. */
json_t *report_faulty(json_t *const *snaps, int nsnaps);
/* Groups of ranks with the same state and call path in a snapshot, largest first:
 * [{ "ranks": "0-2,4", "rank_list": [...], "count", "state", "path", "mpi_call" }]. */
json_t *report_groups(json_t *snap);
/* The groups' call paths (report_groups, with their rank_list) merged into one tree, as STAT
 * draws it: [{ "frame", "ranks", "count", "children": [...] }], largest first. */
json_t *report_tree(json_t *groups);
/* The tree as indented text, at most max_lines lines (then how many more). */
void report_print_tree(FILE *out, json_t *tree, int max_lines);
/* The diagnosis: an array of sentences. */
json_t *report_diagnose(json_t *snap, json_t *groups, json_t *faulty);
/* The whole report (design.md §5). Steals references to model; snap and faulty are borrowed. */
json_t *report_build(json_t *snap, json_t *faulty, double detected_at, json_t *model,
		     const char *action);
/* The same for a report that will detail only some ranks (all_ranks false: report_summarize's
 * summary): the wait-for analysis lists only their waits. */
json_t *report_build_listing(json_t *snap, json_t *faulty, double detected_at, json_t *model,
			     const char *action, bool all_ranks);
/* One phrase for the job output's suspicion line, from one snapshot: "computation error,
 * rank 2", "ranks 1,3 blocked in the kernel (wait channel ...)", or "communication error: every
 * rank waits in MPI". */
void report_summary(json_t *snap, char *buf, size_t len);
/* A report for a job that ended without a hang: verdict "none", or "unwatched" when no MPI
 * rank was ever found (nothing was watched: scripts must not take that for a clean run). */
json_t *report_none(json_t *model, bool watched);
/* Human text, for stderr (the job's output): at most REPORT_TEXT_MAX_LINES lines of at most
 * REPORT_TEXT_MAX_LINE bytes, whatever the job's size. */
#define REPORT_TEXT_MAX_LINES 200
#define REPORT_TEXT_MAX_LINE 600
void report_print(FILE *out, json_t *report);

#endif
