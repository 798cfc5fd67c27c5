/* cores — gcore, one rank at a time, each with a deadline. */
#include "cores.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GCORE_DEADLINE_S 300

static bool wanted(int rank, const int *ranks, int n)
{
	for (int i = 0; i < n; i++)
		if (ranks[i] == rank)
			return true;
	return false;
}

/* Run gcore on pid with output prefix; 0, or -1 with a reason in err. */
static int run_gcore(pid_t pid, const char *prefix, char *err, size_t len)
{
	char pid_s[16];
	int status = 0;
	pid_t child;

	snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
	child = fork();
	if (child < 0) {
		snprintf(err, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (child == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execlp("gcore", "gcore", "-o", prefix, pid_s, (char *)NULL);
		_exit(127);
	}
	for (int waited = 0; waited < GCORE_DEADLINE_S * 10; waited++) {
		struct timespec tick = { 0, 100000000L };
		pid_t r = waitpid(child, &status, WNOHANG);

		if (r == child) {
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
				return 0;
			snprintf(err, len, WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
				 "gcore (from gdb) is not installed" : "gcore failed (exit %d)",
				 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
			return -1;
		}
		nanosleep(&tick, NULL);
	}
	/* gcore is our child: ours to stop. */
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	snprintf(err, len, "gcore took longer than %d s; stopped", GCORE_DEADLINE_S);
	return -1;
}

json_t *cores_dump(const struct target *targets, int n, const int *ranks, int nranks,
		   const char *dir, const char *host)
{
	json_t *out = json_array();

	for (int i = 0; i < n; i++) {
		const struct target *t = &targets[i];
		char prefix[4096], path[4200], err[256] = "";
		struct stat st;

		if (!wanted(t->rank, ranks, nranks))
			continue;
		snprintf(prefix, sizeof(prefix), "%s/core.rank%d.%s", dir, t->rank, host);
		snprintf(path, sizeof(path), "%s.%d", prefix, (int)t->pid);
		if (run_gcore(t->pid, prefix, err, sizeof(err)) == 0 && stat(path, &st) == 0)
			json_array_append_new(out, json_pack("{s:i, s:s, s:i, s:s}", "rank", t->rank, "host",
							     host, "pid", (int)t->pid, "core", path));
		else
			json_array_append_new(out, json_pack("{s:i, s:s, s:i, s:s}", "rank", t->rank, "host",
							     host, "pid", (int)t->pid, "error",
							     err[0] ? err : "no core file written"));
	}
	return out;
}
