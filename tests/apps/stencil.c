/* stencil — a 1-D heat-equation solver with halo exchange (MPI_Sendrecv with both neighbours)
 * every iteration and a residual MPI_Allreduce every 4 iterations: the bulk-synchronous shape
 * of most MPI solvers. Faults come from the environment (faults.h):
 *   spin/sleep  the rank loops or sleeps forever in application code (computation hang)
 *   deadlock    the rank posts a receive that no one matches (communication hang)
 *   skip        the rank skips the next Allreduce (the others wait in it; it waits in Sendrecv)
 *   exit        the rank finalizes and exits while the others wait in the collective
 *   stall       the rank pauses PS_STALL seconds, then goes on (a slowdown, not a hang)
 *   io          the rank is stuck in the kernel (uninterruptible sleep), as on a hung file system
 *   slow        the rank computes PS_SLOW times as long from then on (a straggler, not a hang)
 * PS_WORK scales the compute per iteration (default 1: about 40 ms with 4 ranks on 2 cores).
 * PS_COMPUTE_MS, when set, makes it a time instead: sweeps until that many milliseconds have
 * passed (times faults_work: a slowed or heavier rank computes that much longer), as a rank
 * with a core of its own would take, however many ranks share this machine's cores. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "faults.h"

#define N 4096

static double u[N + 2], v[N + 2];

__attribute__((noinline)) static void compute(int sweeps)
{
	for (int s = 0; s < sweeps; s++) {
		for (int i = 1; i <= N; i++)
			v[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
		for (int i = 1; i <= N; i++)
			u[i] = v[i] + 1e-9 * sin(i * 0.001 + s);
	}
}

/* Sweeps until `seconds` have passed since the call. */
__attribute__((noinline)) static void compute_for(double seconds)
{
	double end = MPI_Wtime() + seconds;

	do
		compute(4);
	while (MPI_Wtime() < end);
}

__attribute__((noinline)) static void exchange_halo(int rank, int size)
{
	int left = (rank + size - 1) % size, right = (rank + 1) % size;

	MPI_Sendrecv(&u[N], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[N + 1], 1, MPI_DOUBLE, right, 1,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static double residual(void)
{
	double local = 0, global = 0;

	for (int i = 1; i <= N; i++)
		local += fabs(v[i] - u[i]);
	MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return global;
}

__attribute__((noinline)) static void wait_for_a_message_never_sent(int rank, int size)
{
	double x;

	MPI_Recv(&x, 1, MPI_DOUBLE, (rank + 1) % size, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
	int rank, size;
	struct faults f;

	app_start(&argc, &argv, &rank, &size, &f);

	int sweeps = (int)(400 * env_double("PS_WORK", 1.0));
	double compute_ms = env_double("PS_COMPUTE_MS", 0);

	for (int i = 0; i < N + 2; i++)
		u[i] = rank + i * 1e-3;
	int skip = 0; /* the next Allreduce is to be skipped */

	for (long it = 0; app_more(&f, it); it++) {
		switch (faults_due(&f, rank)) {
		case FAULT_SPIN: faulty_spin(); break;
		case FAULT_SLEEP: faulty_sleep(); break;
		case FAULT_DEADLOCK: wait_for_a_message_never_sent(rank, size); break;
		case FAULT_SKIP: skip = 1; break;
		case FAULT_EXIT: MPI_Finalize(); exit(0);
		case FAULT_STALL: transient_stall(f.stall); break;
		case FAULT_IO: faulty_kernel_wait(); break;
		case FAULT_SLOW: case FAULT_NONE: break;
		}
		if (compute_ms > 0)
			compute_for(compute_ms * faults_work(&f) / 1e3);
		else
			compute((int)(sweeps * faults_work(&f)));
		exchange_halo(rank, size);
		if (it % 4 == 3 && skip)
			skip = 0; /* this rank's partners wait in this Allreduce forever */
		else if (it % 4 == 3)
			residual();
	}
	app_end(&f, rank);
	return f.exit_status;
}
/* SPDX-License-Identifier: BSD-3-Clause */
