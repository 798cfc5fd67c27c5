/* SPDX-License-Identifier: BSD-3-Clause */
/* report_util — the small readers of JSON that monitor/hang/ shares, one kit for the report's
 * files and the wait-for analysis's (private to monitor/hang/): a member that is absent, or of
 * another type, reads as NULL or 0. */
#ifndef PARASTACK_REPORT_UTIL_H
#define PARASTACK_REPORT_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <string.h>

static inline const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static inline long long num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static inline int rank_of(json_t *o)
{
	return (int)num(o, "rank");
}

/* Two texts alike: the same string, or both absent (two frames whose file nobody knows). */
static inline bool same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* The text a is the string b: an absent text is no string (a call without a communicator is on
 * none, never on "the same one" as another call without). */
static inline bool is_text(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* The rank's object in a snapshot (sorted by rank: a binary search), or NULL. */
json_t *report_find_rank(json_t *snap, int rank);

/* A hang at start-up: every live rank but the faulty ones waits inside the start-up (captures'
 * "in_init": MPI_Init, torch's rendezvous) and no faulty one is there. The call they wait in
 * ("MPI_Init", or init_process_group for a training job's; NULL when the snapshot is no such
 * hang), for "has not reached MPI_Init". */
const char *report_start_up_call(json_t *snap, json_t *faulty);


#endif
