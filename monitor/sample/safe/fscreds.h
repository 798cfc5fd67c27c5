/* SPDX-License-Identifier: BSD-3-Clause */
/* fscreds — file access with someone else's credentials, for this thread only (setfsuid and
 * setfsgid). As root, the files a target maps (its executable, its libraries and their debug
 * information) are opened and parsed as the target's owner, so a crafted target cannot make the
 * monitor read what its owner could not (the files written for the job are ownedfile.h's).
 * Without root, or when the identities already match, nothing changes. */
#ifndef PARASTACK_FSCREDS_H
#define PARASTACK_FSCREDS_H

#include <stdbool.h>
#include <sys/types.h>

struct fscreds {
	uid_t uid;
	gid_t gid;
	bool changed; /* whether fscreds_leave has something to undo */
};

/* The effective user and group of pid (from /proc/PID/status); -1 if it cannot be read. */
int fscreds_owner(pid_t pid, uid_t *uid, gid_t *gid);
/* Take uid/gid for file access until fscreds_leave(saved), when running as root and they
 * differ from ours. */
void fscreds_enter(uid_t uid, gid_t gid, struct fscreds *saved);
void fscreds_leave(const struct fscreds *saved);

#endif
