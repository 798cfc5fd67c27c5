/* SPDX-License-Identifier: BSD-3-Clause */
/* record_micro — what an MPI call costs, for the recording layer's overhead (bench/record.sh):
 * two ranks; N rounds of MPI_Irecv + MPI_Isend + MPI_Waitall of 8 bytes between them, then N
 * MPI_Allreduce of 8 bytes. Prints "p2p_ns X" (per round: three calls) and "allreduce_ns Y"
 * (per call), the median of 5 repetitions of each. Usage: mpirun -np 2 record_micro [N] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define REPS 5

static int compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, REPS, sizeof(double), compare);
	return v[REPS / 2];
}

int main(int argc, char **argv)
{
	int rank, n = argc > 1 ? atoi(argv[1]) : 200000;
	double p2p[REPS], red[REPS], out = 0, in = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int r = 0; r < REPS; r++) {
		MPI_Request req[2];
		double t0;

		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (int i = 0; i < n; i++) {
			MPI_Irecv(&in, 1, MPI_DOUBLE, 1 - rank, 0, MPI_COMM_WORLD, &req[0]);
			MPI_Isend(&out, 1, MPI_DOUBLE, 1 - rank, 0, MPI_COMM_WORLD, &req[1]);
			MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		}
		p2p[r] = (MPI_Wtime() - t0) / n * 1e9;
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (int i = 0; i < n; i++)
			MPI_Allreduce(&out, &in, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		red[r] = (MPI_Wtime() - t0) / n * 1e9;
	}
	if (rank == 0)
		printf("p2p_ns %.1f\nallreduce_ns %.1f\n", median(p2p), median(red));
	MPI_Finalize();
	return 0;
}
