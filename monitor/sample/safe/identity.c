/* SPDX-License-Identifier: BSD-3-Clause */
/* identity — a process's identity, read and checked again (see identity.h). */
#include "identity.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "procfs.h"

int identity_read(pid_t pid, struct proc_identity *id)
{
	char path[64];
	struct stat dir, exe;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &dir) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &exe) < 0)
		exe.st_dev = 0, exe.st_ino = 0; /* a kernel thread, or not ours to read */
	if (!(id->start = procfs_start_time(pid))) {
		errno = ESRCH;
		return -1;
	}
	id->uid = dir.st_uid;
	id->gid = dir.st_gid;
	id->exe_dev = exe.st_dev;
	id->exe_ino = exe.st_ino;
	return 0;
}

/* What differs between then and now, before the zombie case is told apart. */
static enum identity_verdict compare(pid_t pid, const struct proc_identity *id, const struct proc_identity *now,
				     char *why, size_t len)
{
	if (now->start != id->start) {
		snprintf(why, len, "pid %d now belongs to another process (started later)", (int)pid);
		return IDENTITY_REUSED;
	}
	if (now->exe_dev != id->exe_dev || now->exe_ino != id->exe_ino) {
		snprintf(why, len, "process %d now runs another program (it called exec)", (int)pid);
		return IDENTITY_CHANGED;
	}
	if (now->uid != id->uid || now->gid != id->gid) {
		snprintf(why, len, "process %d now runs as uid %d gid %d, not uid %d gid %d", (int)pid,
			 (int)now->uid, (int)now->gid, (int)id->uid, (int)id->gid);
		return IDENTITY_CHANGED;
	}
	return IDENTITY_SAME;
}

enum identity_verdict identity_check(pid_t pid, const struct proc_identity *id, char *why, size_t len)
{
	struct proc_identity now;
	enum identity_verdict v = identity_read(pid, &now) < 0 ? IDENTITY_GONE : compare(pid, id, &now, why, len);
	char state = v == IDENTITY_SAME ? 'R' : procfs_state(pid);

	/* A zombie has no executable left to compare: it exited, as its parent will learn. */
	if (v == IDENTITY_GONE || !state || state == 'Z') {
		snprintf(why, len, "process %d exited", (int)pid);
		return IDENTITY_GONE;
	}
	return v;
}

int identity_ids(pid_t pid, struct proc_ids *ids)
{
	char path[64], line[256];
	long ru = -1, eu = -1, rg = -1, eg = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long a, b;

		if (sscanf(line, "Uid: %ld %ld", &a, &b) == 2)
			ru = a, eu = b;
		else if (sscanf(line, "Gid: %ld %ld", &a, &b) == 2)
			rg = a, eg = b;
	}
	fclose(f);
	if (ru < 0 || eu < 0 || rg < 0 || eg < 0)
		return -1;
	*ids = (struct proc_ids){ (uid_t)ru, (uid_t)eu, (gid_t)rg, (gid_t)eg };
	return 0;
}
