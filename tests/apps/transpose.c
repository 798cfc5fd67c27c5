/* transpose — a distributed matrix transpose as FFT and spectral codes do it: each iteration
 * computes on its block, exchanges blocks with every rank in MPI_Alltoall, and every 5
 * iterations checks a norm with MPI_Allreduce. Runs PS_ITERS iterations (unset: until ended).
 * Healthy by itself: faults come from outside (tests/fixtures/psinject.c, preloaded). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 256 /* doubles sent to each rank */

__attribute__((noinline)) static void compute(double *a, int n)
{
	for (int s = 0; s < 40; s++)
		for (int i = 0; i < n; i++)
			a[i] = 0.5 * a[i] + 0.25 * sin(a[i] + s);
}

int main(int argc, char **argv)
{
	int rank, size;
	const char *it = getenv("PS_ITERS");
	long iters = it ? atol(it) : -1, k = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	double *a = malloc(sizeof(double) * BLOCK * (size_t)size), *b = malloc(sizeof(double) * BLOCK * (size_t)size);

	for (int i = 0; i < BLOCK * size; i++)
		a[i] = rank + i * 1e-3;
	for (k = 0; iters < 0 || k < iters; k++) {
		compute(a, BLOCK * size);
		MPI_Alltoall(a, BLOCK, MPI_DOUBLE, b, BLOCK, MPI_DOUBLE, MPI_COMM_WORLD); /* site: transpose */
		for (int i = 0; i < BLOCK * size; i++)
			a[i] = b[i];
		if (k % 5 == 4) {
			double local = a[0] * a[0], norm = 0;

			MPI_Allreduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* site: norm */
		}
	}
	if (rank == 0)
		printf("transpose: %ld iterations\n", k);
	free(b);
	free(a);
	MPI_Finalize();
	return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
