/* SPDX-License-Identifier: BSD-3-Clause */
/* waitfor — the root cause of a communication hang from the recording layer's records (the
 * "record" of each rank in a snapshot, mpirecord.h), at hang time only: who waits for whom (the
 * wait-for graph), deadlock cycles, collectives that some ranks have not entered, collective
 * mismatches checked as MPI/SX checks them (same communicator and collective number, different
 * operation, root or data size; ranks a collective behind; a rank in MPI_Finalize), receives no
 * send matches and nonblocking requests never completed. Pure: JSON in, JSON out. */
#ifndef PARASTACK_WAITFOR_H
#define PARASTACK_WAITFOR_H

#include <jansson.h>

/* The analysis of a snapshot (an array of rank objects, sorted by rank), or NULL when no rank
 * has a record. The object: "waits" (each waiting rank and what it waits for), "cycles",
 * "collectives" (pending ones and who has not entered), "mismatches", "unmatched", "requests"
 * (started, never completed), "faulty_ranks" (whom every other rank waits on), "why", "proof" (where the records alone
 * prove the hang: a collective mismatch, a cycle of proven waits, a rank gone that others are
 * proven to wait for; absent otherwise), and
 * "diagnosis" (sentences for the report). */
json_t *waitfor_analyze(json_t *snap);
/* The same, its "waits" cut to the culprits' and those of the ranks listed (a JSON array of
 * integers; NULL: every rank's), for a large job's summary report. */
json_t *waitfor_analyze_listing(json_t *snap, json_t *listed);

#endif
