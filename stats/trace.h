/* trace — the sample trace format shared by the monitor's --trace and `parastack replay`:
 * one sample per line, "t_ms S C" (time in ms, OUT_MPI count, set size); '#' starts a comment;
 * blank lines are ignored. */
#ifndef PARASTACK_TRACE_H
#define PARASTACK_TRACE_H

#include <stddef.h>
#include <stdio.h>

struct trace_point {
	double t_ms;
	int s;
	int c;
};

struct trace {
	struct trace_point *points;
	size_t len, cap;
};

/* Parse a whole trace. Returns 0, or -1 with a one-line message (naming the line) in err.
 * Times must not decrease, 0 <= S <= C, and C must be the same on every line. */
int trace_parse(FILE *in, struct trace *tr, char *err, size_t errlen);
int trace_load(const char *path, struct trace *tr, char *err, size_t errlen);
void trace_free(struct trace *tr);
/* Index of the first point with t_ms >= t, or tr->len when none. */
size_t trace_find(const struct trace *tr, size_t from, double t);
/* Append one sample line. */
int trace_write_point(FILE *out, double t_ms, int s, int c);

#endif
