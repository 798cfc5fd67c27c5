/* SPDX-License-Identifier: BSD-3-Clause */
/* clock — the monotonic clock in milliseconds (intervals, deadlines), the wall clock in
 * seconds (what reports and traces show) and its text for lines users read, and a sleep that
 * takes milliseconds. */
#ifndef PARASTACK_CLOCK_H
#define PARASTACK_CLOCK_H

#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static inline double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline double wall_s(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* Clock time of the Unix time t, "12:03:10 UTC". */
static inline void wall_clock_text(double t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%H:%M:%S UTC", &tm))
		snprintf(buf, len, "?");
}

static inline void sleep_ms(double ms)
{
	if (ms <= 0)
		return;

	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6) };

	nanosleep(&ts, NULL);
}

#endif
