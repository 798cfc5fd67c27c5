/* SPDX-License-Identifier: BSD-3-Clause */
/* ranges — rank sets as users read them, "0-2,4-7": what the report, the wait-for analysis and
 * the records' member lists share (below all three, so none includes another for it). */
#ifndef PARASTACK_RANGES_H
#define PARASTACK_RANGES_H

#include <stdbool.h>
#include <stddef.h>

/* "0-2,4-7" from sorted ranks, however many: malloc'd (NULL when out of memory). */
char *ranges_dup(const int *ranks, int n);
/* The same into buf (cut at len). */
void ranges_format(const int *ranks, int n, char *buf, size_t len);
/* The numbers "0-2,4-7" stands for, in its order (malloc'd, *n of them), or NULL when the text
 * is not such a list, a run goes downward, or it stands for more than max numbers. "" is an
 * empty list. */
int *ranges_parse(const char *s, int *n, int max);
/* Does "0-2,4-7" name v? Read in place, however many numbers it stands for; false for a text
 * that is not such a list. */
bool ranges_contains(const char *s, long v);

#endif
