/* SPDX-License-Identifier: BSD-3-Clause */
/* ownedfile — files created as their owner, reached without planted links (see ownedfile.h). */
#include "ownedfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINKS_MAX 40 /* as the kernel's own path walk */

static long env_id(const char *name)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end || v < 0 || v > 0x7fffffffL ? -1 : v;
}

void ownedfile_owner(uid_t uid, gid_t gid, struct file_owner *o)
{
	long su = env_id("SUDO_UID"), sg = env_id("SUDO_GID");

	if (uid == 0 && su >= 0 && sg >= 0) {
		uid = (uid_t)su;
		gid = (gid_t)sg;
	}
	o->uid = uid;
	o->gid = gid;
	o->is_other = geteuid() == 0 && uid != 0;
}

int ownedfile_enter(const struct file_owner *o, struct fscreds *saved, char *err, size_t len)
{
	saved->changed = false;
	if (!o->is_other)
		return 0;
	saved->gid = (gid_t)setfsgid(o->gid);
	saved->uid = (uid_t)setfsuid(o->uid);
	saved->changed = true;
	/* setfsuid says what was, not whether it changed: ask again with an invalid id. */
	if ((uid_t)setfsuid((uid_t)-1) != o->uid || (gid_t)setfsgid((gid_t)-1) != o->gid) {
		fscreds_leave(saved);
		saved->changed = false;
		snprintf(err, len, "cannot take the file identity of uid %d gid %d (setfsuid refused: no "
			 "CAP_SETUID?); not writing as root", (int)o->uid, (int)o->gid);
		return -1;
	}
	return 0;
}

mode_t ownedfile_mode(const struct file_owner *o)
{
	mode_t mask;

	if (o->is_other)
		return 0600;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/* May the walk follow the link name in dir: it belongs to root or to the owner. A monitor
 * writing its own user's files follows any link, as that user's own programs do. */
static bool link_trusted(int dir, const char *name, const struct file_owner *o)
{
	struct stat st;

	return !o->is_other ||
	       (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_uid == 0 || st.st_uid == o->uid));
}

/* One step of the walk: component name from *dir. A trusted link's target is put in front of
 * the path still to walk (todo, of PATH_MAX bytes), from / or from *dir. */
static int walk_step(int *dir, const char *name, char *todo, int *links, const struct file_owner *o,
		     char *err, size_t len)
{
	int next = openat(*dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (next >= 0) {
		close(*dir);
		*dir = next;
		return 0;
	}

	int e = errno;
	char target[PATH_MAX], joined[PATH_MAX];
	ssize_t n;

	if ((e != ELOOP && e != ENOTDIR) || (n = readlinkat(*dir, name, target, sizeof(target) - 1)) < 0) {
		snprintf(err, len, "%s: %s", name, strerror(e));
		return -1;
	}
	target[n] = '\0';
	if (!link_trusted(*dir, name, o) || ++*links > LINKS_MAX) {
		snprintf(err, len, "%s is a symbolic link %s; parastack does not follow it", name,
			 *links > LINKS_MAX ? "in a loop" : "that belongs to neither root nor the job's owner");
		return -1;
	}
	if (snprintf(joined, sizeof(joined), "%s/%s", target, todo) >= (int)sizeof(joined)) {
		snprintf(err, len, "%s: path too long", name);
		return -1;
	}
	memcpy(todo, joined, strlen(joined) + 1);
	if (target[0] == '/') {
		close(*dir);
		if ((*dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
			snprintf(err, len, "/: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

int ownedfile_walk(const char *dirpath, const struct file_owner *o, char *err, size_t len)
{
	char todo[PATH_MAX], comp[NAME_MAX + 1];
	int dir, links = 0;

	if (strlen(dirpath) >= sizeof(todo)) {
		snprintf(err, len, "%.200s...: path too long", dirpath);
		return -1;
	}
	snprintf(todo, sizeof(todo), "%s", dirpath);
	if ((dir = open(todo[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(err, len, "%s: %s", todo[0] == '/' ? "/" : ".", strerror(errno));
		return -1;
	}
	while (todo[0]) {
		size_t k = strcspn(todo, "/"), skip = k + (todo[k] == '/');

		if (k > NAME_MAX) {
			snprintf(err, len, "%s: a component is too long", dirpath);
			close(dir);
			return -1;
		}
		memcpy(comp, todo, k);
		comp[k] = '\0';
		memmove(todo, todo + skip, strlen(todo + skip) + 1);
		if (k > 0 && walk_step(&dir, comp, todo, &links, o, err, len) < 0) {
			close(dir);
			return -1;
		}
	}
	return dir;
}

int ownedfile_dir(const char *path, const struct file_owner *o, const char **name, char *err, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dirpath[PATH_MAX];

	*name = slash ? slash + 1 : path;
	if (!**name || strlen(path) >= sizeof(dirpath)) {
		snprintf(err, len, "%s: not a file name", path);
		return -1;
	}
	/* "/name": the root; "name": the current directory. */
	snprintf(dirpath, sizeof(dirpath), "%.*s", slash ? (int)(slash - path) + (slash == path) : 0, path);
	return ownedfile_walk(dirpath, o, err, len);
}

int ownedfile_open_dir(const char *path, const struct file_owner *o, struct fscreds *saved, const char **name,
		       char *err, size_t len)
{
	int dir;

	if (ownedfile_enter(o, saved, err, len) < 0)
		return -1;
	if ((dir = ownedfile_dir(path, o, name, err, len)) < 0)
		fscreds_leave(saved);
	return dir;
}
