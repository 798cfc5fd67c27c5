/* SPDX-License-Identifier: BSD-3-Clause */
/* python_path — the torch.distributed collective record's way into a Python rank: the layer is
 * preloaded into every rank by whichever launcher runs the job (mpirun -x, hydra's -genv, srun's
 * task prolog, the SPANK plugin), and before the program's main runs, this constructor appends
 * the directory of parastack's sitecustomize (python/ beside the layer, or beside its parent for
 * the MPICH build) to PYTHONPATH, where the interpreter looks when it starts. Only in a CPython
 * (its executable's name starts with "python"); the user's own PYTHONPATH comes first, and the
 * interpreter's own sitecustomize still runs (record/python/sitecustomize.py). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Is this process a Python interpreter? By its executable's file name: python3.12, python3. */
static int is_python(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return 0;
	exe[n] = '\0';

	const char *base = strrchr(exe, '/');

	return !strncmp(base ? base + 1 : exe, "python", 6);
}

/* The directory holding parastack's sitecustomize.py, beside the layer or one level up. */
static int recorder_dir(char *dir, size_t len)
{
	Dl_info info;
	char probe[PATH_MAX + 32];

	if (!dladdr((void *)recorder_dir, &info) || !info.dli_fname)
		return 0;

	const char *slash = strrchr(info.dli_fname, '/');
	int n = slash ? (int)(slash - info.dli_fname) : 0;

	for (int up = 0; up < 2 && n > 0; up++) {
		snprintf(dir, len, "%.*s/python", n, info.dli_fname);
		snprintf(probe, sizeof(probe), "%s/sitecustomize.py", dir);
		if (!access(probe, R_OK))
			return 1;
		while (n > 0 && info.dli_fname[--n] != '/')
			;
	}
	return 0;
}

__attribute__((constructor)) static void python_path_add(void)
{
	char dir[PATH_MAX], *value = NULL;
	const char *old = getenv("PYTHONPATH");

	if (!is_python() || !recorder_dir(dir, sizeof(dir)) || (old && strstr(old, dir)))
		return;
	if (asprintf(&value, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", dir) < 0)
		return;
	setenv("PYTHONPATH", value, 1);
	free(value);
}
