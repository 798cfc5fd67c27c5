/* pidlist — the ranks of a job named by the user, for `parastack attach --pids LIST` and
 * `--pids-file FILE`: parsing (a comma-separated PID list in rank order; a file of lines
 * "host pid [rank]", '#' comments and blank lines allowed), the checks made before anything is
 * touched (the process exists, this user may trace it, it maps an MPI library), and which rank
 * each one is (the file's rank column, else the rank in the process's environment, else its
 * position in the list). Errors are one line naming the entry. */
#ifndef PARASTACK_PIDLIST_H
#define PARASTACK_PIDLIST_H

#include "../sample/identity.h"
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
	struct proc_identity id;     /* taken by pidlist_check (id.start 0 until then) */
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

/* Check e (a process of this machine) before attaching: it exists, is no zombie, may be traced
 * by this user (the kernel's own ptrace access check, through /proc/PID/mem, which stops
 * nothing), is not traced by another, and maps an MPI library. Records its start time. 0, or
 * -1 with err. */
int pidlist_check(struct pid_entry *e, char *err, size_t len);

/* Fill in the ranks not given (environment, else list position - 1) and check that no rank is
 * claimed twice. Every entry must be a process of this machine. 0, or -1 with err. */
int pidlist_resolve_ranks(struct pid_entry *e, int n, char *err, size_t len);

/* Does a host named in a list ("" or "localhost": this machine) name the machine called me? A
 * short name matches its long form (n1 ~ n1.cluster). */
bool pidlist_same_host(const char *host, const char *me);

#endif
