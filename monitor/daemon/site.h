/* SPDX-License-Identifier: BSD-3-Clause */
/* site — the administrator's copy of the report, the node's metrics textfile and the Slurm
 * job's AdminComment (see site.c). Touches struct monitor's site_* counters only. */
#ifndef PARASTACK_SITE_H
#define PARASTACK_SITE_H

#include <jansson.h>

#include "monitor.h"

/* A hang was reported (the report as written): its copy, the job's comment, the metrics. */
void site_hang_reported(struct monitor *m, json_t *report);
/* The counters of this watch not written yet, into --metrics-dir's textfile (the leader). */
void site_metrics_flush(struct monitor *m);
/* --metrics-dir: the job's gauge of the ranks that hold it back now (parastack-job-NAME.prom);
 * now < 0 removes it. */
void site_stragglers_gauge(struct monitor *m, int now);

#endif
