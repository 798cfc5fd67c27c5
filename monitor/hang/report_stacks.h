/* SPDX-License-Identifier: BSD-3-Clause */
/* report_stacks — what `parastack stack` prints of the items sample/print/pstack.c made, for
 * processes of this machine or a whole job: their texts one after the other, one JSON array,
 * or (sorted by rank) their call paths merged into one tree with rank ranges, as STAT draws it
 * and the hang report prints it. */
#ifndef PARASTACK_REPORT_STACKS_H
#define PARASTACK_REPORT_STACKS_H

#include <jansson.h>
#include <stdio.h>

#include "../sample/print/pstack.h"

/* Items of format f on out: texts one after the other, one JSON array, or (sorted by rank)
 * merged into one tree, as text or JSON. */
void report_print_stacks(FILE *out, json_t *items, enum pstack_format f);

#endif
