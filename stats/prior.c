/* SPDX-License-Identifier: BSD-3-Clause */
/* prior — the remembered model's text form (prior.h). The text may come from a file a user
 * can write while a monitor runs as root: every number is range-checked, every loop bounded by
 * the text's length and PRIOR_MAX_SET_SIZE. */
#include "prior.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIOR_HEADER "parastack-model-prior"
#define PRIOR_MAX_MS (7.0 * 24 * 3600e3) /* a week: beyond it a time is not a job's */

bool prior_valid(const struct model_prior *p)
{
	if (p->set_size < 1 || p->set_size > PRIOR_MAX_SET_SIZE)
		return false;
	if (!(p->interval_ms >= 1.0 && p->interval_ms <= PRIOR_MAX_MS))
		return false;
	if (!(p->longest_healthy_ms >= 0 && p->longest_healthy_ms <= PRIOR_MAX_MS) ||
	    !(p->stall_longest_ms >= 0 && p->stall_longest_ms <= PRIOR_MAX_MS))
		return false;
	if (!(p->stall_quiet_share >= 0 && p->stall_quiet_share <= 1) || !(p->samples >= 0 && p->samples < 1e12) ||
	    !(p->stall_samples >= 0 && p->stall_samples < 1e12))
		return false;

	double sum = 0;

	for (int v = 0; v <= p->set_size; v++) {
		if (!(p->share[v] >= 0 && p->share[v] <= 1))
			return false;
		sum += p->share[v];
	}
	return fabs(sum - 1.0) < 1e-6;
}

int prior_format(const struct model_prior *p, char *buf, size_t len)
{
	size_t at = 0;
	int n = snprintf(buf, len,
			 PRIOR_HEADER " %d\nset_size %d\ninterval_ms %.3f\nlongest_healthy_ms %.3f\n"
			 "stall_samples %.1f\nstall_quiet_share %.9f\nstall_longest_ms %.3f\nsamples %.1f\nshare",
			 PRIOR_VERSION, p->set_size, p->interval_ms, p->longest_healthy_ms, p->stall_samples,
			 p->stall_quiet_share, p->stall_longest_ms, p->samples);

	if (n < 0 || (size_t)n >= len)
		return -1;
	at = (size_t)n;
	for (int v = 0; v <= p->set_size && v <= PRIOR_MAX_SET_SIZE; v++) {
		n = snprintf(buf + at, len - at, " %.9f", p->share[v]);
		if (n < 0 || (size_t)n >= len - at)
			return -1;
		at += (size_t)n;
	}
	if (at + 2 > len)
		return -1;
	buf[at++] = '\n';
	buf[at] = '\0';
	return (int)at;
}

static bool fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return false;
}

/* One number from [*s, end): strtod on a bounded copy, so no read runs past the text. */
static bool read_number(const char **s, const char *end, double *out)
{
	char tmp[64];
	size_t k = 0;

	while (*s < end && **s == ' ')
		(*s)++;
	while (*s < end && k + 1 < sizeof(tmp) && **s != ' ' && **s != '\n')
		tmp[k++] = *(*s)++;
	tmp[k] = '\0';
	if (k == 0 || k + 1 >= sizeof(tmp))
		return false;

	char *stop;

	errno = 0;
	*out = strtod(tmp, &stop);
	return errno == 0 && *stop == '\0' && isfinite(*out);
}

enum { K_SET, K_INTERVAL, K_LONGEST, K_STALL_N, K_QUIET, K_STALL_LONGEST, K_SAMPLES, K_SHARE, K_N };
static const char *const prior_keys[K_N] = { "set_size", "interval_ms", "longest_healthy_ms", "stall_samples",
					     "stall_quiet_share", "stall_longest_ms", "samples", "share" };

static int key_index(const char *s, size_t n)
{
	for (int k = 0; k < K_N; k++)
		if (strlen(prior_keys[k]) == n && memcmp(prior_keys[k], s, n) == 0)
			return k;
	return -1;
}

/* One "key values" line whose key is at [line, end). */
static bool parse_line(const char *line, const char *end, struct model_prior *p, bool seen[K_N],
		       char *err, size_t errlen)
{
	const char *s = line;

	while (s < end && *s != ' ')
		s++;

	int k = key_index(line, (size_t)(s - line));
	double x;

	if (k < 0)
		return fail(err, errlen, "unknown key '%.*s'", (int)(s - line > 40 ? 40 : s - line), line);
	if (seen[k])
		return fail(err, errlen, "key %s given twice", prior_keys[k]);
	seen[k] = true;
	if (k == K_SHARE) {
		if (!seen[K_SET])
			return fail(err, errlen, "share before set_size");
		for (int v = 0; v <= p->set_size; v++)
			if (!read_number(&s, end, &p->share[v]))
				return fail(err, errlen, "share: %d numbers wanted", p->set_size + 1);
	} else {
		if (!read_number(&s, end, &x))
			return fail(err, errlen, "%s: not a number", prior_keys[k]);
		switch (k) {
		case K_SET:
			if (!(x >= 1 && x <= PRIOR_MAX_SET_SIZE && x == floor(x)))
				return fail(err, errlen, "set_size %g: 1 to %d wanted", x, PRIOR_MAX_SET_SIZE);
			p->set_size = (int)x;
			break;
		case K_INTERVAL: p->interval_ms = x; break;
		case K_LONGEST: p->longest_healthy_ms = x; break;
		case K_STALL_N: p->stall_samples = x; break;
		case K_QUIET: p->stall_quiet_share = x; break;
		case K_STALL_LONGEST: p->stall_longest_ms = x; break;
		case K_SAMPLES: p->samples = x; break;
		}
	}
	while (s < end && *s == ' ')
		s++;
	return s == end ? true : fail(err, errlen, "%s: trailing text", prior_keys[k]);
}

bool prior_parse(const char *text, size_t len, struct model_prior *p, char *err, size_t errlen)
{
	bool seen[K_N] = { false };
	const char *s = text, *end = text + len;
	char head[48];
	int version = 0, used = 0;

	memset(p, 0, sizeof(*p));
	if (len > PRIOR_TEXT_MAX)
		return fail(err, errlen, "longer than %d bytes", PRIOR_TEXT_MAX);
	snprintf(head, sizeof(head), "%.*s", (int)(len < sizeof(head) - 1 ? len : sizeof(head) - 1), text);
	if (sscanf(head, PRIOR_HEADER " %d%n", &version, &used) != 1 || head[used] != '\n')
		return fail(err, errlen, "not a parastack model prior (its first line)");
	if (version != PRIOR_VERSION)
		return fail(err, errlen, "version %d, this parastack reads %d", version, PRIOR_VERSION);
	s += used + 1;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		if (!nl)
			return fail(err, errlen, "the last line has no newline");
		if (!parse_line(s, nl, p, seen, err, errlen))
			return false;
		s = nl + 1;
	}
	for (int k = 0; k < K_N; k++)
		if (!seen[k])
			return fail(err, errlen, "key %s missing", prior_keys[k]);
	return prior_valid(p) ? true : fail(err, errlen, "values out of range");
}
