/* SPDX-License-Identifier: BSD-3-Clause */
/* trace — parsing and writing "t_ms S C" sample traces, strictly: a replay of a damaged file
 * must fail loudly on the line at fault rather than evaluate garbage. */
#include "trace.h"
#include "detector.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_MAX_SET DETECTOR_MAX_SET_SIZE /* as many as --set-size may ask for */

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* Parse a decimal integer field; advances *p. */
static int parse_int_field(const char **p, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(*p, &end, 10);
	if (end == *p || errno || (*end && *end != ' ' && *end != '\t' && *end != '\r'))
		return -1;
	*p = end;
	return 0;
}

static int parse_time_field(const char **p, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(*p, &end);
	if (end == *p || errno || !isfinite(*out) ||
	    (*end && *end != ' ' && *end != '\t' && *end != '\r'))
		return -1;
	*p = end;
	return 0;
}

static int trace_push(struct trace *tr, const struct trace_point *pt)
{
	if (tr->len == tr->cap) {
		size_t cap = tr->cap ? tr->cap * 2 : 1024;
		struct trace_point *np = realloc(tr->points, cap * sizeof(*np));

		if (!np)
			return -1;
		tr->points = np;
		tr->cap = cap;
	}
	tr->points[tr->len++] = *pt;
	return 0;
}

static int trace_push_event(struct trace *tr, double t_ms, enum trace_event_kind kind)
{
	struct trace_event *ne = realloc(tr->events, (tr->nevents + 1) * sizeof(*ne));

	if (!ne)
		return -1;
	tr->events = ne;
	tr->events[tr->nevents++] = (struct trace_event){ t_ms, kind };
	return 0;
}

/* "alpha=A interval=MS max_interval=MS": every value a positive number. */
static int parse_model_directive(const char *p, struct trace *tr, char *err, size_t errlen)
{
	double alpha, interval, max_interval;
	int used = 0;

	if (sscanf(p, " alpha=%lf interval=%lf max_interval=%lf %n", &alpha, &interval,
		   &max_interval, &used) != 3 || p[used] || !(alpha > 0 && alpha < 1) ||
	    !(interval > 0) || !(max_interval >= interval)) {
		snprintf(err, errlen, "expected \"#! model alpha=A interval=MS max_interval=MS\"");
		return -1;
	}
	tr->has_model = 1;
	tr->alpha = alpha;
	tr->interval_ms = interval;
	tr->max_interval_ms = max_interval;
	return 0;
}

/* "sets=N confirm=S": the rank sets alternated (1 or 2) and the confirmation window. */
static int parse_watch_directive(const char *p, struct trace *tr, char *err, size_t errlen)
{
	int nsets, used = 0;
	double confirm_s;

	if (sscanf(p, " sets=%d confirm=%lf %n", &nsets, &confirm_s, &used) != 2 || p[used] ||
	    (nsets != 1 && nsets != 2) || !(confirm_s >= 0 && confirm_s <= 1e7)) {
		snprintf(err, errlen, "expected \"#! watch sets=1|2 confirm=SECONDS\"");
		return -1;
	}
	tr->has_watch = 1;
	tr->nsets = nsets;
	tr->confirm_s = confirm_s;
	return 0;
}

