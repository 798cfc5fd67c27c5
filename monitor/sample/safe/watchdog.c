/* SPDX-License-Identifier: BSD-3-Clause */
/* watchdog — a per-thread timer that interrupts a blocked system call (see watchdog.h). */
#include "watchdog.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WATCHDOG_SIG (SIGRTMIN + 3)

static __thread volatile sig_atomic_t fired;

static void on_expiry(int sig)
{
	(void)sig;
	fired = 1;
}

/* The handler, without SA_RESTART: the interrupted call returns EINTR instead of resuming. */
static bool install_once(void)
{
	static int installed;

	if (!installed) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_expiry;
		sigemptyset(&sa.sa_mask);
		if (sigaction(WATCHDOG_SIG, &sa, NULL) < 0)
			return false;
		installed = 1;
	}
	return true;
}

bool watchdog_arm(struct watchdog *w, int ms)
{
	struct sigevent ev;
	struct itimerspec its = { { 0, 100000000L }, { ms / 1000, (ms % 1000) * 1000000L } };

	w->armed = false;
	fired = 0;
	if (!install_once())
		return false;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = WATCHDOG_SIG;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &ev, &w->timer) < 0)
		return false;
	if (timer_settime(w->timer, 0, &its, NULL) < 0) {
		timer_delete(w->timer);
		return false;
	}
	w->armed = true;
	return true;
}

bool watchdog_disarm(struct watchdog *w)
{
	if (w->armed)
		timer_delete(w->timer);
	w->armed = false;
	return fired != 0;
}
