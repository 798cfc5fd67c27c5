/* masterworker — a task farm as users write one: rank 0 hands out PS_TASKS tasks (default 40),
 * one at a time to whichever worker answers first (MPI_Recv from MPI_ANY_SOURCE), and sends each
 * worker a stop message when no task is left; workers receive a task, compute, send the result.
 * Healthy by itself: a worker that never answers is injected from outside (a preloaded
 * injector skipping one MPI_Send: tests/fixtures/psinject.c). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TAG_TASK 1
#define TAG_RESULT 2
#define TAG_STOP 3

static double work(int task)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	double x = task;

	nanosleep(&ts, NULL);
	for (int i = 0; i < 100000; i++)
		x = x * 0.999 + 1.0;
	return x;
}

__attribute__((noinline)) static void master(int size, int ntasks)
{
	int next = 0, done = 0, live = size - 1;
	double result;
	MPI_Status st;

	for (int w = 1; w < size; w++, next++) {
		MPI_Send(&next, 1, MPI_INT, w, next < ntasks ? TAG_TASK : TAG_STOP, MPI_COMM_WORLD);
		live -= next >= ntasks;
	}
	while (live > 0) {
		MPI_Recv(&result, 1, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st); /* site: mw-master */
		done++;
		if (next < ntasks) {
			MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
			next++;
		} else {
			MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
			live--;
		}
	}
	printf("masterworker: %d results\n", done);
}

__attribute__((noinline)) static void worker(void)
{
	int task;
	MPI_Status st;

	for (;;) {
		MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* site: mw-worker */
		if (st.MPI_TAG == TAG_STOP)
			break;

		double r = work(task);

		MPI_Send(&r, 1, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
	}
}

int main(int argc, char **argv)
{
	int rank, size;
	const char *t = getenv("PS_TASKS");

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0)
		master(size, t ? atoi(t) : 40);
	else
		worker();
	MPI_Finalize();
	return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
