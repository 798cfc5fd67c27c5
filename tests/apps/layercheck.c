/* layercheck — a short MPI job that says, per rank, what its launch line gave it: whether the
 * recording layer (libparastack-mpi) and a user's preloaded library (libpsinject) are mapped,
 * in which order LD_PRELOAD lists them, and the value of $PS_SHOW (a variable the launch line
 * passes with -x or mca_base_env_list). tests/cli/test-launch.sh runs it through every form of
 * launch line parastack must leave working. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mapped(const char *name)
{
	char line[1024];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

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
	printf("layercheck rank %d of %d: layer=%d user=%d show=%s preload=%s prog=%s\n", rank, size,
	       mapped("libparastack-mpi"), mapped("libpsinject"), show ? show : "-", pre ? pre : "-",
	       argc > 1 ? argv[1] : "-");
	fflush(stdout);
	MPI_Finalize();
	return sum == size ? 0 : 1;
}
