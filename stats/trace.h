/* SPDX-License-Identifier: BSD-3-Clause */
/* trace — the sample trace format shared by the monitor's --trace, `parastack replay` and
 * `parastack plot`: one sample per line, "t_ms S C [PROGRESS]" (time in ms, OUT_MPI count, set
 * size, and what each sampled rank's progress comparison said: one letter per rank of the set,
 * in the set's order - m moved into or out of MPI, a moved in the application's frames, s still
 * in MPI exactly as before, i still though frames inside the MPI library differed (ignored),
 * o outside MPI both times (w: and stood still, b: and busy: progress.h's progress_outside),
 * u nothing to compare with, k in the kernel, - not sampled; upper
 * case while inside MPI_Init); '#' starts a comment; blank lines are ignored. Comments that
 * start "#!" carry what the monitor knew beyond the samples, for a faithful plot and replay:
 *   #! model alpha=A interval=MS max_interval=MS   the model's settings
 *   #! watch sets=N confirm=S                       rank sets alternated, --confirm
 *   #! hang T_MS | #! slowdown T_MS | #! suspect T_MS  what the pipeline decided
 * Other "#!" words are ignored, as plain comments. */
#ifndef PARASTACK_TRACE_H
#define PARASTACK_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The progress letters (lower case; upper case inside MPI_Init): progress.h's progress_code. */
#define TRACE_PROGRESS_LETTERS "masiowbuk-"

struct trace_point {
	double t_ms;
	int s;
	int c;
	bool has_progress; /* the PROGRESS field was there; then: */
	int live, moved, still, kernel, init, idle, busy; /* its letters counted (progress.h's sample_counts) */
};

/* "#! hang T": a hang confirmed; "#! slowdown T": a suspicion dismissed (the job moved);
 * "#! suspect T": a confirmation window opened (design.md §4). */
enum trace_event_kind { TRACE_EVENT_HANG, TRACE_EVENT_SLOWDOWN, TRACE_EVENT_SUSPECT };
/* The directive's word for an event kind. */
const char *trace_event_word(enum trace_event_kind kind);

struct trace_event {
	double t_ms;
	enum trace_event_kind kind;
};

struct trace {
	struct trace_point *points;
	size_t len, cap;
	struct trace_event *events;
	size_t nevents;
	int has_model; /* a "#! model" line was read */
	double alpha, interval_ms, max_interval_ms;
	int has_watch; /* a "#! watch" line was read */
	int nsets;
	double confirm_s;
};

/* Parse a whole trace. Returns 0, or -1 with a one-line message (naming the line) in err.
 * Times must not decrease, 0 <= S <= C, and C must be the same on every line. */
int trace_parse(FILE *in, struct trace *tr, char *err, size_t errlen);
int trace_load(const char *path, struct trace *tr, char *err, size_t errlen);
void trace_free(struct trace *tr);
/* Index of the first point with t_ms >= t, or tr->len when none. */
size_t trace_find(const struct trace *tr, size_t from, double t);
/* Append one sample line; progress (C letters) may be NULL. */
int trace_write_point(FILE *out, double t_ms, int s, int c, const char *progress);
/* The straggler model's evidence of the same point, as a plain comment ("# waits R:W ..."; W 1
 * waiting, 0 computing, P% the share of the time waiting since its previous sample, - neither):
 * readers of S skip it, bench/straggler_eval reads it. waits: percent (100 waiting), -1. */
int trace_write_waits(FILE *out, const int *ranks, const signed char *waits, int n);
/* Append a "#! model" line / a "#! hang" or "#! slowdown" line. */
int trace_write_model(FILE *out, double alpha, double interval_ms, double max_interval_ms);
int trace_write_event(FILE *out, double t_ms, enum trace_event_kind kind);
/* Append a "#! watch" line. */
int trace_write_watch(FILE *out, int nsets, double confirm_s);

#endif
