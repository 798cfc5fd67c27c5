/* SPDX-License-Identifier: BSD-3-Clause */
/* jobstack — `parastack stack` for a whole job: every monitor looks at its node's ranks once
 * (symbolizing where the executables are), monitor 0 gathers what they saw and prints it in rank
 * order, as text, JSON or one merged tree. The monitors' one-shot mode (--stack FORMAT). */
#ifndef PARASTACK_JOBSTACK_H
#define PARASTACK_JOBSTACK_H

#include "../job/comm.h"
#include "../job/discover.h"
#include "../sample/print/pstack.h"

/* Collective over the monitors: print (monitor 0, on standard output) the stacks of every
 * monitor's local processes. The number of processes that could not be looked at, job-wide. */
long jobstack_print(const struct comm *c, const struct job_proc *local, int nlocal,
		    enum pstack_format f);

#endif
