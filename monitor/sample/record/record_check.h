/* SPDX-License-Identifier: BSD-3-Clause */
/* record_check — a rank's record (record/record_format.h) is its own to write: a hostile or
 * corrupt rank can put anything there. Before the report reads it, the record is checked against
 * its own fixed sizes and against the job: every index within its array, every rank (member,
 * peer, root, its own) within the job, the communicators' member runs inside the pool, well
 * formed and never overlapping (the layer hands them out once each), no rank twice in one
 * communicator (within a budget of a few passes over the job). A
 * record that fails is left out of the wait-for analysis whole ("record unreadable"), and the
 * rank is diagnosed from its stack. What passes bounds every loop and string the report makes
 * of it: at most PSREC_RUNS runs in all, each member below the job's size. */
#ifndef PARASTACK_RECORD_CHECK_H
#define PARASTACK_RECORD_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "../../../record/record_format.h"

/* Is a consistent with itself and with a job of job_size ranks (< 1: unknown), as the record
 * of rank (-1: unknown)? If not, why (one line). */
bool record_check(const struct psrec_area *a, int job_size, int rank, char *why, size_t len);

/* The world ranks of runs[0 .. nruns) (a communicator's members), at most max of them, into out,
 * sorted. The count. */
int record_members_sorted(const struct psrec_run *runs, int nruns, int *out, int max);

#endif
