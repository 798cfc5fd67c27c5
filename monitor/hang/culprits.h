/* SPDX-License-Identifier: BSD-3-Clause */
/* culprits — whom a hang report names and on what evidence (culprits.c): the one list the
 * report's faulty_ranks is made of. */
#ifndef PARASTACK_CULPRITS_H
#define PARASTACK_CULPRITS_H

#include <jansson.h>

/* The culprits of a hang, sorted by rank: [{"rank", "evidence" ("certain" | "likely" |
 * "stacks"), "why"}], from the computation's faulty ranks (borrowed), the wait-for analysis
 * (wf, or NULL) and the stack groups (report_groups' objects, with their rank_list). *note:
 * NULL, or (malloc'd) words for the report when the analysis could not separate more than
 * half the live ranks (then the list is the smallest position's, if one is smaller than all). */
json_t *culprits_find(json_t *snap, json_t *groups, json_t *faulty, json_t *wf, char **note);

/* Their ranks, as faulty_ranks. */
json_t *culprits_ranks(json_t *culprits);

#endif
