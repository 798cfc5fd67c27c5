/* SPDX-License-Identifier: BSD-3-Clause */
/* layershims — the shims' directory, made and removed, and the files a shim looks into
 * (layershims.h). */
#include "layershims.h"
#include "runtimes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REMOVE_MAX 4096

const char *const layershims_names[] = { "mpirun", "mpiexec", "orterun", "srun", "mpiexec.hydra",
					 "mpiexec.mpich", "mpirun.mpich", NULL };

int layershims_make(const char *program, char *dir, size_t len)
{
	char link[4200];

	if (snprintf(dir, len, "%s", LAYERSHIMS_DIR_TEMPLATE) >= (int)len || !mkdtemp(dir)) {
		int e = errno;

		dir[0] = '\0';
		errno = e ? e : ENAMETOOLONG;
		return -1;
	}
	for (int i = 0; layershims_names[i]; i++) {
		snprintf(link, sizeof(link), "%s/%s", dir, layershims_names[i]);
		if (symlink(program, link) < 0) {
			int e = errno;

			layershims_remove(dir, (uid_t)-1);
			dir[0] = '\0';
			errno = e;
			return -1;
		}
	}
	return 0;
}

void layershims_remove(const char *dir, uid_t owner)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || (owner != (uid_t)-1 && st.st_uid != owner) || !(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	for (int n = 0; (e = readdir(d)) && n < REMOVE_MAX; n++)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

char *layershims_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	ssize_t n = -1;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (buf = malloc(LAYERSHIMS_FILE_MAX + 1)))
		n = read(fd, buf, LAYERSHIMS_FILE_MAX);
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = (size_t)n;
	return buf;
}

bool layershims_needs_mpich(const char *path)
{
	size_t n = 0;
	char *text = layershims_read_file(path, &n);
	/* Its DT_NEEDED names MPICH's library: the rank library's file name, "libmpich". */
	const char *lib = runtime_named("MPICH")->rank_libs[0] + 1;
	bool yes = text && n >= 4 && !memcmp(text, "\177ELF", 4) && memmem(text, n, lib, strlen(lib)) != NULL;

	free(text);
	return yes;
}
