/* SPDX-License-Identifier: BSD-3-Clause */
/* view — a report drawn for people (issue 70): one self-contained HTML page (view_html.c: inline
 * CSS, JS and SVG, nothing fetched) and the merged stack tree as Graphviz (view_dot.c), both from
 * a JSON report (docs/report.schema.json). A report's strings come from the job's ranks: every one
 * is escaped for where it goes, and every walk is bounded (VIEW_* below). */
#ifndef PARASTACK_VIEW_H
#define PARASTACK_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#define VIEW_TREE_DEPTH_MAX 256  /* levels of the stack tree drawn */
#define VIEW_TREE_NODES_MAX 20000 /* nodes of the stack tree drawn; the rest is said to be cut */
#define VIEW_LIST_MAX 4096       /* entries of any list drawn (ranks, frames, waits) */

/* The page of report r to out: 0, or -1 when writing failed. */
int view_html(FILE *out, json_t *r);
/* The stack tree of report r as a Graphviz digraph: 0, or -1 when writing failed. */
int view_dot(FILE *out, json_t *r);

/* Shared by both: does the range text ("0-3,5") name one of the report's faulty ranks? */
bool view_ranks_faulty(json_t *r, const char *ranges);
/* Is tree node the innermost one a faulty rank reaches (its ranks name one, no child's does)? */
bool view_node_faulty(json_t *r, json_t *node);

#endif
