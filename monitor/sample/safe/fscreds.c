/* SPDX-License-Identifier: BSD-3-Clause */
/* fscreds — per-thread file credentials (see fscreds.h). */
#include "fscreds.h"
#include "identity.h"

#include <errno.h>
#include <stdio.h>
#include <sys/fsuid.h>
#include <unistd.h>


int fscreds_owner(pid_t pid, uid_t *uid, gid_t *gid)
{
	struct proc_ids ids;

	if (identity_ids(pid, &ids) < 0)
		return -1;
	*uid = ids.euid;
	*gid = ids.egid;
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
