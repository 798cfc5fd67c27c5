/* layercheck — a short MPI job that says, per rank, what its launch line gave it: whether the
 * recording layer (libparastack-mpi) and a user's preloaded library (libpsinject) are mapped,
 * whether its parent (the launcher or its daemon) has the layer, in which order LD_PRELOAD lists them, and the value of $PS_SHOW (a variable the launch line
 * passes with -x or mca_base_env_list). tests/cli/test-launch.sh runs it through every form of
 * launch line parastack must leave working. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Is a file whose path has name mapped in the process (pid 0: this one)? */
static int mapped_in(int pid, const char *name)
{
	char line[1024], path[64];
	int found = 0;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	f = fopen(path, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, name) != NULL;
	if (f)
		fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	int rank, size, sum = 0, one = 1;
	const char *pre = getenv("LD_PRELOAD"), *show = getenv("PS_SHOW");

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	/* parent: the launcher or its daemon (mpirun, orted, slurmstepd) must never have it. */
	printf("layercheck rank %d of %d: layer=%d user=%d parent=%d show=%s preload=%s prog=%s\n",
	       rank, size, mapped_in(0, "libparastack-mpi"), mapped_in(0, "libpsinject"),
	       mapped_in((int)getppid(), "libparastack-mpi"), show ? show : "-", pre ? pre : "-",
	       argc > 1 ? argv[1] : "-");
	fflush(stdout);
	MPI_Finalize();
	return sum == size ? 0 : 1;
}
/* SPDX-License-Identifier: BSD-3-Clause */
