/* mt_stress — the recording layer under MPI_THREAD_MULTIPLE: 4 threads per rank call MPI at the
 * same time, each on its own communicator (a ring exchange with MPI_Irecv/MPI_Isend/MPI_Waitall,
 * an MPI_Allreduce, an MPI_Iallreduce completed by MPI_Test polling, an MPI_Comm_dup and
 * MPI_Comm_free) for PS_ITERS iterations (default 2000); rank 0 prints "mt_stress: ok" when every
 * sum came out right. With PS_FAULT=skip, thread 2 of rank PS_FAULT_RANK (default 1) skips the
 * last MPI_Allreduce of its communicator: that thread's peers wait in it forever. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define THREADS 4

static int rank, size, fault_rank = -1;
static long iters = 2000;
static MPI_Comm comms[THREADS];
static int bad[THREADS];

__attribute__((noinline)) static void ring(MPI_Comm c, int t, long it)
{
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	long out = rank * 1000 + t + it, in = -1;
	MPI_Request r[2];

	MPI_Irecv(&in, 1, MPI_LONG, left, t, c, &r[0]);
	MPI_Isend(&out, 1, MPI_LONG, right, t, c, &r[1]);
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	bad[t] |= in != left * 1000 + t + it;
}

static void *worker(void *arg)
{
	int t = (int)(long)arg, flag = 0;
	MPI_Comm c = comms[t];

	for (long it = 0; it < iters; it++) {
		long one = 1, sum = 0;
		MPI_Request r;
		MPI_Comm d;

		ring(c, t, it);
		if (!(it == iters - 1 && t == 2 && rank == fault_rank))
			MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, c);
		else
			for (;;)
				MPI_Recv(&sum, 1, MPI_LONG, MPI_ANY_SOURCE, 99, c, MPI_STATUS_IGNORE);
		bad[t] |= sum != size;
		MPI_Iallreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, c, &r);
		for (flag = 0; !flag;)
			MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
		bad[t] |= sum != size;
		if (it % 100 == 0) {
			MPI_Comm_dup(c, &d);
			MPI_Comm_free(&d);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int provided;
	pthread_t th[THREADS];
	const char *v = getenv("PS_ITERS"), *f = getenv("PS_FAULT");

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (provided < MPI_THREAD_MULTIPLE) {
		if (rank == 0)
			fprintf(stderr, "mt_stress: the MPI library gives thread level %d, not MPI_THREAD_MULTIPLE\n", provided);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (v && *v)
		iters = atol(v);
	if (f && !strcmp(f, "skip"))
		fault_rank = getenv("PS_FAULT_RANK") ? atoi(getenv("PS_FAULT_RANK")) : 1;
	if (getenv("PS_PRINT_PIDS"))
		printf("rank %d pid %d\n", rank, (int)getpid()), fflush(stdout);
	for (int t = 0; t < THREADS; t++)
		MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
	for (int t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)(long)t);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);

	int mine = 0, all = 0;

	for (int t = 0; t < THREADS; t++)
		mine |= bad[t];
	MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
	if (rank == 0)
		printf("mt_stress: %s\n", all ? "WRONG RESULTS" : "ok");
	for (int t = 0; t < THREADS; t++)
		MPI_Comm_free(&comms[t]);
	MPI_Finalize();
	return all;
}
/* SPDX-License-Identifier: BSD-3-Clause */
