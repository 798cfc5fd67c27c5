/* threaded — ranks with two application threads under MPI_THREAD_MULTIPLE, overlapping
 * communication with computation as hybrid codes do: each iteration the second thread
 * exchanges halos (MPI_Sendrecv on its own communicator) while the main thread computes; they
 * meet at a barrier, then the main thread joins a residual MPI_Allreduce. A rank is IN_MPI when
 * either thread is in MPI. Faults as in faults.h (spin and sleep hit the main thread). */
#include <pthread.h>
#include <stdio.h>

#include "faults.h"

static MPI_Comm halo_comm;
static int rank, size;
static volatile int stopping;
static volatile double sink;
static pthread_barrier_t start_line, finish_line;

__attribute__((noinline)) static void compute(long n)
{
	for (long i = 0; i < n; i++)
		sink += i * 1e-9;
}

static void *halo_thread(void *arg)
{
	double out = rank, in;

	(void)arg;
	for (;;) {
		pthread_barrier_wait(&start_line);
		if (stopping)
			return NULL;
		compute(2000000);
		MPI_Sendrecv(&out, 1, MPI_DOUBLE, (rank + 1) % size, 0, &in, 1, MPI_DOUBLE,
			     (rank + size - 1) % size, 0, halo_comm, MPI_STATUS_IGNORE);
		pthread_barrier_wait(&finish_line);
	}
}

int main(int argc, char **argv)
{
	int provided;
	struct faults f;
	pthread_t t;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		fprintf(stderr, "threaded: MPI_THREAD_MULTIPLE not available\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_dup(MPI_COMM_WORLD, &halo_comm);
	faults_init(&f);
	pthread_barrier_init(&start_line, NULL, 2);
	pthread_barrier_init(&finish_line, NULL, 2);
	pthread_create(&t, NULL, halo_thread, NULL);
	for (long it = 0; app_more(&f, it); it++) {
		double local = rank, global;

		pthread_barrier_wait(&start_line);
		switch (faults_due(&f, rank)) {
		case FAULT_SPIN: faulty_spin(); break;
		case FAULT_SLEEP: faulty_sleep(); break;
		default: break;
		}
		compute(8000000);
		pthread_barrier_wait(&finish_line);
		MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	stopping = 1;
	pthread_barrier_wait(&start_line);
	pthread_join(t, NULL);
	app_end(&f, rank);
	return f.exit_status;
}
/* SPDX-License-Identifier: BSD-3-Clause */
