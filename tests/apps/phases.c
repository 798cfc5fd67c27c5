/* phases — an application with long phases: PS_COMPUTE seconds of computation (default 3),
 * then PS_COMM seconds of communication (default 2: rounds of MPI_Alltoall and MPI_Allreduce
 * with little work between them), repeated. Its S is high for seconds, then low for seconds:
 * the case where the sampling interval has to grow before the model can be trusted.
 * PS_A2A_KB sets the MPI_Alltoall's block per peer (default 2 KiB): megabytes make each call a
 * long exchange of real data, as in FFT transposes. */
#include <stdlib.h>

#include "faults.h"

static volatile double sink;

__attribute__((noinline)) static void compute_phase(double seconds)
{
	double end = MPI_Wtime() + seconds;

	while (MPI_Wtime() < end)
		for (int i = 0; i < 100000; i++)
			sink += i * 1e-9;
}

__attribute__((noinline)) static void communication_phase(double seconds, int size, int block)
{
	double *a = calloc((size_t)size * block, sizeof(double)), *b = calloc((size_t)size * block, sizeof(double));
	double end = MPI_Wtime() + seconds, x = 1, y;
	int go = 1;

	while (go) {
		MPI_Alltoall(a, block, MPI_DOUBLE, b, block, MPI_DOUBLE, MPI_COMM_WORLD);
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		/* Everyone leaves the phase together: rank 0's clock decides. */
		int local = MPI_Wtime() < end;

		MPI_Bcast(&local, 1, MPI_INT, 0, MPI_COMM_WORLD);
		go = local;
	}
	free(a);
	free(b);
}

int main(int argc, char **argv)
{
	int rank, size;
	struct faults f;

	app_start(&argc, &argv, &rank, &size, &f);

	double compute_s = env_double("PS_COMPUTE", 3), comm_s = env_double("PS_COMM", 2);
	int block = (int)(env_double("PS_A2A_KB", 2) * 1024 / sizeof(double));

	for (long it = 0; app_more(&f, it); it++) {
		switch (faults_due(&f, rank)) {
		case FAULT_SPIN: faulty_spin(); break;
		case FAULT_SLEEP: faulty_sleep(); break;
		default: break;
		}
		compute_phase(compute_s * faults_work(&f)); /* PS_HEAVY_RANK: longer by design */
		communication_phase(comm_s, size, block > 0 ? block : 1);
	}
	app_end(&f, rank);
	return f.exit_status;
}
/* SPDX-License-Identifier: BSD-3-Clause */
