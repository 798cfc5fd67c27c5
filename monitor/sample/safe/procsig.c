/* SPDX-License-Identifier: BSD-3-Clause */
/* procsig — signal a checked process, through a pidfd or, without one, by PID (procsig.h). */
#include "procsig.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procfs.h"

bool procsig_send(struct procsig *ps, pid_t pid, bool (*same)(pid_t pid, const void *ctx), const void *ctx, int sig)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	int err = errno;
	bool sent = false;

	if (fd < 0 && err == ESRCH)
		return false; /* gone */
	if (fd < 0) {
		ps->pidfd_errno = err;
		if (same(pid, ctx) && kill(pid, sig) == 0) {
			ps->by_pid++;
			sent = true;
		}
		return sent;
	}
	if (same(pid, ctx))
		sent = syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) == 0;
	close(fd);
	return sent;
}

bool procsig_same_start(pid_t pid, const void *start)
{
	unsigned long long st = procfs_start_time(pid);
	char state = st ? procfs_state(pid) : 0;

	return st && st == *(const unsigned long long *)start && state && state != 'Z';
}
