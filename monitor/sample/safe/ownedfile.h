/* SPDX-License-Identifier: BSD-3-Clause */
/* ownedfile — the files a monitor writes for a user (report, trace, cores), created as that user
 * and never through a link the job could plant. A monitor may run as root on an ordinary user's
 * job, whose ranks can change the file system under it: so every file is opened with the
 * owner's file credentials (setfsuid, confirmed; a monitor that cannot take them refuses to
 * write rather than write as root), the directory is reached by a walk that, for another user's
 * files, follows a symbolic link only when it belongs to root or to that user (the kernel's
 * protected_symlinks rule, on every component), and the file itself is never a link
 * (O_NOFOLLOW) and never something other than a regular file. Files created for another user
 * are 0600. */
#ifndef PARASTACK_OWNEDFILE_H
#define PARASTACK_OWNEDFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "fscreds.h"

/* Whom the files are for: set (is_other) when the monitor runs as root for another uid. */
struct file_owner {
	uid_t uid;
	gid_t gid;
	bool is_other;
};

/* The owner of the files a monitor writes for a job whose ranks belong to uid/gid: that user;
 * for a job of root's, the user who ran sudo (SUDO_UID), if any; otherwise the monitor itself. */
void ownedfile_owner(uid_t uid, gid_t gid, struct file_owner *o);
/* Take o's file credentials until fscreds_leave(saved); -1 with a one-line reason (and nothing
 * taken) when they cannot be had: the caller must not write then. */
int ownedfile_enter(const struct file_owner *o, struct fscreds *saved, char *err, size_t len);
/* The directory dirpath (O_PATH) reached by the walk above; -1 with a reason. Call between
 * ownedfile_enter and leave. */
int ownedfile_walk(const char *dirpath, const struct file_owner *o, char *err, size_t len);
/* The same for the directory of a file's path, and its last component in *name (pointing into
 * path). */
int ownedfile_dir(const char *path, const struct file_owner *o, const char **name, char *err, size_t len);
/* ownedfile_enter, then ownedfile_dir: the directory, with o's credentials taken (leave them
 * with fscreds_leave(saved) after closing it); -1 with a reason, nothing taken. */
int ownedfile_open_dir(const char *path, const struct file_owner *o, struct fscreds *saved, const char **name,
		       char *err, size_t len);
/* The mode of a file created for o: 0600 for another user, else 0666 less the umask. */
mode_t ownedfile_mode(const struct file_owner *o);

#endif
