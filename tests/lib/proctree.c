/* SPDX-License-Identifier: BSD-3-Clause */
/* proctree — real process trees for the unit tests (see proctree.h). */
#include "proctree.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t proctree_start(const char *script, char *const env[])
{
	pid_t pid = fork();

	if (pid == 0) {
		setpgid(0, 0);
		execle("/bin/sh", "sh", "-c", script, (char *)NULL, env);
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

void proctree_stop(pid_t pid)
{
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