/* A "#!" comment: the model's settings or an event; other words are plain comments. */
static int trace_parse_directive(const char *line, struct trace *tr, char *err, size_t errlen)
{
	const char *p = skip_space(line);
	size_t word = strcspn(p, " \t\r");
	enum trace_event_kind kind;
	double t;

	if (word == 5 && !strncmp(p, "model", 5))
		return parse_model_directive(p + 5, tr, err, errlen);
	if (word == 5 && !strncmp(p, "watch", 5))
		return parse_watch_directive(p + 5, tr, err, errlen);
	if (word == 4 && !strncmp(p, "hang", 4))
		kind = TRACE_EVENT_HANG;
	else if (word == 8 && !strncmp(p, "slowdown", 8))
		kind = TRACE_EVENT_SLOWDOWN;
	else if (word == 7 && !strncmp(p, "suspect", 7))
		kind = TRACE_EVENT_SUSPECT;
	else
		return 0;
	p = skip_space(p + word);
	if (parse_time_field(&p, &t) < 0 || t < 0 || *skip_space(p)) {
		snprintf(err, errlen, "expected \"#! %s T_MS\" with a time in ms",
			 trace_event_word(kind));
		return -1;
	}
	if (trace_push_event(tr, t, kind) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* The progress field: one letter per sampled rank (trace.h); its counts into pt. */
static int trace_parse_progress(const char **pp, struct trace_point *pt, char *err, size_t errlen)
{
	const char *p = *pp;
	size_t n = strcspn(p, " \t\r");
	if ((long)n != pt->c) {
		snprintf(err, errlen, "the progress field has %zu letters, not one per sampled rank (C = %d)",
			 n, pt->c);
		return -1;
	}
	pt->moved = pt->still = pt->kernel = pt->init = pt->live = pt->idle = pt->busy = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = p[i];
		char lo = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;

		if (!strchr(TRACE_PROGRESS_LETTERS, lo)) {
			snprintf(err, errlen, "progress letter '%c' is not one of m a s i o w b u k - (or M A S I O W B U K)",
				 ch);
			return -1;
		}
		if (lo == '-')
			continue;
		pt->live++;
		pt->init += lo != ch;
		pt->moved += lo == 'm' || lo == 'a';
		pt->still += lo == 's' || lo == 'i';
		pt->kernel += lo == 'k';
		pt->idle += lo == 'w';
		pt->busy += lo == 'b';
	}
	pt->has_progress = true;
	*pp = p + n;
	return 0;
}

/* Check one data line; message into err on failure. */
static int trace_parse_line(const char *line, struct trace_point *pt, char *err, size_t errlen)
{
	const char *p = skip_space(line);
	long s, c;

	if (parse_time_field(&p, &pt->t_ms) < 0 || pt->t_ms < 0) {
		snprintf(err, errlen, "expected a time in ms (a number >= 0) first");
		return -1;
	}
	p = skip_space(p);
	if (parse_int_field(&p, &s) < 0) {
		snprintf(err, errlen, "expected S, the OUT_MPI count (an integer), second");
		return -1;
	}
	p = skip_space(p);
	if (parse_int_field(&p, &c) < 0) {
		snprintf(err, errlen, "expected C, the set size (an integer), third");
		return -1;
	}
	p = skip_space(p);
	if (c < 1 || c > TRACE_MAX_SET) {
		snprintf(err, errlen, "set size C = %ld is out of range (1..%d)", c, TRACE_MAX_SET);
		return -1;
	}
	if (s < 0 || s > c) {
		snprintf(err, errlen, "S = %ld is outside 0..C (C = %ld)", s, c);
		return -1;
	}
	pt->s = (int)s;
	pt->c = (int)c;
	pt->has_progress = false;
	if (*p && trace_parse_progress(&p, pt, err, errlen) < 0)
		return -1;
	if (*skip_space(p)) {
		snprintf(err, errlen, "unexpected text after \"t_ms S C PROGRESS\"");
		return -1;
	}
	return 0;
}

int trace_parse(FILE *in, struct trace *tr, char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	char why[160];
	int rc = -1;

	memset(tr, 0, sizeof(*tr));
	while (getline(&line, &cap, in) != -1) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(skip_space(line), "#!", 2)) {
			if (trace_parse_directive(skip_space(line) + 2, tr, why, sizeof(why)) < 0)
				goto bad_line;
			continue;
		}
		line[strcspn(line, "#")] = '\0';
		if (*skip_space(line) == '\0')
			continue;

		struct trace_point pt;

		if (trace_parse_line(line, &pt, why, sizeof(why)) < 0)
			goto bad_line;
		if (tr->len && pt.t_ms < tr->points[tr->len - 1].t_ms) {
			snprintf(why, sizeof(why), "time %.17g ms goes back (previous %.17g)", pt.t_ms,
				 tr->points[tr->len - 1].t_ms);
			goto bad_line;
		}
		if (tr->len && pt.c != tr->points[0].c) {
			snprintf(why, sizeof(why), "set size C = %d differs from C = %d on the first sample",
				 pt.c, tr->points[0].c);
			goto bad_line;
		}
		if (trace_push(tr, &pt) < 0) {
			snprintf(err, errlen, "out of memory at line %ld", lineno);
			goto out;
		}
	}
	if (ferror(in)) {
		snprintf(err, errlen, "read error after line %ld: %s", lineno, strerror(errno));
		goto out;
	}
	if (tr->len == 0) {
		snprintf(err, errlen, "no samples (expected lines \"t_ms S C\")");
		goto out;
	}
	rc = 0;
	goto out;
bad_line:
	snprintf(err, errlen, "line %ld: %s", lineno, why);
out:
	free(line);
	if (rc < 0)
		trace_free(tr);
	return rc;
}

int trace_load(const char *path, struct trace *tr, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		int e = errno;

		snprintf(err, errlen, "cannot open: %s", strerror(e));
		memset(tr, 0, sizeof(*tr));
		return -1;
	}
	int rc = trace_parse(f, tr, err, errlen);

	fclose(f);
	return rc;
}

void trace_free(struct trace *tr)
{
	free(tr->points);
	free(tr->events);
	memset(tr, 0, sizeof(*tr));
}

size_t trace_find(const struct trace *tr, size_t from, double t)
{
	size_t lo = from, hi = tr->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tr->points[mid].t_ms < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int trace_write_point(FILE *out, double t_ms, int s, int c, const char *progress)
{
	if (progress && *progress)
		return fprintf(out, "%.3f %d %d %s\n", t_ms, s, c, progress) < 0 ? -1 : 0;
	return fprintf(out, "%.3f %d %d\n", t_ms, s, c) < 0 ? -1 : 0;
}

int trace_write_waits(FILE *out, const int *ranks, const signed char *waits, int n)
{
	int bad = fputs("# waits", out) < 0;

	for (int i = 0; i < n; i++)
		if (waits[i] < 0 || waits[i] == 0 || waits[i] >= 100)
			bad |= fprintf(out, " %d:%c", ranks[i], waits[i] < 0 ? '-' : waits[i] ? '1' : '0') < 0;
		else
			bad |= fprintf(out, " %d:%d%%", ranks[i], waits[i]) < 0;
	return (bad | (fputc('\n', out) < 0)) ? -1 : 0;
}

int trace_write_model(FILE *out, double alpha, double interval_ms, double max_interval_ms)
{
	return fprintf(out, "#! model alpha=%.17g interval=%.17g max_interval=%.17g\n", alpha,
		       interval_ms, max_interval_ms) < 0 ? -1 : 0;
}

int trace_write_watch(FILE *out, int nsets, double confirm_s)
{
	return fprintf(out, "#! watch sets=%d confirm=%.17g\n", nsets, confirm_s) < 0 ? -1 : 0;
}

int trace_write_event(FILE *out, double t_ms, enum trace_event_kind kind)
{
	return fprintf(out, "#! %s %.3f\n", trace_event_word(kind), t_ms) < 0 ? -1 : 0;
}

const char *trace_event_word(enum trace_event_kind kind)
{
	switch (kind) {
	case TRACE_EVENT_HANG: return "hang";
	case TRACE_EVENT_SLOWDOWN: return "slowdown";
	case TRACE_EVENT_SUSPECT: return "suspect";
	}
	return "?";
}
