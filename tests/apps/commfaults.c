/* commfaults — communication errors for the wait-for analysis (recording layer): a short
 * healthy phase (Allreduce and a ring Sendrecv) for PS_FAULT_AFTER seconds, then, on every rank
 * at once, the scenario named by PS_COMM:
 *   cycle2       ranks F and F+1 each MPI_Recv from the other; the rest wait in MPI_Barrier
 *   cycle4       ranks 0..3 each MPI_Recv from the next (0 <- 1 <- 2 <- 3 <- 0); the rest Barrier
 *   waitall4     ranks 0..3 each wait in MPI_Waitall for their MPI_Irecv from the next before
 *                their MPI_Isend to the previous: a cycle through requests; the rest Barrier
 *   bcast        rank F calls MPI_Bcast where the others call MPI_Allreduce
 *   roots        rank F calls MPI_Bcast (4 MiB) with root 1 where the others use root 0
 *   wrongsource  rank F MPI_Recv's from rank F+1 (which sends nothing); rank F-1 sends to F
 *   lostisend    rank F MPI_Isend's to F+1 with tag 7 and never waits; F+1 receives tag 8
 *   finalize     rank F calls MPI_Finalize while the others wait in MPI_Barrier
 *   skip         rank F skips an MPI_Allreduce and waits in MPI_Recv from rank F+1
 *   oddrecv      every rank steps on (a ring exchange as a library's sendrecv does it: MPI_Isend,
 *                MPI_Recv, MPI_Wait; then MPI_Allreduce and MPI_Bcast), rank F first waits, at a
 *                line of its own, for a message from F+1 with a tag nobody uses: F+1 then waits
 *                for F's ring message (a cycle whose odd member is F), the rest in the Allreduce
 *   vskip        Scan, Exscan, Reduce_scatter(_block), Alltoallv, Scatterv (results checked) and
 *                an MPI_Gatherv whose counts differ by rank, all correct; then rank F skips an
 *                MPI_Allgatherv and waits in MPI_Recv from rank F+1
 * F is PS_FAULT_RANK (default 1). Each scenario is a function of its own, at lines of its own,
 * so the report's call sites can be checked. */
#include "faults.h"

static int peer(int r, int d, int size)
{
	return ((r + d) % size + size) % size;
}

