/* SPDX-License-Identifier: BSD-3-Clause */
/* watchdog — a budget for one step that may block on a target's files. A rank can put a FIFO
 * (or a file on a hung file system) where the unwinder or the symbol reader will open it; an
 * open of a FIFO blocks until a writer comes. While armed, a per-thread timer interrupts this
 * thread's blocking system call when the budget is spent (and every 100 ms after, so a retry is
 * interrupted too): the call fails with EINTR, the library gives up on that file, and the step
 * ends with an error for that rank instead of stopping the monitor. */
#ifndef PARASTACK_WATCHDOG_H
#define PARASTACK_WATCHDOG_H

#include <stdbool.h>
#include <time.h>

#define WATCHDOG_STEP_MS 3000 /* a sample's unwind or a frame's names: far above their cost */

struct watchdog {
	timer_t timer;
	bool armed;
};

/* Start the budget of ms for this thread; false when no timer can be had (the step then runs
 * unguarded, as before). */
bool watchdog_arm(struct watchdog *w, int ms);
/* Stop it; true when the budget ran out (the step was interrupted). */
bool watchdog_disarm(struct watchdog *w);

#endif
