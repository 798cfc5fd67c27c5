/* shapes — communication-bound jobs of the shapes users write, knowing nothing of parastack (no
 * faults.h: faults come from outside, through tests/fixtures/psinject.c). Each iteration is a
 * short compute sweep and the shape's communication; healthy, the ranks are in MPI nearly all
 * the time on an oversubscribed node.
 *   SHAPE (argv[1] or PS_SHAPE):
 *     ring        a ring halo exchange with MPI_Sendrecv (both ways), then an MPI_Allreduce of
 *                 the residual (issue 36's holdout.c)
 *     halo        the same exchange with MPI_Isend/MPI_Irecv/MPI_Waitall, then MPI_Allreduce
 *     alltoall    a transpose with MPI_Alltoall, then MPI_Allreduce
 *     collective  MPI_Bcast, MPI_Allreduce and MPI_Barrier, nothing else
 *   PS_ITERS    iterations before it ends by itself (default: forever)
 *   PS_SECONDS  seconds after MPI_Init before it ends by itself (every rank at one iteration)
 *   PS_WORK     compute per iteration, in points swept (default 4096)
 *   PS_PRINT_PIDS  each rank prints "rank R pid P" at start */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum shape { RING, HALO, ALLTOALL, COLLECTIVE };

static enum shape shape_of(const char *s)
{
	if (!s || !strcmp(s, "ring"))
		return RING;
	if (!strcmp(s, "halo"))
		return HALO;
	if (!strcmp(s, "alltoall"))
		return ALLTOALL;
	if (!strcmp(s, "collective"))
		return COLLECTIVE;
	fprintf(stderr, "shapes: unknown shape '%s' (ring, halo, alltoall or collective)\n", s);
	exit(2);
}

/* One Jacobi sweep over u into v; the residual. */
static double sweep(double *u, double *v, int n)
{
	double r = 0;

	for (int i = 1; i <= n; i++)
		v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
	for (int i = 1; i <= n; i++) {
		r += fabs(v[i] - u[i]);
		u[i] = v[i];
	}
	return r;
}

static void exchange_ring(double *u, int n, int left, int right)
{
	MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 2, &u[n + 1], 1, MPI_DOUBLE, right, 2,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void exchange_halo(double *u, int n, int left, int right)
{
	MPI_Request req[4];
	MPI_Status st[4]; /* not MPI_STATUSES_IGNORE: gcc 12 warns on MPICH's prototype */

	MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
	MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
	MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
	MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
	MPI_Waitall(4, req, st);
}

static void transpose(double *u, double *t, int n, int size)
{
	int chunk = n / size;

	MPI_Alltoall(u + 1, chunk, MPI_DOUBLE, t, chunk, MPI_DOUBLE, MPI_COMM_WORLD);
	for (int i = 0; i < chunk * size; i++)
		u[1 + i] = 0.5 * (u[1 + i] + t[i]);
}

int main(int argc, char **argv)
{
	int rank, size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (getenv("PS_PRINT_PIDS")) {
		printf("rank %d pid %d\n", rank, (int)getpid());
		fflush(stdout);
	}

	enum shape sh = shape_of(argc > 1 ? argv[1] : getenv("PS_SHAPE"));
	long iters = getenv("PS_ITERS") ? atol(getenv("PS_ITERS")) : -1;
	int n = getenv("PS_WORK") ? atoi(getenv("PS_WORK")) : 4096;
	/* PS_SECONDS: end by itself that long after MPI_Init, at an iteration every rank agrees on. */
	double seconds = getenv("PS_SECONDS") ? atof(getenv("PS_SECONDS")) : 0, t0 = MPI_Wtime();

	if (n < size)
		n = size;

	double *u = calloc((size_t)n + 2, sizeof(double)), *v = calloc((size_t)n + 2, sizeof(double));
	double *t = calloc((size_t)n + 2, sizeof(double));
	int left = (rank + size - 1) % size, right = (rank + 1) % size;

	for (int i = 0; i < n + 2; i++)
		u[i] = rank + i * 1e-3;
	for (long it = 0; iters < 0 || it < iters; it++) {
		double local = sweep(u, v, n), global = 0, step = it;

		switch (sh) {
		case RING: exchange_ring(u, n, left, right); break;
		case HALO: exchange_halo(u, n, left, right); break;
		case ALLTOALL: transpose(u, t, n, size); break;
		case COLLECTIVE:
			MPI_Bcast(&step, 1, MPI_DOUBLE, (int)(it % size), MPI_COMM_WORLD);
			break;
		}
		MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (sh == COLLECTIVE)
			MPI_Barrier(MPI_COMM_WORLD);
		if (seconds > 0 && it % 64 == 0) {
			int over = MPI_Wtime() - t0 >= seconds, any = 0;

			MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
			if (any)
				break;
		}
		if (rank == 0 && it % 100000 == 0) {
			printf("iteration %ld residual %g\n", it, global);
			fflush(stdout);
		}
	}
	free(t);
	free(v);
	free(u);
	MPI_Finalize();
	return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
