/* SPDX-License-Identifier: BSD-3-Clause */
/* pidlist — parsing and checking the PIDs a user names. */
#include "pidlist.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* A whole number in [lo, hi] spanning exactly [p, end); -1 when it is not one. */
static long whole_number(const char *p, const char *end, long lo, long hi)
{
	long v = 0;

	if (p == end || end - p > 10)
		return -1;
	for (const char *c = p; c < end; c++) {
		if (!isdigit((unsigned char)*c))
			return -1;
		v = v * 10 + (*c - '0');
	}
	return v < lo || v > hi ? -1 : v;
}

/* The text [p, end) for an error message: at most 32 characters, control bytes as '?', so the
 * message stays one printable line whatever the input holds. */
static const char *shown(const char *p, const char *end)
{
	static char buf[4][40];
	static int next;
	char *b = buf[next++ % 4];
	size_t n = 0;

	for (; p < end && n < 32; p++)
		b[n++] = isprint((unsigned char)*p) ? *p : '?';
	b[n] = '\0';
	return b;
}

static int find_pid(const struct pid_entry *e, int n, const char *host, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (e[i].pid == pid && !strcmp(e[i].host, host))
			return i;
	return -1;
}

int pidlist_parse_list(const char *text, struct pid_entry *out, int max, char *err, size_t len)
{
	int n = 0;
	const char *p = text;

	if (!*text) {
		snprintf(err, len, "--pids: the list is empty; give the ranks' PIDs, e.g. --pids 4242,4243");
		return -1;
	}
	for (;;) {
		const char *end = p + strcspn(p, ",");
		long pid = whole_number(p, end, 1, 4194304);

		if (pid < 0) {
			snprintf(err, len, "--pids: item %d, '%s', is not a PID (a whole number from 1)",
				 n + 1, shown(p, end));
			return -1;
		}
		if (find_pid(out, n, "", (pid_t)pid) >= 0) {
			snprintf(err, len, "--pids: PID %ld is listed twice", pid);
			return -1;
		}
		if (n >= max) {
			snprintf(err, len, "--pids: more than %d PIDs", max);
			return -1;
		}
		memset(&out[n], 0, sizeof(out[n]));
		out[n].pid = (pid_t)pid;
		out[n].rank = -1;
		out[n].line = n + 1;
		n++;
		if (!*end)
			return n;
		p = end + 1;
	}
}

/* Split one line (without its newline) into at most 4 words; the count. */
static int split_words(const char *line, const char *end, const char *w[4], const char *we[4])
{
	int n = 0;

	for (const char *p = line; p < end;) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p >= end || *p == '#')
			break;
		if (n == 4)
			return 5;
		w[n] = p;
		while (p < end && *p != ' ' && *p != '\t' && *p != '\r' && *p != '#')
			p++;
		we[n++] = p;
	}
	return n;
}

static int valid_host(const char *p, const char *end)
{
	if (p == end || end - p >= PIDLIST_HOST_MAX)
		return 0;
	for (const char *c = p; c < end; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_')
			return 0;
	return 1;
}

int pidlist_parse_text(const char *text, size_t n, struct pid_entry *out, int max, char *err,
		       size_t len)
{
	const char *end = text + n;
	int count = 0, lineno = 0;

	for (const char *line = text; line < end; lineno++) {
		const char *nl = memchr(line, '\n', (size_t)(end - line)), *le = nl ? nl : end;
		const char *w[4], *we[4];
		int nw = split_words(line, le, w, we);

		line = nl ? nl + 1 : end;
		if (nw == 0)
			continue;
		if (memchr(w[0], '\0', (size_t)(le - w[0]))) {
			snprintf(err, len, "line %d: contains a NUL byte; is this a text file?", lineno + 1);
			return -1;
		}
		if (nw < 2 || nw > 3) {
			snprintf(err, len, "line %d: want 'host pid [rank]', found %d word(s)", lineno + 1,
				 nw > 4 ? 5 : nw);
			return -1;
		}
		if (!valid_host(w[0], we[0])) {
			snprintf(err, len, "line %d: '%s' is not a host name", lineno + 1, shown(w[0], we[0]));
			return -1;
		}

		long pid = whole_number(w[1], we[1], 1, 4194304);
		long rank = nw == 3 ? whole_number(w[2], we[2], 0, 1 << 30) : -1;

		if (pid < 0 || (nw == 3 && rank < 0)) {
			int k = pid < 0 ? 1 : 2;

			snprintf(err, len, "line %d: '%s' is not a %s (a whole number%s)", lineno + 1,
				 shown(w[k], we[k]), k == 1 ? "PID" : "rank", k == 1 ? " from 1" : " from 0");
			return -1;
		}
		if (count >= max) {
			snprintf(err, len, "line %d: more than %d PIDs", lineno + 1, max);
			return -1;
		}

		struct pid_entry *e = &out[count];

		memset(e, 0, sizeof(*e));
		memcpy(e->host, w[0], (size_t)(we[0] - w[0]));
		e->pid = (pid_t)pid;
		e->rank = (int)rank;
		e->line = lineno + 1;

		int dup = find_pid(out, count, e->host, e->pid);

		if (dup >= 0) {
			snprintf(err, len, "line %d: %s %d is already on line %d", lineno + 1, e->host,
				 (int)e->pid, out[dup].line);
			return -1;
		}
		count++;
	}
	if (count == 0) {
		snprintf(err, len, "no 'host pid [rank]' line");
		return -1;
	}
	return count;
}

char *pidlist_load_file(const char *path, size_t *n, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;

	if (!f) {
		snprintf(err, len, "cannot read the PID file %s: %s", path, strerror(errno));
		return NULL;
	}
	/* At most 64 KiB ranks of ~40 bytes; refuse anything much larger. */
	text = malloc(4 << 20);
	*n = text ? fread(text, 1, 4 << 20, f) : 0;
	if (!text)
		snprintf(err, len, "%s: out of memory", path);
	else if (*n == 4 << 20 && fgetc(f) != EOF) {
		snprintf(err, len, "the PID file %s is larger than 4 MiB", path);
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

int pidlist_read_file(const char *path, struct pid_entry *out, int max, char *err, size_t len)
{
	char msg[512];
	size_t n;
	char *text = pidlist_load_file(path, &n, err, len);
	int r;

	if (!text)
		return -1;
	r = pidlist_parse_text(text, n, out, max, msg, sizeof(msg));
	if (r < 0)
		snprintf(err, len, "%s: %s", path, msg);
	free(text);
	return r;
}

bool pidlist_same_host(const char *host, const char *me)
{
	size_t hl = strcspn(host, "."), ml = strcspn(me, ".");

	return !host[0] || !strcmp(host, "localhost") || !strcmp(host, me) ||
	       (hl == ml && !strncmp(host, me, hl));
}
