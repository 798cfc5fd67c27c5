/* SPDX-License-Identifier: BSD-3-Clause */
/* procsig — signal a process parastack checked a moment ago, never one that took its PID since.
 * The contract: the caller's check (`same`) says whether pid is still the process it recorded
 * (its start time, and more where the caller knows more); procsig_send signals it only then.
 * Through a pidfd opened before the check, the signal cannot reach another process. Where
 * pidfd_open fails (EMFILE, ENFILE, kernels before 5.3: ENOSYS) the process is signalled by PID
 * right after the check instead - never skipped: a job left running on a node is worse than the
 * microseconds in which a PID could wrap round - and the caller is told, to say so once. */
#ifndef PARASTACK_PROCSIG_H
#define PARASTACK_PROCSIG_H

#include <stdbool.h>
#include <sys/types.h>

struct procsig {
	int pidfd_errno; /* why pidfd_open failed the last time it did (0: never) */
	int by_pid;      /* signals sent by PID, after the check, for want of a pidfd */
};

/* Send sig to pid if same(pid, ctx) holds; true if it was sent. */
bool procsig_send(struct procsig *ps, pid_t pid, bool (*same)(pid_t pid, const void *ctx), const void *ctx, int sig);

/* The check by start time alone (ctx: the unsigned long long start time, procfs_start_time),
 * the process not yet a zombie. */
bool procsig_same_start(pid_t pid, const void *start);

#endif
