/* SPDX-License-Identifier: BSD-3-Clause */
/* stragglers — the rank that holds the job back, said where users look (issue 69): each sample
 * round's waits fed to the model (stats/straggler.h), the line in the job's output when a rank
 * starts (or stops) holding the job back, the report's "stragglers" (a hang's and a healthy
 * job's), the status and end-of-job text, and the hang diagnosis's note on a faulty rank that
 * had been one. Owns struct monitor's strag and stragglers. The leader's. */
#ifndef PARASTACK_STRAGGLERS_H
#define PARASTACK_STRAGGLERS_H

#include <stdbool.h>
#include <stddef.h>

#include "monitor.h"

int stragglers_setup(struct monitor *m);
/* One round: the sampled ranks' places in the table (size of them, -1: none) and their waits,
 * as sample_set found them. */
void stragglers_round(struct monitor *m, const int *idx, int size, const signed char *waits, bool start_up);
/* The round's end (before watch_round_release): its stragglers kept for the report. */
void stragglers_round_end(struct monitor *m);
/* [{"rank", "since", "until", "others_wait", "own_wait", "confidence"}], every round's so far. */
json_t *stragglers_json(const struct monitor *m);
/* report["stragglers"], and a diagnosis line for a faulty rank that had been one. */
void stragglers_report(const struct monitor *m, json_t *report);
/* "rank 5 holds the job back since 12:01:07 UTC (...)"; "" when no rank does. */
void stragglers_text(const struct monitor *m, char *buf, size_t len);

#endif
