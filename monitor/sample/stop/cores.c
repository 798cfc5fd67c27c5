/* SPDX-License-Identifier: BSD-3-Clause */
/* cores — gdb's gcore, one rank at a time, each with a deadline, into a file created first as
 * the job's owner (ownedfile.h) and handed to gdb as an open descriptor: gdb (perhaps root)
 * never opens a path in a directory the job can change, and the core, which holds the rank's
 * memory, is readable by its owner only. */
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

#include "../safe/ownedfile.h"

#define GCORE_DEADLINE_S 300

static bool wanted(int rank, const int *ranks, int n)
{
	for (int i = 0; i < n; i++)
		if (ranks[i] == rank)
			return true;
	return false;
}

/* Run gdb's gcore on pid into the open file core; 0, or -1 with a reason in err. */
static int run_gcore(pid_t pid, int core, char *err, size_t len)
{
	char attach[32];
	int status = 0;
	pid_t child;

	snprintf(attach, sizeof(attach), "attach %d", (int)pid);
	child = fork();
	if (child < 0) {
		snprintf(err, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (child == 0) {
		int null = open("/dev/null", O_RDWR);

		/* The core as descriptor 3 (not close-on-exec: dup2 clears it). */
		if (dup2(core, 3) < 0)
			_exit(126);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execlp("gdb", "gdb", "-nx", "--batch", "-ex", "set pagination off", "-ex", attach, "-ex",
		       "gcore /proc/self/fd/3", "-ex", "detach", "-ex", "quit", (char *)NULL);
		_exit(127);
	}
	for (int waited = 0; waited < GCORE_DEADLINE_S * 10; waited++) {
		struct timespec tick = { 0, 100000000L };
		pid_t r = waitpid(child, &status, WNOHANG);

		if (r == child) {
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
				return 0;
			snprintf(err, len, WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
				 "gdb (for gcore) is not installed" : "gcore failed (exit %d)",
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

/* The core file of t in dir, created as o's (O_EXCL: nothing planted there is written through);
 * its descriptor, or -1 with a reason. */
static int core_create(int dir, const char *name, const struct file_owner *o, char *err, size_t len)
{
	struct fscreds saved;
	int fd;

	if (ownedfile_enter(o, &saved, err, len) < 0)
		return -1;
	fd = openat(dir, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600); /* read back: core_written */
	if (fd < 0)
		snprintf(err, len, "cannot create %s: %s%s", name, strerror(errno),
			 errno == EEXIST ? " (something is already there; it is left alone)" : "");
	fscreds_leave(&saved);
	return fd;
}

/* Did gcore write a core into fd? gdb --batch exits 0 when its attach failed (the rank traced
 * by another, a thread that would not stop): the file is then empty. */
static int core_written(int fd, char *err, size_t len)
{
	unsigned char magic[4] = { 0 };

	if (pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) && !memcmp(magic, "\177ELF", 4))
		return 0;
	snprintf(err, len, "gcore wrote no core (gdb could not attach to the rank, or stop it)");
	return -1;
}

/* One rank's core: checked to be the rank found, its file created, gcore run into it. */
static json_t *core_one(struct target *t, int dir, const char *dirpath, const char *host,
			const struct file_owner *o)
{
	char name[512], path[4700], err[800] = "";
	int fd = -1;

	snprintf(name, sizeof(name), "core.rank%d.%s.%d", t->rank, host, (int)t->pid);
	snprintf(path, sizeof(path), "%s/%s", dirpath, name);
	if (target_still_same(t, err, sizeof(err)) == TARGET_OK && (fd = core_create(dir, name, o, err, sizeof(err))) >= 0 &&
	    run_gcore(t->pid, fd, err, sizeof(err)) == 0 && core_written(fd, err, sizeof(err)) == 0) {
		close(fd);
		return json_pack("{s:i, s:s, s:i, s:s}", "rank", t->rank, "host", host, "pid", (int)t->pid, "core", path);
	}
	if (fd >= 0) {
		close(fd);
		unlinkat(dir, name, 0); /* ours: created just now, O_EXCL */
	}
	return json_pack("{s:i, s:s, s:i, s:s}", "rank", t->rank, "host", host, "pid", (int)t->pid, "error",
			 err[0] ? err : "no core file written");
}

json_t *cores_dump(struct target *targets, int n, const int *ranks, int nranks, const char *dir,
		   const char *host, const struct file_owner *o)
{
	json_t *out = json_array();
	struct fscreds saved;
	char err[4200] = "";
	int dfd = -1;

	if (ownedfile_enter(o, &saved, err, sizeof(err)) == 0) {
		dfd = ownedfile_walk(dir, o, err, sizeof(err));
		fscreds_leave(&saved);
	}
	for (int i = 0; i < n; i++) {
		struct target *t = &targets[i];

		if (!wanted(t->rank, ranks, nranks))
			continue;
		json_array_append_new(out, dfd >= 0 ? core_one(t, dfd, dir, host, o) :
			json_pack("{s:i, s:s, s:i, s:s}", "rank", t->rank, "host", host, "pid", (int)t->pid,
				  "error", err));
	}
	if (dfd >= 0)
		close(dfd);
	return out;
}
