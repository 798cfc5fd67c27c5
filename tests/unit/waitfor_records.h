/* SPDX-License-Identifier: BSD-3-Clause */
/* waitfor_records — synthetic ranks for the wait-for analysis's tests (waitfor_records.c). */
#ifndef PARASTACK_TEST_WAITFOR_RECORDS_H
#define PARASTACK_TEST_WAITFOR_RECORDS_H

#include <jansson.h>
#include <stdbool.h>

#define WORLD "0000000000000001"

/* A rank with a record and no call yet: only MPI_COMM_WORLD, no collective on it. */
json_t *rank_new(int rank, int size);
/* The rank has entered seq collectives on communicator id (members, size), the latest ones
 * func at site at. */
void comm_count(json_t *rank, const char *id, int size, const char *members, long long seq, const char *func,
		const char *at);
/* The rank waits in collective number seq (already counted) on communicator id. */
void waits_in(json_t *rank, const char *id, const char *func, long long seq, const char *at);
char *faulty_of(json_t *wf);
const char *evidence_of(json_t *wf, int rank);
bool diagnosis_says(json_t *wf, const char *words);
/* The analysis of s names exactly want, with evidence for rank; frees s and the analysis. */
void expect(json_t *s, const char *want, int rank, const char *evidence, const char *words);

#endif
