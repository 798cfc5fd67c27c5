/* SPDX-License-Identifier: BSD-3-Clause */
/* trustedpath — may root write in a directory as root? (see trustedpath.h) */
#include "trustedpath.h"

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* OpenSSH's StrictModes rule, from / down: each component a directory (never a link) that root
 * owns and no one else may write in. */
bool trustedpath_root_only(const char *dirpath, gid_t *group)
{
	char buf[PATH_MAX], *save = NULL;
	int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	bool ok = dirpath[0] == '/' && strlen(dirpath) < sizeof(buf) && dir >= 0;

	if (ok)
		strcpy(buf, dirpath);
	for (char *name = ok ? strtok_r(buf, "/", &save) : NULL; ok; name = strtok_r(NULL, "/", &save)) {
		ok = fstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022);
		if (!ok || !name)
			break;
		if (!strcmp(name, "..")) {
			ok = false;
			break;
		}

		int next = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

		close(dir);
		dir = next;
		ok = dir >= 0;
	}
	if (ok)
		*group = st.st_gid;
	if (dir >= 0)
		close(dir);
	return ok;
}
