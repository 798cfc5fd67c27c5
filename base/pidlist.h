/* SPDX-License-Identifier: BSD-3-Clause */
/* pidlist — the ranks of a job named by the user, for `parastack attach --pids LIST` and
 * `--pids-file FILE`, parsed: a comma-separated PID list in rank order; a file of lines
 * "host pid [rank]", '#' comments and blank lines allowed. Text only: nothing here looks at a
 * process (the checks are job/pidlist_check.h). Errors are one line naming the entry. */
#ifndef PARASTACK_PIDLIST_H
#define PARASTACK_PIDLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PIDLIST_MAX 65536
#define PIDLIST_HOST_MAX 256

struct pid_entry {
	char host[PIDLIST_HOST_MAX]; /* "" in a --pids list: this machine */
	pid_t pid;
	int rank;                    /* -1 until known */
	int line;                    /* 1-based line (file) or position (list) */
};

/* "4242,4243,...": count, or -1 with err. Empty items, non-numbers, PIDs <= 0 and repeated
 * PIDs are errors. */
int pidlist_parse_list(const char *text, struct pid_entry *out, int max, char *err, size_t len);

/* The text of a PID file (n bytes, need not end in NUL): count, or -1 with err naming the line. */
int pidlist_parse_text(const char *text, size_t n, struct pid_entry *out, int max, char *err,
		       size_t len);
int pidlist_read_file(const char *path, struct pid_entry *out, int max, char *err, size_t len);
/* The bytes of a PID file (malloc'd, *n of them), or NULL with err. */
char *pidlist_load_file(const char *path, size_t *n, char *err, size_t len);

/* Does a host named in a list ("" or "localhost": this machine) name the machine called me? A
 * short name matches its long form (n1 ~ n1.cluster). */
bool pidlist_same_host(const char *host, const char *me);

#endif