__attribute__((noinline)) static void healthy_step(int rank, int size)
{
	int x = rank, sum = 0, in = 0;

	MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Sendrecv(&x, 1, MPI_INT, peer(rank, 1, size), 1, &in, 1, MPI_INT, peer(rank, -1, size), 1,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static void recv_from(int from, int tag)
{
	int x;

	MPI_Recv(&x, 1, MPI_INT, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site: recv */
}

__attribute__((noinline)) static void barrier(void)
{
	MPI_Barrier(MPI_COMM_WORLD);
}

__attribute__((noinline)) static void cycle2(int rank, int size, int f)
{
	if (rank == f)
		recv_from(peer(f, 1, size), 5);
	else if (rank == peer(f, 1, size))
		recv_from(f, 5);
	else
		barrier();
}

__attribute__((noinline)) static void cycle4(int rank)
{
	if (rank < 4)
		recv_from((rank + 1) % 4, 6);
	else
		barrier();
}

__attribute__((noinline)) static void waitall_cycle(int rank)
{
	int in = 0, out = rank;
	MPI_Request r[1];

	if (rank < 4) {
		MPI_Irecv(&in, 1, MPI_INT, (rank + 1) % 4, 6, MPI_COMM_WORLD, &r[0]);
		MPI_Waitall(1, r, MPI_STATUSES_IGNORE); /* site: waitall4 */
		MPI_Isend(&out, 1, MPI_INT, (rank + 3) % 4, 6, MPI_COMM_WORLD, &r[0]);
		MPI_Waitall(1, r, MPI_STATUSES_IGNORE);
	}
	barrier();
}

__attribute__((noinline)) static void bcast_instead(int rank, int f)
{
	int x = rank, sum = 0;

	if (rank == f)
		MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD); /* site: bcast-odd */
	else
		MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* site: bcast-others */
	barrier();
}

/* Large enough that the broadcast's sends wait for matching receives (no eager buffering). */
#define ROOTS_COUNT (1 << 20)

__attribute__((noinline)) static void other_root(int rank, int f)
{
	int *x = calloc(ROOTS_COUNT, sizeof(int));

	MPI_Bcast(x, ROOTS_COUNT, MPI_INT, rank == f ? 1 : 0, MPI_COMM_WORLD); /* site: roots */
	barrier();
	free(x);
}

__attribute__((noinline)) static void wrong_source(int rank, int size, int f)
{
	int x = rank;

	if (rank == f)
		recv_from(peer(f, 1, size), 9);
	else if (rank == peer(f, -1, size))
		MPI_Send(&x, 1, MPI_INT, f, 9, MPI_COMM_WORLD);
	barrier();
}

__attribute__((noinline)) static void lost_isend(int rank, int size, int f)
{
	int x = rank;
	MPI_Request req;

	if (rank == f)
		MPI_Isend(&x, 1, MPI_INT, peer(f, 1, size), 7, MPI_COMM_WORLD, &req); /* site: isend */
	else if (rank == peer(f, 1, size))
		recv_from(f, 8);
	barrier();
}

/* One step every rank takes: a ring exchange (the send started, the receive, the Wait), the
 * residual and the decision. */
__attribute__((noinline)) static void ring_step(int rank, int size)
{
	int x = rank, in = 0, sum = 0;
	MPI_Request r;

	MPI_Isend(&x, 1, MPI_INT, peer(rank, 1, size), 1, MPI_COMM_WORLD, &r); /* site: ring-isend */
	MPI_Recv(&in, 1, MPI_INT, peer(rank, -1, size), 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site: ring-recv */
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Bcast(&sum, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

__attribute__((noinline)) static void odd_recv(int rank, int size, int f)
{
	int x;

	if (rank == f)
		MPI_Recv(&x, 1, MPI_INT, peer(f, 1, size), 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site: odd-recv */
	for (;;)
		ring_step(rank, size);
}

__attribute__((noinline)) static void finalize_early(int rank, int f)
{
	if (rank == f) {
		MPI_Finalize();
		exit(0);
	}
	barrier();
}

__attribute__((noinline)) static void skip_collective(int rank, int size, int f)
{
	int x = rank, sum = 0;

	if (rank != f)
		MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* site: skip-others */
	else
		recv_from(peer(f, 1, size), 3);
	barrier();
}

/* The other recorded collectives, called correctly, their results checked (the layer passes
 * every argument through): a wrong one aborts the job. */
__attribute__((noinline)) static void more_collectives(int rank, int size)
{
	int one = 1, scan = 0, ex = 0, block = 0, rs = 0, sv = -1;
	int *ones = calloc((size_t)size, sizeof(int)), *got = calloc((size_t)size, sizeof(int));
	int *displs = calloc((size_t)size, sizeof(int));

	for (int i = 0; i < size; i++) {
		ones[i] = 1;
		displs[i] = i;
	}
	MPI_Scan(&rank, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Exscan(&one, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Reduce_scatter_block(ones, &block, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Reduce_scatter(ones, &rs, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Alltoallv(displs, ones, displs, MPI_INT, got, ones, displs, MPI_INT, MPI_COMM_WORLD);
	MPI_Scatterv(displs, ones, displs, MPI_INT, &sv, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (scan != rank * (rank + 1) / 2 || (rank > 0 && ex != rank) || block != size || rs != size ||
	    got[size - 1] != rank || sv != rank) {
		fprintf(stderr, "commfaults: rank %d: a collective gave a wrong result\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	free(displs);
	free(got);
	free(ones);
}

/* Counts that differ by rank are the v-variants' point: not a mismatch. Then a skipped one. */
__attribute__((noinline)) static void skip_allgatherv(int rank, int size, int f)
{
	int *counts = calloc((size_t)size, sizeof(int)), *displs = calloc((size_t)size, sizeof(int));
	int *all = calloc((size_t)size * (size_t)(size + 1) / 2 + 1, sizeof(int)), mine[64] = { 0 };

	for (int i = 0, d = 0; i < size && i < 64; d += i + 1, i++) {
		counts[i] = i + 1;
		displs[i] = d;
	}
	more_collectives(rank, size);
	MPI_Gatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank != f)
		MPI_Allgatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD); /* site: allgatherv-others */
	else
		recv_from(peer(f, 1, size), 4);
	barrier();
	free(all);
	free(displs);
	free(counts);
}

int main(int argc, char **argv)
{
	struct faults f;
	int rank, size, stop = 0;
	const char *what = getenv("PS_COMM");

	app_start(&argc, &argv, &rank, &size, &f);
	if (f.kind == FAULT_NONE && !getenv("PS_FAULT_AFTER"))
		f.after = 1;
	/* Every rank leaves the healthy phase in the same iteration: rank 0 decides. */
	while (!stop) {
		healthy_step(rank, size);
		stop = MPI_Wtime() - f.t0 >= f.after;
		MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}

	int fr = f.rank < 0 ? 1 : f.rank % size;

	if (!what)
		what = "";
	if (!strcmp(what, "cycle2"))
		cycle2(rank, size, fr);
	else if (!strcmp(what, "waitall4"))
		waitall_cycle(rank);
	else if (!strcmp(what, "cycle4"))
		cycle4(rank);
	else if (!strcmp(what, "bcast"))
		bcast_instead(rank, fr);
	else if (!strcmp(what, "roots"))
		other_root(rank, fr);
	else if (!strcmp(what, "wrongsource"))
		wrong_source(rank, size, fr);
	else if (!strcmp(what, "lostisend"))
		lost_isend(rank, size, fr);
	else if (!strcmp(what, "finalize"))
		finalize_early(rank, fr);
	else if (!strcmp(what, "oddrecv"))
		odd_recv(rank, size, fr);
	else if (!strcmp(what, "vskip"))
		skip_allgatherv(rank, size, fr);
	else if (!strcmp(what, "skip"))
		skip_collective(rank, size, fr);
	app_end(&f, rank);
	return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
