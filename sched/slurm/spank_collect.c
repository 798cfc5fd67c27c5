/* SPDX-License-Identifier: BSD-3-Clause */
/* spank_collect — the site's files for a job whose owner runs the watch (see spank_collect.h).
 * What the spool holds is the user's: opened with the user's file identity, never through a
 * link, only regular files, bounded; the counters clamped to what one job can count. */
#include "spank_collect.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../base/promfile.h"
#include "../../monitor/sample/safe/trustedpath.h"

#define SPOOL_TOP "/run/parastack" /* reachable by every user (0711), root's alone */
#define REPORT_MAX (64L << 20) /* a report larger than this is not copied */
#define SPOOL_ENTRIES_MAX 256

/* The most one job's watch can add to each counter (a forged file cannot inflate the site's). */
static const double prom_clamp[PROM_SERIES] = { 1, 1e4, 1e4, 1, 1, 1, 1e8, 1e10, 1e6, 1e4 };

int spool_make(struct spool *s, uint32_t job, uint32_t step, uid_t uid, gid_t gid, char *err, size_t len)
{
	struct stat st;

	s->made = false;
	if (mkdir(SPOOL_TOP, 0711) < 0 && errno != EEXIST) {
		snprintf(err, len, "mkdir %s: %s", SPOOL_TOP, strerror(errno));
		return -1;
	}
	if (lstat(SPOOL_TOP, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
		snprintf(err, len, "%s is not root's own directory", SPOOL_TOP);
		return -1;
	}
	snprintf(s->dir, sizeof(s->dir), "%s/%u.%u.%d", SPOOL_TOP, job, step, (int)getpid());
	if (mkdir(s->dir, 0700) < 0 || chown(s->dir, uid, gid) < 0) {
		snprintf(err, len, "the spool %s: %s", s->dir, strerror(errno));
		rmdir(s->dir);
		return -1;
	}
	s->uid = uid;
	s->gid = gid;
	s->made = true;
	return 0;
}

/* name in the spool, read whole (at most max bytes) as its owner; malloc'd, NUL-terminated, or
 * NULL. */
static char *spool_read(int dir, const struct spool *s, const char *name, long max, size_t *n)
{
	int old_uid = setfsuid(s->uid), old_gid = setfsgid(s->gid);
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;

	setfsuid((uid_t)old_uid);
	setfsgid((gid_t)old_gid);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= max && (buf = malloc((size_t)st.st_size + 1))) {
		*n = 0;
		for (ssize_t r; *n < (size_t)st.st_size && (r = read(fd, buf + *n, (size_t)st.st_size - *n)) > 0;)
			*n += (size_t)r;
		buf[*n] = '\0';
	}
	close(fd);
	return buf;
}

/* text as root's file name in dir (trusted), mode, the directory's group: a new temporary file,
 * then a rename. 0 or -1. */
static int write_root_file(const char *dir, const char *name, const char *text, size_t n, mode_t mode)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	gid_t group;
	int fd, e = 0;

	if (!trustedpath_root_only(dir, &group))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s/.%s.%d", dir, name, (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	if (fchown(fd, 0, group) < 0 || fchmod(fd, mode) < 0)
		e = 1;
	for (size_t off = 0; !e && off < n;) {
		ssize_t w = write(fd, text + off, n - off);

		if (w <= 0)
			e = 1;
		else
			off += (size_t)w;
	}
	if (close(fd) < 0 || e || rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The spool's counters added to metrics_dir's textfile, under its lock. */
static void add_counters(const char *metrics_dir, char *spooled)
{
	double add[PROM_SERIES] = { 0 }, vals[PROM_SERIES] = { 0 };
	char path[PATH_MAX], text[4096];
	int dir = open(metrics_dir, O_PATH | O_DIRECTORY | O_CLOEXEC), lock;

	promfile_parse(spooled, add);
	snprintf(path, sizeof(path), "%s/%s", metrics_dir, PROMFILE_LOCK);
	lock = dir >= 0 ? open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
	if (lock >= 0 && flock(lock, LOCK_EX) == 0) {
		promfile_read(dir, vals);
		for (int i = 0; i < PROM_SERIES; i++)
			vals[i] += add[i] < prom_clamp[i] ? add[i] : prom_clamp[i];
		write_root_file(metrics_dir, PROMFILE_NAME, text, promfile_format(vals, text, sizeof(text)), 0644);
	}
	if (lock >= 0)
		close(lock);
	if (dir >= 0)
		close(dir);
}

/* Every entry of the spool (it is the user's: whatever they put there), then the spool itself. */
static void spool_remove(int dir, const struct spool *s)
{
	DIR *d = fdopendir(dup(dir));
	struct dirent *e;

	for (int k = 0; d && (e = readdir(d)) && k < SPOOL_ENTRIES_MAX; k++)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dir, e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(s->dir);
}

void spool_collect(struct spool *s, const char *report_dir, const char *metrics_dir, uint32_t job)
{
	char name[64], *text;
	size_t n;
	int dir;

	if (!s->made)
		return;
	s->made = false;
	dir = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return;
	snprintf(name, sizeof(name), "parastack-%u.json", job);
	if (report_dir[0] && (text = spool_read(dir, s, name, REPORT_MAX, &n))) {
		write_root_file(report_dir, name, text, n, 0640);
		free(text);
	}
	if (metrics_dir[0] && (text = spool_read(dir, s, PROMFILE_NAME, PROMFILE_READ_MAX, &n))) {
		add_counters(metrics_dir, text);
		free(text);
	}
	spool_remove(dir, s);
	close(dir);
}
