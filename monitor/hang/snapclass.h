/* SPDX-License-Identifier: BSD-3-Clause */
/* snapclass — a snapshot of the job in classes, as STAT reduces stack traces: ranks whose
 * captures say the same (every field but rank, host and pid; the record's world_rank left out
 * and its thread ids taken relative to the pid) are one class, carried once with its rank set.
 * Each monitor builds the classes of its own ranks, merges its children's in the monitors'
 * tree and sends its parent the result, so the leader receives O(classes) bytes, not O(ranks).
 *
 * The class form (what travels, and what the report's checks read):
 *   {"classes": [{"body": {...}, "ranks": "0-9,12", "pids": "4100-4109,4200"}],
 *    "hosts": [{"host": "node1", "ranks": "0-63"}]}
 * pids lists the class's pids in the order of its ranks. Classes are sorted by their first
 * rank and each rank set by rank, whatever the order the parts were merged in. The report's
 * functions take a snapshot either as this form or as an array of rank objects (snapview).
 * Pure: JSON in, JSON out. */
#ifndef PARASTACK_SNAPCLASS_H
#define PARASTACK_SNAPCLASS_H

#include <jansson.h>
#include <stdbool.h>

/* No snapshot holds more ranks than this (the report's bound on what a monitor sends). */
#define SNAPCLASS_MAX_RANKS (1 << 24)

struct snapclass;

struct snapclass *snapclass_new(void);
void snapclass_free(struct snapclass *s);
/* One rank's capture (borrowed; its body's values are shared, not copied). 0, or -1 when it
 * is no rank object or memory ran out. */
int snapclass_add_rank(struct snapclass *s, json_t *rank);
/* Another part in the class form (borrowed), as a child monitor sent it. 0, or -1 when a part
 * of it was malformed and left out. */
int snapclass_add_form(struct snapclass *s, json_t *form);
/* The class form of all added: the last call on s (nothing can be added after it). */
json_t *snapclass_form(struct snapclass *s);
/* Ranks held. */
long snapclass_count(const struct snapclass *s);

/* Is snap a snapshot in the class form? */
bool snapclass_is_form(json_t *snap);
/* A form's ranks as rank objects sorted by rank, each sharing its class's body: the record's
 * thread ids stay relative and it has no world_rank (snapclass_restore). */
json_t *snapclass_expand(json_t *form);
/* A rank object of snapclass_expand made whole: its own record with world_rank and thread ids. */
void snapclass_restore(json_t *rank);

/* A snapshot as the checks read it, whichever form: the object standing for each rank (the
 * rank's own, or its class's body), indexed by rank. */
struct snapview {
	int size;      /* one past the highest rank */
	json_t **at;   /* at[rank]: NULL when the snapshot does not hold it */
};
int snapview_open(struct snapview *v, json_t *snap);
void snapview_close(struct snapview *v);

#endif
