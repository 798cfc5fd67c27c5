/* SPDX-License-Identifier: BSD-3-Clause */
/* stats — parastack's detection model: pure C, no MPI, no ptrace. The one header the monitor
 * and the launcher include. */
#ifndef PARASTACK_STATS_H
#define PARASTACK_STATS_H

#include "confirm.h"
#include "decide.h"
#include "detector.h"
#include "ladder.h"
#include "prior.h"
#include "ranksets.h"
#include "replay.h"
#include "rng.h"
#include "runs_test.h"
#include "stall.h"
#include "straggler.h"
#include "threshold.h"
#include "timeline.h"
#include "trace.h"

#endif
