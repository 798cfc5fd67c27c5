/* SPDX-License-Identifier: BSD-3-Clause */
/* ranges — "0-2,4-7" (see ranges.h). */
#include "ranges.h"

#include <stdbool.h>
#include <stdio.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

char *ranges_dup(const int *ranks, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (int i = 0; i < n;) {
		int j = i;

		while (j + 1 < n && (long long)ranks[j + 1] == (long long)ranks[j] + 1)
			j++;
		fprintf(f, "%s%d", i ? "," : "", ranks[i]);
		if (j > i)
			fprintf(f, "-%d", ranks[j]);
		i = j + 1;
	}
	fclose(f);
	return buf;
}

void ranges_format(const int *ranks, int n, char *buf, size_t len)
{
	char *all = ranges_dup(ranks, n);

	snprintf(buf, len, "%s", all ? all : "");
	free(all);
}

/* One number of a list at *s, moving past it; false when there is none or it is out of range. */
static bool parse_number(const char **s, long *v)
{
	char *end;

	if (**s < '0' || **s > '9')
		return false;
	errno = 0;
	*v = strtol(*s, &end, 10);
	if (errno || *v > INT_MAX)
		return false;
	*s = end;
	return true;
}

bool ranges_contains(const char *s, long v)
{
	while (s && *s) {
		long a, b;

		if (!parse_number(&s, &a))
			return false;
		b = a;
		if (*s == '-' && (s++, !parse_number(&s, &b)))
			return false;
		if (a <= v && v <= b)
			return true;
		if (*s && *s++ != ',')
			return false;
	}
	return false;
}

int *ranges_parse(const char *s, int *n, int max)
{
	int *out = NULL, cap = 0;

	*n = 0;
	if (!s)
		return NULL;
	while (*s) {
		long a, b;

		if (!parse_number(&s, &a))
			goto bad;
		b = a;
		if (*s == '-' && (s++, !parse_number(&s, &b)))
			goto bad;
		if (b < a || b - a >= (long)max - *n)
			goto bad;
		if (*s == ',' && !*++s)
			goto bad; /* "1," */
		if (*s && (*s < '0' || *s > '9'))
			goto bad;
		if (*n + (b - a + 1) > cap) {
			long want = cap ? cap : 16;

			while (want < *n + (b - a + 1))
				want *= 2;
			int *bigger = realloc(out, (size_t)want * sizeof(int));

			if (!bigger)
				goto bad;
			out = bigger;
			cap = (int)want;
		}
		for (long v = a; v <= b; v++)
			out[(*n)++] = (int)v;
	}
	return out ? out : calloc(1, sizeof(int));
bad:
	free(out);
	*n = 0;
	return NULL;
}
