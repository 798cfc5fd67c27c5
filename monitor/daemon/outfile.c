/* SPDX-License-Identifier: BSD-3-Clause */
/* outfile — safe creation of the user's output files (see outfile.h). */
#include "outfile.h"
#include "../sample/safe/procfs.h"
#include "../sample/safe/trustedpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* JSON text on its way to a file: written in 64 KiB blocks as it is made (jansson's own
 * json_dumpfd makes one write per token: half a million system calls for a large report). */
struct fdbuf {
	int fd;
	size_t used;
	int err; /* errno of the first failed write, or 0 */
	char buf[65536];
};

static void fdbuf_flush(struct fdbuf *b)
{
	for (size_t off = 0; off < b->used && !b->err;) {
		ssize_t w = write(b->fd, b->buf + off, b->used - off);

		if (w < 0 && errno != EINTR)
			b->err = errno;
		else if (w > 0)
			off += (size_t)w;
	}
	b->used = 0;
}

static int fdbuf_put(const char *text, size_t n, void *data)
{
	struct fdbuf *b = data;

	while (n > 0 && !b->err) {
		size_t k = n < sizeof(b->buf) - b->used ? n : sizeof(b->buf) - b->used;

		memcpy(b->buf + b->used, text, k);
		b->used += k;
		text += k;
		n -= k;
		if (b->used == sizeof(b->buf))
			fdbuf_flush(b);
	}
	return b->err ? -1 : 0;
}

