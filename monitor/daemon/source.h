/* SPDX-License-Identifier: BSD-3-Clause */
/* source — how this monitor reaches its ranks, as a whole: the job's half (job.h's struct
 * job_source: discover, open, sample, close) and a rank captured for the report. One source is
 * linked into each build of the monitor: source_ptrace.c into parastack-monitor (ptrace,
 * libunwind, the recording layer's record read from the rank's memory), tests/sim/source_sim.c
 * into the simulated monitor of bench/scale-sim.sh (scripted stacks, fingerprints and records
 * for as many ranks as asked). Everything after the sample and the capture — both models, the
 * confirmation, the gathering, the diagnosis, the report — is the same code in both. */
#ifndef PARASTACK_SOURCE_H
#define PARASTACK_SOURCE_H

#include <jansson.h>
#include <stdbool.h>

#include "monitor.h"

struct rank_source {
	const struct job_source *job;
	/* Local rank k as the report's JSON (capture.h's object); with_record: and what its
	 * recording layer says ("record", or "record_unreadable"), checked against a job of
	 * job_size ranks; and whether the layer was there ("recording_layer"). */
	json_t *(*capture)(struct monitor *m, int k, bool with_record, int job_size);
};

extern const struct rank_source rank_source;

#endif
