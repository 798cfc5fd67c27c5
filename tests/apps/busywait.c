/* busywait — the non-blocking style: halos go with MPI_Isend/MPI_Irecv and the rank waits for
 * them in an MPI_Test loop, probing with MPI_Iprobe, as many codes that overlap work do; a
 * residual MPI_Allreduce every 8 iterations. Faults as in faults.h. */
#include "faults.h"

static volatile double sink;

__attribute__((noinline)) static void compute(long n)
{
	for (long i = 0; i < n; i++)
		sink += i * 1e-9;
}

__attribute__((noinline)) static void wait_busily(MPI_Request *reqs, int n)
{
	int done = 0, flag;

	while (!done) {
		MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
	}
}

int main(int argc, char **argv)
{
	int rank, size;
	struct faults f;

	app_start(&argc, &argv, &rank, &size, &f);
	for (long it = 0; app_more(&f, it); it++) {
		double out[2] = { rank, it }, in[2];
		MPI_Request reqs[4];
		int left = (rank + size - 1) % size, right = (rank + 1) % size;

		switch (faults_due(&f, rank)) {
		case FAULT_SPIN: faulty_spin(); break;
		case FAULT_SLEEP: faulty_sleep(); break;
		default: break;
		}
		compute(6000000);
		MPI_Irecv(&in[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &reqs[0]);
		MPI_Irecv(&in[1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &reqs[1]);
		MPI_Isend(&out[0], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &reqs[2]);
		MPI_Isend(&out[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &reqs[3]);
		wait_busily(reqs, 4);
		if (it % 8 == 7) {
			double g;

			MPI_Allreduce(&in[0], &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		}
	}
	app_end(&f, rank);
	return f.exit_status;
}
/* SPDX-License-Identifier: BSD-3-Clause */
