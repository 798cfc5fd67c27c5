/* SPDX-License-Identifier: BSD-3-Clause */
/* install_paths — see install_paths.h. */
#include "install_paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#if PARASTACK_WITH_SLURM
#include <slurm/slurm_version.h>
#endif

#define LAYER_NAME "libparastack-mpi.so"

/* dir = this program's directory. -1 when it cannot be read or does not fit. */
static int self_dir(char *dir, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -1;
	self[n] = '\0';

	char *slash = strrchr(self, '/');

	return (size_t)snprintf(dir, len, "%.*s", slash ? (int)(slash - self) : 0, self) >= len ? -1 : 0;
}

/* path = this program's directory / name; -1 when it does not fit. */
static int beside_self(const char *name, char *path, size_t len)
{
	char dir[PATH_MAX];

	return self_dir(dir, sizeof(dir)) < 0 || (size_t)snprintf(path, len, "%s/%s", dir, name) >= len ? -1 : 0;
}

int sibling_program(const char *name, char *path, size_t len)
{
	return beside_self(name, path, len) < 0 ? -1 : access(path, X_OK);
}

/* The layer's directory: this program's own when the layer lies beside it (the build tree),
 * else LIBDIR/parastack reached by the configured path from BINDIR. -1 when it does not fit. */
static int layer_dir(char *dir, size_t len)
{
	if (beside_self(LAYER_NAME, dir, len) == 0 && access(dir, R_OK) == 0)
		return self_dir(dir, len);
	return beside_self(PARASTACK_LAYER_FROM_BIN, dir, len);
}

/* Readable is enough: a package's shared objects are not executable (Debian's dh_fixperms). */
int install_layer_file(const char *name, char *path, size_t len)
{
	char dir[PATH_MAX];

	if (layer_dir(dir, sizeof(dir)) < 0 || (size_t)snprintf(path, len, "%s/%s", dir, name) >= len)
		return -1;
	return access(path, R_OK);
}

const char *install_options_file(void)
{
	return PARASTACK_SYSCONFDIR "/options";
}

const char *install_mpirun(void)
{
	return PARASTACK_MPIRUN;
}

int install_mpirun_is_hydra(void)
{
	return PARASTACK_MPIRUN_HYDRA;
}

/* A directory for --version, ".." steps resolved where it exists. */
static void print_place(const char *what, const char *path, const char *note)
{
	char real[PATH_MAX];

	printf("  %-17s %s%s\n", what, realpath(path, real) ? real : path, note);
}

void print_version(const char *prog)
{
	char self[PATH_MAX], layer[PATH_MAX], file[PATH_MAX];

#if PARASTACK_WITH_SLURM
	printf("%s %s (built with %s, Slurm %d.%02d.%d)\n", prog, PARASTACK_VERSION, PARASTACK_MPI,
	       SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
	       SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
#else
	printf("%s %s (built with %s, without Slurm)\n", prog, PARASTACK_VERSION, PARASTACK_MPI);
#endif
	if (self_dir(self, sizeof(self)) == 0)
		print_place("programs:", self, "");
	if (layer_dir(layer, sizeof(layer)) == 0)
		print_place("recording layer:", layer,
			    install_layer_file(LAYER_NAME, file, sizeof(file)) == 0 ? "" : " (not there)");
	printf("  %-17s %s%s\n", "site options:", install_options_file(),
	       access(install_options_file(), R_OK) == 0 ? "" : " (none)");
	printf("  %-17s %s (%s)\n", "monitors run by:", PARASTACK_MPIRUN,
	       PARASTACK_MPIRUN_HYDRA ? "MPICH's hydra" : "Open MPI's mpirun");
}
