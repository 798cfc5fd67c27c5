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

bool identity_same(pid_t pid, const struct proc_identity *id, char *why, size_t len)
{
	struct proc_identity now;

	if (identity_read(pid, &now) < 0) {
		snprintf(why, len, "process %d exited", (int)pid);
		return false;
	}
	if (now.start != id->start) {
		snprintf(why, len, "pid %d now belongs to another process (started later)", (int)pid);
		return false;
	}
	if (now.exe_dev != id->exe_dev || now.exe_ino != id->exe_ino) {
		snprintf(why, len, "process %d now runs another program (it called exec)", (int)pid);
		return false;
	}
	if (now.uid != id->uid || now.gid != id->gid) {
		snprintf(why, len, "process %d now runs as uid %d gid %d, not uid %d gid %d", (int)pid,
			 (int)now.uid, (int)now.gid, (int)id->uid, (int)id->gid);
		return false;
	}
	return true;
}

int identity_uids(pid_t pid, uid_t *real, uid_t *effective, gid_t *rgid)
{
	char path[64], line[256];
	long r = -1, e = -1, g = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long a, b;

		if (sscanf(line, "Uid: %ld %ld", &a, &b) == 2)
			r = a, e = b;
		else if (sscanf(line, "Gid: %ld %ld", &a, &b) == 2)
			g = a;
	}
	fclose(f);
	if (r < 0 || e < 0 || g < 0)
		return -1;
	*real = (uid_t)r;
	*effective = (uid_t)e;
	*rgid = (gid_t)g;
	return 0;
}
