/* SPDX-License-Identifier: BSD-3-Clause */
/* pidlist_check — the checks made on the ranks a user listed before anything is touched, and
 * which rank each one is (pidlist_check.h). */
#include "pidlist_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "discover.h"
#include "../../base/runtimes.h"
#include "../sample/safe/procfs.h"

static int compare_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int pidlist_check(const struct pid_entry *e, struct proc_identity *id, char *err, size_t len)
{
	char path[64], why[256];
	char st = procfs_state(e->pid);
	pid_t tracer;
	int fd, saved;

	if (!st || st == 'Z') {
		snprintf(err, len, "PID %d: %s", (int)e->pid, st ? "has exited (a zombie)" : "no such process");
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)e->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	saved = errno;
	if (fd < 0) {
		procfs_explain_eperm(e->pid, why, sizeof(why));
		snprintf(err, len, "PID %d: may not be traced by this user (%s): %s", (int)e->pid,
			 strerror(saved), why);
		return -1;
	}
	close(fd);
	if ((tracer = procfs_tracer(e->pid)) > 0) {
		snprintf(err, len, "PID %d: already traced by PID %d (a debugger?); detach that first",
			 (int)e->pid, (int)tracer);
		return -1;
	}
	if (!discover_maps_comm(e->pid)) {
		char libs[200];

		runtime_rank_library_list(libs, sizeof(libs));
		snprintf(err, len, "PID %d: maps no communication library (%s); is it a rank of an MPI or "
			 "torch.distributed job?", (int)e->pid, libs);
		return -1;
	}
	if (identity_read(e->pid, id) < 0) {
		snprintf(err, len, "PID %d: no such process", (int)e->pid);
		return -1;
	}
	return 0;
}

int pidlist_resolve_ranks(struct pid_entry *e, int n, char *err, size_t len)
{
	int *ranks = malloc(sizeof(int) * (size_t)(n + 1));

	if (!ranks) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (e[i].rank < 0)
			e[i].rank = procfs_rank(e[i].pid);
		if (e[i].rank < 0)
			e[i].rank = i;
		ranks[i] = e[i].rank;
	}
	qsort(ranks, (size_t)n, sizeof(int), compare_int);
	for (int i = 1; i < n; i++)
		if (ranks[i] == ranks[i - 1]) {
			int a = -1, b = -1;

			for (int k = 0; k < n; k++)
				if (e[k].rank == ranks[i]) {
					if (a < 0)
						a = k;
					else if (b < 0)
						b = k;
				}
			snprintf(err, len, "rank %d is claimed by PID %d and PID %d (from their environment, "
				 "a rank column, or list order); each rank once", ranks[i], (int)e[a].pid,
				 (int)e[b].pid);
			free(ranks);
			return -1;
		}
	free(ranks);
	return 0;
}
