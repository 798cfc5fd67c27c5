/* subcomm — collectives on communicators beside MPI_COMM_WORLD, as grid and spectral codes make
 * them. PS_SHAPE picks the program:
 *   grid   a 2-D process grid from MPI_Comm_split: each iteration an MPI_Allreduce along the
 *          row, one along the column, and the residual on the world
 *   dup    NPB FT's shape: MPI_Comm_dup of the world for the transposes (MPI_Alltoall), the
 *          checksum with MPI_Reduce and MPI_Bcast on MPI_COMM_WORLD each iteration
 *   cart   MPI_Cart_create (periodic 2-D) with MPI_Cart_shift halos (MPI_Sendrecv) and
 *          MPI_Cart_sub rows: an MPI_Allreduce along the row, an MPI_Allreduce on the grid
 *   group  MPI_Comm_create_group of the even ranks and of the odd ranks: an MPI_Bcast in
 *          each, then an MPI_Allreduce on the world
 * Runs PS_ITERS iterations (unset: until ended), then an MPI_Barrier. Healthy by itself:
 * faults come from outside (tests/fixtures/psinject.c, preloaded: skip, block, reorder). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 64

__attribute__((noinline)) static double compute(double *a, int n)
{
	double s = 0;

	for (int k = 0; k < 30; k++)
		for (int i = 0; i < n; i++) {
			a[i] = 0.5 * a[i] + 0.25 * sin(a[i] + k);
			s += a[i];
		}
	return s;
}

/* The two sides of the grid (rows x cols = size, as square as it goes). */
static void grid_dims(int size, int *rows, int *cols)
{
	int r = (int)sqrt((double)size);

	while (r > 1 && size % r)
		r--;
	*rows = r;
	*cols = size / r;
}

static void run_grid(int rank, int size, long iters)
{
	int rows, cols;
	MPI_Comm row, col;
	double a[BLOCK], x, y;

	grid_dims(size, &rows, &cols);
	MPI_Comm_split(MPI_COMM_WORLD, rank / cols, rank, &row);
	MPI_Comm_split(MPI_COMM_WORLD, rank % cols, rank, &col);
	for (int i = 0; i < BLOCK; i++)
		a[i] = rank + i * 1e-3;
	for (long k = 0; iters < 0 || k < iters; k++) {
		x = compute(a, BLOCK);
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, row); /* site: grid-row */
		MPI_Allreduce(&y, &x, 1, MPI_DOUBLE, MPI_SUM, col); /* site: grid-col */
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); /* site: grid-residual */
		a[0] = x * 1e-9;
	}
	MPI_Comm_free(&col);
	MPI_Comm_free(&row);
}

static void run_dup(int rank, int size, long iters)
{
	MPI_Comm ft;
	double *a = malloc(sizeof(double) * BLOCK * (size_t)size), *b = malloc(sizeof(double) * BLOCK * (size_t)size);
	double sum, total = 0;

	MPI_Comm_dup(MPI_COMM_WORLD, &ft);
	for (int i = 0; i < BLOCK * size; i++)
		a[i] = rank + i * 1e-3;
	for (long k = 0; iters < 0 || k < iters; k++) {
		sum = compute(a, BLOCK * size);
		MPI_Alltoall(a, BLOCK, MPI_DOUBLE, b, BLOCK, MPI_DOUBLE, ft); /* site: dup-transpose */
		memcpy(a, b, sizeof(double) * BLOCK * (size_t)size);
		MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); /* site: dup-checksum */
		MPI_Bcast(&total, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* site: dup-bcast */
	}
	MPI_Comm_free(&ft);
	free(b);
	free(a);
}

static void run_cart(int rank, int size, long iters)
{
	int dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, keep[2] = { 0, 1 }, up, down;
	MPI_Comm cart, row;
	double a[BLOCK], halo[BLOCK], x, y;

	(void)rank;
	MPI_Dims_create(size, 2, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
	MPI_Cart_sub(cart, keep, &row);
	MPI_Cart_shift(cart, 0, 1, &up, &down);
	for (int i = 0; i < BLOCK; i++)
		a[i] = i * 1e-3;
	for (long k = 0; iters < 0 || k < iters; k++) {
		x = compute(a, BLOCK);
		MPI_Sendrecv(a, BLOCK, MPI_DOUBLE, down, 7, halo, BLOCK, MPI_DOUBLE, up, 7, cart,
			     MPI_STATUS_IGNORE); /* site: cart-halo */
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, row); /* site: cart-row */
		MPI_Allreduce(&y, &x, 1, MPI_DOUBLE, MPI_MAX, cart); /* site: cart-all */
		a[0] = halo[1] * 1e-3 + x * 1e-9;
	}
	MPI_Comm_free(&row);
	MPI_Comm_free(&cart);
}

static void run_group(int rank, int size, long iters)
{
	MPI_Group world, mine;
	MPI_Comm parity;
	int n = 0, *members = malloc(sizeof(int) * (size_t)size);
	double a[BLOCK], x, y;

	for (int r = rank % 2; r < size; r += 2)
		members[n++] = r;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, n, members, &mine);
	MPI_Comm_create_group(MPI_COMM_WORLD, mine, 5 + rank % 2, &parity);
	for (int i = 0; i < BLOCK; i++)
		a[i] = rank + i * 1e-3;
	for (long k = 0; iters < 0 || k < iters; k++) {
		x = compute(a, BLOCK);
		MPI_Bcast(&x, 1, MPI_DOUBLE, 0, parity); /* site: group-bcast */
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* site: group-all */
		a[0] = y * 1e-9;
	}
	MPI_Comm_free(&parity);
	MPI_Group_free(&mine);
	MPI_Group_free(&world);
	free(members);
}

int main(int argc, char **argv)
{
	const char *shape = getenv("PS_SHAPE") ? getenv("PS_SHAPE") : "grid", *it = getenv("PS_ITERS");
	long iters = it ? atol(it) : -1;
	int rank, size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (!strcmp(shape, "grid"))
		run_grid(rank, size, iters);
	else if (!strcmp(shape, "dup"))
		run_dup(rank, size, iters);
	else if (!strcmp(shape, "cart"))
		run_cart(rank, size, iters);
	else if (!strcmp(shape, "group"))
		run_group(rank, size, iters);
	else if (rank == 0)
		fprintf(stderr, "subcomm: PS_SHAPE must be grid, dup, cart or group, not '%s'\n", shape);
	MPI_Barrier(MPI_COMM_WORLD); /* site: subcomm-end */
	if (rank == 0)
		printf("subcomm %s: done\n", shape);
	MPI_Finalize();
	return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
