/* SPDX-License-Identifier: BSD-3-Clause */
/* report_summary — the JSON report of a large job kept to what a reader needs (issue 39): every
 * faulty rank and the first rank of each stack group in full (frames, record), the others only
 * in the groups, the tree and the diagnosis, as rank ranges; the wait-for analysis's per-rank
 * waits cut the same way. What was left out is counted in the report (ranks_omitted). The text
 * report is printed before: it is bounded on its own (report_text.c). */
#ifndef PARASTACK_REPORT_SUMMARY_H
#define PARASTACK_REPORT_SUMMARY_H

#include <jansson.h>
#include <stdbool.h>

/* REPORT_RANKS_FULL_MAX: options.h, beside --report-ranks. */
#include "../../base/options.h"

/* report's ranks and wait_for.waits cut to the faulty ranks and the first of each group, with
 * ranks_detail "summary" and ranks_omitted; with all, nothing is cut (ranks_detail "all"). */
void report_summarize(json_t *report, bool all);

#endif
