/* fscreds — per-thread file credentials (see fscreds.h). */
#include "fscreds.h"

#include <errno.h>
#include <stdio.h>
#include <sys/fsuid.h>
#include <unistd.h>


int fscreds_owner(pid_t pid, uid_t *uid, gid_t *gid)
{
	char path[64], line[256];
	long u = -1, g = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long real, eff;

		if (sscanf(line, "Uid: %ld %ld", &real, &eff) == 2)
			u = eff;
		else if (sscanf(line, "Gid: %ld %ld", &real, &eff) == 2)
			g = eff;
	}
	fclose(f);
	if (u < 0 || g < 0)
		return -1;
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return 0;
}

void fscreds_enter(uid_t uid, gid_t gid, struct fscreds *saved)
{
	saved->changed = false;
	if (geteuid() != 0 || (uid == 0 && gid == 0))
		return;
	/* The group first: setfsgid needs CAP_SETGID, which a non-zero fsuid keeps anyway. */
	saved->gid = (gid_t)setfsgid(gid);
	saved->uid = (uid_t)setfsuid(uid);
	saved->changed = true;
}

void fscreds_leave(const struct fscreds *saved)
{
	if (!saved->changed)
		return;
	setfsuid(saved->uid);
	setfsgid(saved->gid);
}
