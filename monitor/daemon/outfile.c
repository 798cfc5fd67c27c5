/* outfile — safe creation of the user's output files. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../sample/fscreds.h"

/* The permissions a plain fopen would give: 0666 less the umask. */
static mode_t default_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

static int replace_json(const char *path, json_t *j, char *err, size_t len)
{
	char *tmp = NULL;
	int fd = -1, e = 0;
	const char *call = "";

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		snprintf(err, len, "%s: out of memory", path);
		return -1;
	}
	/* mkstemp: O_CREAT | O_EXCL, a name nobody could have planted. */
	if ((fd = mkstemp(tmp)) < 0)
		e = errno, call = "create a temporary file beside it";
	else if (fchmod(fd, default_mode()) < 0)
		e = errno, call = "fchmod";
	else if (json_dumpfd(j, fd, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) < 0 || write(fd, "\n", 1) != 1)
		e = errno ? errno : EIO, call = "write";
	else if (fsync(fd) < 0 && errno != EINVAL)
		e = errno, call = "fsync";
	if (fd >= 0 && close(fd) < 0 && !e)
		e = errno, call = "close";
	if (!e && rename(tmp, path) < 0)
		e = errno, call = "rename";
	if (e) {
		if (fd >= 0)
			unlink(tmp);
		snprintf(err, len, "cannot write %s (%s: %s)", path, call, strerror(e));
	}
	free(tmp);
	return e ? -1 : 0;
}

static FILE *open_stream(const char *path, char *err, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, default_mode());
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

/* Both as the user who ran sudo, when parastack runs as root through it (fscreds.h): the files
 * are theirs, and only where they may write. */
/* Reals with 15 significant digits: 0.3 rather than 0.29999999999999999, Unix times to the
 * microsecond. */
int outfile_replace_json(const char *path, json_t *j, char *err, size_t len)
{
	struct fscreds saved;

	fscreds_enter_invoker(&saved);

	int r = replace_json(path, j, err, len);

	fscreds_leave(&saved);
	return r;
}

FILE *outfile_open_stream(const char *path, char *err, size_t len)
{
	struct fscreds saved;

	fscreds_enter_invoker(&saved);

	FILE *f = open_stream(path, err, len);

	fscreds_leave(&saved);
	return f;
}