/* j as indented JSON and a newline into fd. 0, or -1 with errno. */
static int dump_json(json_t *j, int fd)
{
	struct fdbuf *b = malloc(sizeof(*b));
	int rc;

	if (!b)
		return -1;
	b->fd = fd;
	b->used = 0;
	b->err = 0;
	rc = json_dump_callback(j, fdbuf_put, b, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	if (rc == 0)
		fdbuf_put("\n", 1, b);
	fdbuf_flush(b);
	if (b->err)
		errno = b->err, rc = -1;
	free(b);
	return rc < 0 ? -1 : 0;
}

/* What goes into a replaced file: JSON, or text already made. */
struct content {
	json_t *json;
	const char *text;
	size_t n;
};

static int content_write(const struct content *c, int fd)
{
	for (size_t off = 0; !c->json && off < c->n;) {
		ssize_t w = write(fd, c->text + off, c->n - off);

		if (w < 0 && errno != EINTR)
			return -1;
		off += w > 0 ? (size_t)w : 0;
	}
	return c->json ? dump_json(c->json, fd) : 0;
}

/* Write c into a new file beside name in dir (O_EXCL: a name nobody could have planted), then
 * rename it over name. group: the file's group, or (gid_t)-1 to keep the one it was created with. */
static int replace_file(int dir, const char *path, const char *name, const struct content *c, mode_t mode,
			gid_t group, char *err, size_t len)
{
	char tmp[300];
	int fd = -1, e = 0;
	const char *call = "";

	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		snprintf(tmp, sizeof(tmp), ".%.200s.%d.%d", name, (int)getpid(), tries);
		fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		e = errno, call = "create a temporary file beside it";
	else if (group != (gid_t)-1 && fchown(fd, (uid_t)-1, group) < 0)
		e = errno, call = "fchown";
	else if (fchmod(fd, mode) < 0)
		e = errno, call = "fchmod";
	else if ((errno = 0, content_write(c, fd)) < 0)
		e = errno ? errno : EIO, call = "write";
	else if (fsync(fd) < 0 && errno != EINVAL)
		e = errno, call = "fsync";
	if (fd >= 0 && close(fd) < 0 && !e)
		e = errno, call = "close";
	if (!e && renameat(dir, tmp, dir, name) < 0)
		e = errno, call = "rename";
	if (e) {
		if (fd >= 0)
			unlinkat(dir, tmp, 0);
		snprintf(err, len, "cannot write %s (%s: %s)", path, call, strerror(e));
	}
	return e ? -1 : 0;
}

static FILE *open_stream(int dir, const char *path, const char *name, mode_t mode, char *err, size_t len)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		snprintf(err, len, "cannot write %s: %s%s", path, strerror(errno),
			 errno == ELOOP ? " (it is a symbolic link; parastack does not write through one)" : "");
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, len, "cannot write %s: not a regular file", path);
		close(fd);
		return NULL;
	}
	if (ftruncate(fd, 0) < 0 || fcntl(fd, F_SETFL, 0) < 0 || !(f = fdopen(fd, "w"))) {
		snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

/* As the files' owner (ownedfile.h), in a directory reached without untrusted links. */
static int replace_as(const char *path, const struct content *c, const struct file_owner *o, mode_t mode,
		      gid_t group, char *err, size_t len)
{
	struct fscreds saved;
	const char *name;
	char why[PATH_MAX + 128];
	int dir = ownedfile_open_dir(path, o, &saved, &name, why, sizeof(why)), r;

	if (dir < 0) {
		snprintf(err, len, "cannot write %s: %s", path, why);
		return -1;
	}
	r = replace_file(dir, path, name, c, mode, group, err, len);
	close(dir);
	fscreds_leave(&saved);
	return r;
}

int outfile_replace_json(const char *path, json_t *j, const struct file_owner *o, char *err, size_t len)
{
	const struct content c = { .json = j };

	return replace_as(path, &c, o, ownedfile_mode(o), (gid_t)-1, err, len);
}

int outfile_replace_site(const char *path, json_t *j, const char *text, size_t n, const struct file_owner *job_owner,
			 mode_t mode, char *err, size_t len)
{
	const struct content c = { .json = j, .text = text, .n = n };
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct file_owner o = *job_owner;
	gid_t group = (gid_t)-1;

	snprintf(dir, sizeof(dir), "%.*s", slash && slash > path ? (int)(slash - path) : 1, path);
	if (geteuid() == 0 && trustedpath_root_only(dir, &group))
		o = (struct file_owner){ .uid = 0, .gid = group, .is_other = false };
	else
		group = (gid_t)-1;
	return replace_as(path, &c, &o, mode, group, err, len);
}

FILE *outfile_open_stream(const char *path, const struct file_owner *o, char *err, size_t len)
{
	struct fscreds saved;
	const char *name;
	char why[PATH_MAX + 128];
	int dir = ownedfile_open_dir(path, o, &saved, &name, why, sizeof(why));
	FILE *f;

	if (dir < 0) {
		snprintf(err, len, "cannot write %s: %s", path, why);
		return NULL;
	}
	f = open_stream(dir, path, name, ownedfile_mode(o), err, len);
	close(dir);
	fscreds_leave(&saved);
	return f;
}

int outfile_replace_text(const char *path, const char *text, size_t n, const struct file_owner *o, char *err,
			 size_t len)
{
	const struct content c = { .text = text, .n = n };

	return replace_as(path, &c, o, ownedfile_mode(o), (gid_t)-1, err, len);
}

static ssize_t read_owned(int dir, const char *path, const char *name, uid_t uid, char *buf, size_t cap,
			  char *err, size_t len)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;

	if (fd < 0 && errno == ENOENT)
		return -2;
	if (fd < 0) {
		snprintf(err, len, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != uid) {
		snprintf(err, len, "cannot read %s: not a regular file of uid %u", path, (unsigned)uid);
		close(fd);
		return -1;
	}
	ssize_t n = procfs_read_fd(fd, buf, cap);

	close(fd);
	return n;
}

ssize_t outfile_read_text(const char *path, const struct file_owner *o, char *buf, size_t cap, char *err, size_t len)
{
	struct fscreds saved;
	const char *name;
	char why[PATH_MAX + 128];
	int dir = ownedfile_open_dir(path, o, &saved, &name, why, sizeof(why));
	ssize_t r;

	if (dir < 0) {
		snprintf(err, len, "cannot read %s: %s", path, why);
		return -1;
	}
	r = read_owned(dir, path, name, o->is_other ? o->uid : geteuid(), buf, cap, err, len);
	close(dir);
	fscreds_leave(&saved);
	return r;
}
