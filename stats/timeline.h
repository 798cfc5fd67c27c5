/* SPDX-License-Identifier: BSD-3-Clause */
/* timeline — what the model thought at every sample of a recorded trace: the trace's samples
 * fed to the detector in order, exactly as the live monitor fed them (the detector's state
 * depends only on the samples, not on its random steps), with the checks the monitor recorded
 * after a verdict ("#! slowdown" dismisses the run, as live). A trace not recorded by the
 * monitor (no "#! model" line: a dense or synthetic S(t)) is instead sampled the way replay
 * samples it, with the detector's randomized steps. For `parastack plot`. */
#ifndef PARASTACK_TIMELINE_H
#define PARASTACK_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "detector.h"
#include "trace.h"

struct timeline_row {
	double t_ms;
	int s;
	int threshold;       /* suspicion when S <= threshold; -1 while the model is building */
	double interval_ms;  /* mean sampling interval after this sample */
	enum detector_verdict verdict;
};

struct timeline {
	struct timeline_row *rows;
	size_t len;
	double first_hang_ms; /* first sample with a hang verdict; < 0 when none */
	/* The last sample that showed the job computing (S above the threshold) before the
	 * suspicion of the hang the monitor recorded ("#! hang"; the "#! suspect" before it), none
	 * inside an earlier suspicion's confirmation, as the report's last progress; without
	 * recorded checks, before the model's first verdict. The hang began after it. < 0 when
	 * there is no hang or no such sample. */
	double last_progress_ms;
	int doublings;
};

/* cfg->set_size is taken from the trace; resample: take the samples with the detector's steps
 * (seeded by cfg->seed) instead of every point. 0, or -1 on a bad configuration or no memory. */
int timeline_build(const struct trace *tr, const struct detector_config *cfg, bool resample,
		   struct timeline *tl);
void timeline_free(struct timeline *tl);

#endif
