/* SPDX-License-Identifier: BSD-3-Clause */
/* report_util — small readers of the report's JSON shared by report.c and report_text.c
 * (private to monitor/hang/). */
#ifndef PARASTACK_REPORT_UTIL_H
#define PARASTACK_REPORT_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <string.h>

static inline const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static inline int rank_of(json_t *o)
{
	return (int)json_integer_value(json_object_get(o, "rank"));
}

static inline bool same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* The rank's object in a snapshot (sorted by rank: a binary search), or NULL. */
json_t *report_find_rank(json_t *snap, int rank);


#endif
