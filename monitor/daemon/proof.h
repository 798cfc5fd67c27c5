/* SPDX-License-Identifier: BSD-3-Clause */
/* proof — a hang the records prove, confirmed on two snapshots without the window (proof.c). */
#ifndef PARASTACK_PROOF_H
#define PARASTACK_PROOF_H

#include <stdbool.h>
#include <stddef.h>

#include "monitor.h"

#define PROOF_QUIET_MS 2000    /* nothing moved this long, ranks still in MPI: read the records */
#define PROOF_RECHECK_MS 1000  /* the second snapshot, after this: the proof must still hold */
#define PROOF_GAP_MIN_MS 2000  /* after a probe that proved nothing, the next waits this... */
#define PROOF_GAP_MAX_MS 30000 /* ...doubling up to this: a healthy job's quiet spells cost little */

void proof_init(struct monitor *m);
/* Is a probe due after this sample (t_ms since the watch began, as the decision's)? */
bool proof_due(const struct monitor *m, double t_ms, const struct sample_counts *c);
/* Read the records (two snapshots when the first proves the hang): true when they prove it,
 * what proves it in why. */
bool proof_check(struct monitor *m, double t_ms, char *why, size_t len);

#endif
