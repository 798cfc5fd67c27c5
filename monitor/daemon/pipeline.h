/* SPDX-License-Identifier: BSD-3-Clause */
/* pipeline — the hang pipeline after each sample (design.md §4): suspect (one line now), confirm
 * (the window: progress evidence, stats/confirm.c), act (snapshots of every rank, the faulty
 * ones, the report and the action). */
#ifndef PARASTACK_PIPELINE_H
#define PARASTACK_PIPELINE_H

#include "monitor.h"

/* One sample (taken at t, monotonic ms; c what it counted) through both models and
 * suspect -> confirm -> act (stats/decide.c decides; this acts: the line said, the report
 * written). MONITOR_EXIT_HANG to stop here, else 0 (watching goes on). */
int pipeline_step(struct monitor *m, double t, const struct sample_counts *c);

#endif
