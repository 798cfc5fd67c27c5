/* SPDX-License-Identifier: BSD-3-Clause */
/* parastack-task-prolog — Slurm's task prolog for srun lines under parastack (layer_place.c
 * sets SLURM_TASK_PROLOG to it): slurmstepd runs it in each task's environment just before the
 * task starts, and reads "export NAME=value" from its output. It preloads the recording layer
 * (the libparastack-mpi.so beside it) into the task after the task's own LD_PRELOAD - so the
 * tasks get it whatever --export says, and srun and slurmstepd never do. It prints nothing
 * when the layer is not there or its path cannot be said in one line. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char self[PATH_MAX], lib[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *pre = getenv("LD_PRELOAD");
	char *slash;

	if (n <= 0)
		return 0;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	snprintf(lib, sizeof(lib), "%s/libparastack-mpi.so", self);
	if (access(lib, R_OK) < 0 || strpbrk(lib, ": \t\n") || (pre && strpbrk(pre, "\n")))
		return 0;
	printf("export LD_PRELOAD=%s%s%s\n", pre && *pre ? pre : "", pre && *pre ? ":" : "", lib);
	return 0;
}
