/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the culprits of the wait-for analysis (issue 37), on synthetic records as
 * mpirecord.c makes them: a rank that skipped a collective on one communicator and went on to
 * another (NPB FT's case), a rank that called two collectives in the other order, a grid whose
 * row communicators have another id in every row, a genuine symmetric cycle
 * (monitor/hang/waitfor_order.c); and a point-to-point cycle with one odd member whose
 * counters are incomplete on another communicator (mpi4py), with the requests of the exchange
 * a rank waits in not reported as left behind; LAMMPS's halo with one envelope's tag wrong, on
 * the receiving or the sending side, messages between the eager and rendezvous bounds. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/hang/culprits.h"
#include "../../monitor/hang/report.h"
#include "../../monitor/hang/waitfor.h"
#include "suites.h"
#include "waitfor_records.h"

/* NPB FT, 16 ranks: rank 5 skipped MPI_Alltoall #12 on FT's own communicator (a duplicate of
 * the world) and waits in MPI_Reduce #18 on MPI_COMM_WORLD; the fifteen others wait in the
 * Alltoall. Only rank 5 kept another order. */
START_TEST(cross_communicator_skip_names_the_rank_out_of_step)
{
	const char *ft = "00000000000000aa";
	json_t *s = json_array();

	for (int r = 0; r < 16; r++) {
		json_t *x = rank_new(r, 16);

		comm_count(x, ft, 16, "0-15", r == 5 ? 11 : 12, "MPI_Alltoall", "ft.f:123");
		comm_count(x, WORLD, 16, "0-15", r == 5 ? 18 : 17, "MPI_Reduce", "ft.f:300");
		if (r == 5)
			waits_in(x, WORLD, "MPI_Reduce", 18, "ft.f:300");
		else
			waits_in(x, ft, "MPI_Alltoall", 12, "ft.f:123");
		json_array_append_new(s, x);
	}
	expect(s, "[5]", 5, "certain", "out of step");
}
END_TEST

/* 8 ranks call MPI_Bcast on a duplicate, then MPI_Allreduce on the world; rank 3 calls the two
 * the other way round. */
START_TEST(reordered_collectives_name_the_reordering_rank)
{
	const char *dup = "00000000000000d1";
	json_t *s = json_array();

	for (int r = 0; r < 8; r++) {
		json_t *x = rank_new(r, 8);

		comm_count(x, dup, 8, "0-7", r == 3 ? 40 : 41, "MPI_Bcast", "app.c:50");
		comm_count(x, WORLD, 8, "0-7", r == 3 ? 41 : 40, "MPI_Allreduce", "app.c:52");
		if (r == 3)
			waits_in(x, WORLD, "MPI_Allreduce", 41, "app.c:52");
		else
			waits_in(x, dup, "MPI_Bcast", 41, "app.c:50");
		json_array_append_new(s, x);
	}
	expect(s, "[3]", 3, "certain", "entered the second without the first");
}
END_TEST

/* A 2 x 2 grid: rows {0,1}, {2,3}; columns {0,2}, {1,3}; each step a row then a column
 * MPI_Allreduce, and at the end an MPI_Barrier on the world. Rank 1 skipped one row
 * collective: its row partner 0 waits in the last row collective, rank 2 in its column one for
 * rank 0, ranks 1 and 3 in the barrier. The rows have different ids: rank 2 and 3 vote on the
 * order through their own row (same size, same call site). */
START_TEST(grid_rows_vote_through_their_own_row)
{
	const char *row[2] = { "00000000000000a0", "00000000000000a1" };
	const char *col[2] = { "00000000000000c0", "00000000000000c1" };
	const char *rowm[2] = { "0-1", "2-3" }, *colm[2] = { "0,2", "1,3" };
	json_t *s = json_array();
	long long N = 30, z = 2;

	for (int r = 0; r < 4; r++) {
		json_t *x = rank_new(r, 4);
		int rr = r / 2, cc = r % 2;

		comm_count(x, row[rr], 2, rowm[rr], r == 1 ? N - 1 : N, "MPI_Allreduce", "grid.c:40");
		comm_count(x, col[cc], 2, colm[cc], r == 0 ? N - 1 : N, "MPI_Allreduce", "grid.c:45");
		comm_count(x, WORLD, 4, "0-3", r == 0 || r == 2 ? z - 1 : z, "MPI_Barrier", "grid.c:60");
		if (r == 0)
			waits_in(x, row[0], "MPI_Allreduce", N, "grid.c:40");
		else if (r == 2)
			waits_in(x, col[0], "MPI_Allreduce", N, "grid.c:45");
		else
			waits_in(x, WORLD, "MPI_Barrier", z, "grid.c:60");
		json_array_append_new(s, x);
	}
	expect(s, "[1]", 1, "certain", "out of step");
}
END_TEST

/* subcomm's group shape, 4 ranks: a Bcast on the even or the odd ranks' communicator, then an
 * Allreduce on the world. Rank 2 put Allreduce #N off and went on to the next Bcast, from a line
 * of its own (own.c:99): ranks 0, 1 and 3 wait in the Allreduce, rank 2 in Bcast #N+1 for rank 0.
 * The odd ranks' communicator never saw that line; it is the one of its size where they made
 * Bcasts, and they vote with rank 0. */
START_TEST(bystanders_vote_through_the_communicator_of_the_same_collective)
{
	const char *par[2] = { "00000000000000e0", "00000000000000f0" }, *parm[2] = { "0,2", "1,3" };
	json_t *s = json_array();
	long long N = 40;

	for (int r = 0; r < 4; r++) {
		json_t *x = rank_new(r, 4);

		comm_count(x, par[r % 2], 2, parm[r % 2], r == 2 ? N + 1 : N, "MPI_Bcast", "group.c:128");
		comm_count(x, WORLD, 4, "0-3", r == 2 ? N - 1 : N, "MPI_Allreduce", "group.c:129");
		if (r == 2)
			waits_in(x, par[0], "MPI_Bcast", N + 1, "own.c:99");
		else
			waits_in(x, WORLD, "MPI_Allreduce", N, "group.c:129");
		json_array_append_new(s, x);
	}
	expect(s, "[2]", 2, "certain", "out of step");
}
END_TEST

/* A 2x2 grid whose every Allreduce goes through one wrapper (one call site for the row's, the
 * column's and the world's): rank 2 put world #N off and waits in its row's #N+1; ranks 0, 1
 * and 3 in world #N. Ranks 0 and 1 have two communicators of the row's size made at that site,
 * and both say the same (neither has entered #N+1): they vote, and rank 2 is out of step. */
START_TEST(bystanders_with_two_fitting_communicators_vote_when_they_agree)
{
	const char *row[2] = { "00000000000000a0", "00000000000000a1" };
	const char *col[2] = { "00000000000000c0", "00000000000000c1" };
	const char *rowm[2] = { "0-1", "2-3" }, *colm[2] = { "0,2", "1,3" };
	json_t *s = json_array();
	long long N = 20;

	for (int r = 0; r < 4; r++) {
		json_t *x = rank_new(r, 4);

		comm_count(x, row[r / 2], 2, rowm[r / 2], r == 2 ? N + 1 : N, "MPI_Allreduce", "wrap.c:10");
		comm_count(x, col[r % 2], 2, colm[r % 2], N, "MPI_Allreduce", "wrap.c:10");
		comm_count(x, WORLD, 4, "0-3", r == 2 ? N - 1 : N, "MPI_Allreduce", "wrap.c:10");
		if (r == 2)
			waits_in(x, row[1], "MPI_Allreduce", N + 1, "wrap.c:10");
		else
			waits_in(x, WORLD, "MPI_Allreduce", N, "wrap.c:10");
		json_array_append_new(s, x);
	}
	expect(s, "[2]", 2, "certain", "out of step");
}
END_TEST

/* n ranks, each waiting in MPI_Bcast #1 on one of two communicators of all of them: ranks below
 * first called A's (sym.c:10) and not B's, the others B's (sym.c:20) and not A's. */
static json_t *opposite_orders(int n, int first)
{
	const char *a = "00000000000000a0", *b = "00000000000000b0";
	char members[16];
	json_t *s = json_array();

	snprintf(members, sizeof(members), "0-%d", n - 1);
	for (int r = 0; r < n; r++) {
		json_t *x = rank_new(r, n);
		bool a_first = r < first;

		comm_count(x, a, n, members, a_first ? 1 : 0, "MPI_Bcast", "sym.c:10");
		comm_count(x, b, n, members, a_first ? 0 : 1, "MPI_Bcast", "sym.c:20");
		waits_in(x, a_first ? a : b, "MPI_Bcast", 1, a_first ? "sym.c:10" : "sym.c:20");
		json_array_append_new(s, x);
	}
	return s;
}

/* Two halves call the same two collectives in opposite orders (ranks 0-3: A then B; 4-7: B
 * then A): a genuine symmetric cycle, both sides named as likely, the orders said. */
START_TEST(symmetric_cycle_names_both_sides)
{
	expect(opposite_orders(8, 4), "[0,1,2,3,4,5,6,7]", 6, "likely", "symmetric cycle: ranks 0-3 call MPI_Bcast #1");
}
END_TEST

/* Three ranks on one side, two on the other: not symmetric, but not two to one either: the
 * odd ranks are named, as likely. */
START_TEST(a_narrow_majority_is_only_likely)
{
	expect(opposite_orders(5, 3), "[3,4]", 3, "likely", "out of step");
}
END_TEST

/* A rank waiting in a point-to-point call on the world (thread 100, its step). */
static void waits_p2p(json_t *rank, const char *func, int peer, int tag, long long step)
{
	json_array_append_new(json_object_get(json_object_get(rank, "record"), "calls"),
			      json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:i, s:[], s:b, s:I}", "tid",
					100, "func", func, "comm", WORLD, "peer", peer, "tag", tag, "root", -1, "bytes",
					8, "coll_seq", 0, "at", "ring.py:50", "nreqs", 0, "reqs", "main", 1, "step",
					(json_int_t)step));
}

/* The rank's counters of one envelope on comm. */
static void chan(json_t *rank, const char *comm, int peer, int tag, long long sent, long long posted, long long done)
{
	json_array_append_new(json_object_get(json_object_get(rank, "record"), "channels"),
			      json_pack("{s:s, s:i, s:i, s:I, s:I, s:I}", "comm", comm, "peer", peer, "tag", tag,
					"sent", (json_int_t)sent, "posted", (json_int_t)posted, "done",
					(json_int_t)done));
}

/* A live Isend the rank's thread 100 started in the given step. */
static void isend(json_t *rank, int slot, int peer, int tag, long long step)
{
	json_array_append_new(json_object_get(json_object_get(rank, "record"), "requests"),
			      json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:b, s:s, s:I, s:i}", "slot", slot, "func",
					"MPI_Isend", "comm", WORLD, "peer", peer, "tag", tag, "bytes", 8, "persistent", 0,
					"at", "MPI.so+0x71f84", "step", (json_int_t)step, "tid", 100));
}

/* The rank's counters are incomplete (a full table), on comm only or on all of them. */
static void incomplete(json_t *rank, const char *comm)
{
	json_t *rec = json_object_get(rank, "record"), *c;
	size_t i;

	json_object_set_new(rec, "channels_complete", json_false());
	json_array_foreach(json_object_get(rec, "comms"), i, c)
		json_object_set_new(c, "channels_complete",
				    json_boolean(comm && strcmp(json_string_value(json_object_get(c, "id")), comm)));
}

/* mpi4py, 4 ranks, each step a ring comm.sendrecv (tag 1: an Isend to the right, MPI_Mprobe
 * from the left), then collectives. Rank 1, at a line of its own, waits for tag 999 from rank
 * 2, which waits for rank 1's ring message; ranks 0 and 3 wait in MPI_Bcast. mpi4py's pickled
 * collectives filled every rank's table on their own communicator, and rank 1's tag-999
 * envelope found no room on the world. Rank 1 alone; rank 2's Isend, started in the exchange it
 * waits in, is not left behind; an Isend started before an earlier blocking call is. */
START_TEST(odd_member_of_a_cycle_with_a_full_table)
{
	const char *pickled = "1a6fa660cc0d9845";
	json_t *s = json_array();
	long long n = 7000;

	for (int r = 0; r < 4; r++) {
		json_t *x = rank_new(r, 4);
		int right = (r + 1) % 4, left = (r + 3) % 4;

		comm_count(x, pickled, 4, "0-3", 0, "MPI_Barrier", "MPI.so+0x1");
		comm_count(x, WORLD, 4, "0-3", r == 0 || r == 3 ? n + 1 : n, "MPI_Bcast", "ring.py:60");
		/* Ring messages: n each; rank 2 took all n of rank 1's and probes for one more. */
		chan(x, WORLD, right, 1, n, 0, 0);
		chan(x, WORLD, left, 1, 0, r == 2 ? n + 1 : n, n);
		incomplete(x, pickled);
		if (r == 1)
			incomplete(x, NULL);
		if (r == 0 || r == 3)
			waits_in(x, WORLD, "MPI_Bcast", n + 1, "ring.py:60");
		else if (r == 1)
			waits_p2p(x, "MPI_Mprobe", 2, 999, 3 * n + 1);
		else
			waits_p2p(x, "MPI_Mprobe", 1, 1, 3 * n + 1);
		if (r == 2)
			isend(x, 7, 3, 1, 3 * n);
		if (r == 0)
			isend(x, 9, 2, 5, 3 * n - 2);
		json_array_append_new(s, x);
	}

	json_t *wf = waitfor_analyze(s);
	char *got = faulty_of(wf), *req = json_dumps(json_object_get(wf, "requests"), JSON_COMPACT);

	ck_assert_str_eq(got, "[1]");
	ck_assert_str_eq(evidence_of(wf, 1), "likely");
	ck_assert(diagnosis_says(wf, "its receive waits for a message its peer never sent"));
	/* Rank 0's Isend of an earlier step stays reported; rank 2's of this one does not. */
	ck_assert_ptr_nonnull(strstr(req, "\"rank\":0"));
	ck_assert_ptr_null(strstr(req, "\"rank\":2"));
	free(req);
	free(got);
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* The same without the per-communicator word (every count unknown on rank 1): rank 2's wait on
 * rank 1 stays provable from rank 1's ring envelope, which is in its table. */
START_TEST(an_envelope_in_the_table_is_exact)
{
	json_t *s = json_array();

	for (int r = 0; r < 3; r++) {
		json_t *x = rank_new(r, 3);

		comm_count(x, WORLD, 3, "0-2", r == 0 ? 6 : 5, "MPI_Allreduce", "a.c:9");
		if (r == 0)
			waits_in(x, WORLD, "MPI_Allreduce", 6, "a.c:9");
		json_array_append_new(s, x);
	}

	json_t *r1 = json_array_get(s, 1), *r2 = json_array_get(s, 2);

	chan(r1, WORLD, 2, 1, 40, 0, 0);
	json_object_set_new(json_object_get(r1, "record"), "channels_complete", json_false());
	waits_p2p(r1, "MPI_Recv", 2, 999, 10);
	chan(r2, WORLD, 1, 1, 0, 41, 40);
	waits_p2p(r2, "MPI_Recv", 1, 1, 10);

	json_t *wf = waitfor_analyze(s);
	char *got = faulty_of(wf);

	ck_assert_str_eq(got, "[1]");
	free(got);
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* LAMMPS's halo (CommBrick::forward_comm), 4 ranks in a ring, each step an MPI_Irecv from the
 * left, a blocking MPI_Send of 29,808 bytes to the right (between the eager and rendezvous
 * bounds) and an MPI_Wait; N steps done by all. In step N + 1 one envelope goes wrong between
 * rank 1 (the sender) and rank 2: rank 2's receive takes a tag nobody sends (recv_wrong), or
 * rank 1 sends with a tag nobody receives. Then rank 1 sits in its MPI_Send to rank 2, rank 2
 * in its MPI_Wait for rank 1, rank 0 in its send N + 2 to rank 1, rank 3 in its wait for rank
 * 2's message N + 2. The side whose envelope is new is named, not its neighbour. */
#define HALO_BYTES 29808

static void halo_send(json_t *rank, int peer, int tag)
{
	json_array_append_new(json_object_get(json_object_get(rank, "record"), "calls"),
			      json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:i, s:[], s:b, s:I}", "tid",
					100, "func", "MPI_Send", "comm", WORLD, "peer", peer, "tag", tag, "root", -1,
					"bytes", HALO_BYTES, "coll_seq", 0, "at", "comm_brick.cpp:560", "nreqs", 0, "reqs",
					"main", 1, "step", (json_int_t)3));
}

/* A live MPI_Irecv of the rank's thread 100 in request slot. */
static void irecv_req(json_t *rank, int slot, int peer, int tag, int bytes, const char *at)
{
	json_array_append_new(json_object_get(json_object_get(rank, "record"), "requests"),
			      json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:b, s:s, s:I, s:i}", "slot", slot, "func",
					"MPI_Irecv", "comm", WORLD, "peer", peer, "tag", tag, "bytes", bytes,
					"persistent", 0, "at", at, "step", (json_int_t)1, "tid", 100));
}

/* The rank waits in func (MPI_Wait, MPI_Waitall) on the requests in slots. */
static void waits_on(json_t *rank, const char *func, json_t *slots, const char *at)
{
	json_array_append_new(json_object_get(json_object_get(rank, "record"), "calls"),
			      json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:I, s:o, s:b, s:I}", "tid",
					100, "func", func, "comm", WORLD, "peer", -2, "tag", 0, "root", -1, "bytes", 0,
					"coll_seq", 0, "at", at, "nreqs", (json_int_t)json_array_size(slots), "reqs",
					slots, "main", 1, "step", (json_int_t)3));
}

static void halo_wait(json_t *rank, int peer, int tag)
{
	irecv_req(rank, 4, peer, tag, HALO_BYTES, "comm_brick.cpp:556");
	waits_on(rank, "MPI_Wait", json_pack("[i]", 4), "comm_brick.cpp:562");
}

/* A ring of 4 ranks, each having entered colls MPI_Allreduce on the world (at site). */
static json_t *ring4(long long colls, const char *site)
{
	json_t *s = json_array();

	for (int r = 0; r < 4; r++) {
		json_t *x = rank_new(r, 4);

		comm_count(x, WORLD, 4, "0-3", colls, "MPI_Allreduce", site);
		json_array_append_new(s, x);
	}
	return s;
}

static json_t *halo_ring(bool recv_wrong)
{
	const int bad = 31999;
	const long long n = 1000;
	json_t *s = ring4(20, "verlet.cpp:300");

	json_t *r0 = json_array_get(s, 0), *r1 = json_array_get(s, 1), *r2 = json_array_get(s, 2), *r3 = json_array_get(s, 3);

	/* rank 0: its send N + 2 to rank 1, which posted N + 1 receives */
	chan(r0, WORLD, 1, 7, n + 2, 0, 0);
	chan(r0, WORLD, 3, 7, 0, n + 2, n + 1);
	halo_send(r0, 1, 7);
	/* rank 1: its send N + 1 to rank 2 (with tag 7, or the wrong one) */
	chan(r1, WORLD, 0, 7, 0, n + 1, n);
	chan(r1, WORLD, 2, 7, recv_wrong ? n + 1 : n, 0, 0);
	if (!recv_wrong)
		chan(r1, WORLD, 2, bad, 1, 0, 0);
	halo_send(r1, 2, recv_wrong ? 7 : bad);
	/* rank 2: its receive N + 1 from rank 1 (the wrong tag, or 7) */
	chan(r2, WORLD, 1, 7, 0, recv_wrong ? n : n + 1, n);
	if (recv_wrong)
		chan(r2, WORLD, 1, bad, 0, 1, 0);
	chan(r2, WORLD, 3, 7, n + 1, 0, 0);
	halo_wait(r2, 1, recv_wrong ? bad : 7);
	/* rank 3: took rank 2's N + 1 messages, waits for one more */
	chan(r3, WORLD, 2, 7, 0, n + 2, n + 1);
	chan(r3, WORLD, 0, 7, n + 2, 0, 0);
	halo_wait(r3, 2, 7);
	return s;
}

START_TEST(halo_receive_with_a_wrong_tag_names_the_receiver)
{
	expect(halo_ring(true), "[2]", 2, "likely", "its receive waits for a message its peer never sent");
}
END_TEST

START_TEST(halo_send_with_a_wrong_tag_names_the_sender)
{
	expect(halo_ring(false), "[1]", 1, "likely", "its send uses an envelope its peer never receives on");
}
END_TEST

/* heat.py of the field trial (mpi4py): each step Irecvs from both neighbours and a small flags
 * message from the one above, blocking Sends of 20,000 bytes, then MPI_Waitall. Rank 0's row
 * receive from rank 3 takes a tag nobody sends; its Waitall also waits for rank 3's flags,
 * which rank 3, held in its MPI_Send to rank 0, never got to send. Rank 0 waits on a new
 * envelope and an old one, rank 3 on an old one: rank 0 is the odd one, as likely — never the
 * three ranks of the cycles, as certain. */
static void waitall_two(json_t *rank, int peer, int tag_a, int tag_b)
{
	irecv_req(rank, 4, peer, tag_a, 20000, "heat.py:22");
	irecv_req(rank, 5, peer, tag_b, 64, "heat.py:22");
	waits_on(rank, "MPI_Waitall", json_pack("[i, i]", 4, 5), "heat.py:27");
}

START_TEST(waitall_on_a_new_and_an_old_envelope_names_that_rank)
{
	const long long n = 500;
	json_t *s = ring4(40, "heat.py:45");

	json_t *r0 = json_array_get(s, 0), *r1 = json_array_get(s, 1), *r3 = json_array_get(s, 3), *r2 = json_array_get(s, 2);

	/* rank 0: rows from 3 on tag 1 (n taken), this step's posted with the wrong tag; flags
	 * from 3 on tag 3 (n sent, n taken, one more posted) */
	chan(r0, WORLD, 3, 1, 0, n, n);
	chan(r0, WORLD, 3, 31999, 0, 1, 0);
	chan(r0, WORLD, 3, 3, 0, n + 1, n);
	chan(r0, WORLD, 1, 1, n + 1, 0, 0);
	waitall_two(r0, 3, 31999, 3);
	/* rank 3: its row n + 1 to rank 0 on tag 1, and n flags sent before */
	chan(r3, WORLD, 0, 1, n + 1, 0, 0);
	chan(r3, WORLD, 0, 3, n, 0, 0);
	chan(r3, WORLD, 2, 1, 0, n + 1, n + 1);
	halo_send(r3, 0, 1);
	/* ranks 1 and 2 wait for their neighbour above, one message short */
	chan(r1, WORLD, 0, 1, 0, n + 2, n + 1);
	chan(r1, WORLD, 2, 1, n + 1, 0, 0);
	halo_wait(r1, 0, 1);
	chan(r2, WORLD, 1, 1, 0, n + 2, n + 1);
	chan(r2, WORLD, 3, 1, n + 1, 0, 0);
	halo_wait(r2, 1, 1);
	expect(s, "[0]", 0, "likely", "its receive waits for a message its peer never sent");
}
END_TEST

/* CP2K's ring shift of the field trial (bench/results/field-preview/cp2k-wrong-tag-large):
 * 4 ranks, each step an MPI_Isend of 163,296 bytes (rendezvous) to the right and an MPI_Irecv
 * from the left, then MPI_Waitall; N steps done. In step N + 1 rank 1's receive from rank 0
 * takes a tag nobody sends, and rank 1's channel table is full on the world (its counters
 * there incomplete; its ring envelopes, claimed at the first step, in it). Rank 1 is blocked
 * on rank 0; rank 0's send to rank 1 is undecided (rank 1's receives on the world are not all
 * counted) - an unproven wait on rank 1, not "rank 0 waits on nobody". Rank 1 is named. */
#define SHIFT_BYTES 163296

static void isend_req(json_t *rank, int slot, int peer, int tag, int bytes, const char *at)
{
	json_array_append_new(json_object_get(json_object_get(rank, "record"), "requests"),
			      json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:b, s:s, s:I, s:i}", "slot", slot, "func",
					"MPI_Isend", "comm", WORLD, "peer", peer, "tag", tag, "bytes", bytes,
					"persistent", 0, "at", at, "step", (json_int_t)1, "tid", 100));
}

START_TEST(an_undecided_large_send_waits_on_its_receiver)
{
	const long long n = 300;
	json_t *s = ring4(60, "cp2k.psmp+0x2793a00");

	for (int r = 0; r < 4; r++) {
		json_t *x = json_array_get(s, r);
		int right = (r + 1) % 4, left = (r + 3) % 4;

		chan(x, WORLD, right, 13, n + 1, 0, 0);
		chan(x, WORLD, left, 13, 0, r == 1 ? n : n + 1, n);
		isend_req(x, 4, right, 13, SHIFT_BYTES, "cp2k.psmp+0x27c51a0");
		irecv_req(x, 5, left, r == 1 ? 31999 : 13, SHIFT_BYTES, "cp2k.psmp+0x27c5200");
		waits_on(x, "MPI_Waitall", json_pack("[i, i]", 4, 5), "cp2k.psmp+0x2793a96");
	}
	incomplete(json_array_get(s, 1), WORLD);
	expect(s, "[1]", 1, "likely", "its receive waits for a message its peer never sent");
}
END_TEST

/* HPCC's ring exchange of the field trial (bench/results/field-preview/hpcc-wrong-tag-large): 4
 * ranks, each step Isends of 2 MB to both neighbours (tag 200 rightwards, 201 leftwards), the
 * matching Irecvs, MPI_Waitall, then an MPI_Allreduce; RandomAccess had every rank post 5,000
 * receives of any source and tag before, all taken. In step N + 1 rank 2's receive from rank 1
 * takes a tag nobody sends. Ranks 0 and 3 finished the step and wait in the Allreduce; rank 1's
 * send to rank 2 waits - too few receives of its envelope, and the wildcard ones may have taken
 * another rank's messages: undecided, not satisfied. Rank 2 is named, not rank 1. */
START_TEST(wildcard_receives_leave_a_large_send_undecided)
{
	const long long n = 1000, wild = 5000;
	json_t *s = ring4(60, "hpcc+0x2de94");

	for (int r = 0; r < 4; r++) {
		json_t *x = json_array_get(s, r);
		int right = (r + 1) % 4, left = (r + 3) % 4;
		/* Messages each rank sent rightwards and leftwards, and took from each side. */
		long long to_right = n + 1, to_left = n + 1;
		long long from_left = r == 2 ? n : n + 1, from_right = n + 1;

		chan(x, WORLD, right, 200, to_right, 0, 0);
		chan(x, WORLD, left, 201, to_left, 0, 0);
		chan(x, WORLD, left, 200, 0, from_left, from_left);
		chan(x, WORLD, right, 201, 0, from_right, from_right);
		chan(x, WORLD, -1, -1, 0, wild, wild);
		if (r == 0 || r == 3) {
			comm_count(x, WORLD, 4, "0-3", 61, "MPI_Allreduce", "hpcc+0x2de94");
			waits_in(x, WORLD, "MPI_Allreduce", 61, "hpcc+0x2de94");
		}
	}
	json_t *r1 = json_array_get(s, 1), *r2 = json_array_get(s, 2);

	chan(r2, WORLD, 1, 31999, 0, 1, 0);
	isend_req(r1, 4, 2, 200, 2000000, "hpcc+0x2e295");
	waits_on(r1, "MPI_Waitall", json_pack("[i]", 4), "hpcc+0x2e2d0");
	irecv_req(r2, 5, 1, 31999, 2000000, "hpcc+0x2e240");
	waits_on(r2, "MPI_Waitall", json_pack("[i]", 5), "hpcc+0x2e2d0");
	expect(s, "[2]", 2, "likely", "its receive waits for a message its peer never sent");
}
END_TEST

/* 20 ranks in a ring of 20 two-member communicators, each waiting in its own: more positions
 * than the order rule reads (ORDER_MAX_POS): it steps aside, the analysis still ends. */
START_TEST(more_positions_than_the_order_rule_reads)
{
	json_t *s = json_array();

	for (int r = 0; r < 20; r++) {
		json_t *x = rank_new(r, 20);
		char mine[32], prev[32], mm[32], pm[32];
		int p = (r + 19) % 20;

		snprintf(mine, sizeof(mine), "00000000000001%02d", r);
		snprintf(prev, sizeof(prev), "00000000000001%02d", p);
		snprintf(mm, sizeof(mm), "%d,%d", r < (r + 1) % 20 ? r : (r + 1) % 20, r < (r + 1) % 20 ? (r + 1) % 20 : r);
		snprintf(pm, sizeof(pm), "%d,%d", p < r ? p : r, p < r ? r : p);
		comm_count(x, mine, 2, mm, 1, "MPI_Bcast", "ring.c:10");
		comm_count(x, prev, 2, pm, 0, "MPI_Bcast", "ring.c:10");
		waits_in(x, mine, "MPI_Bcast", 1, "ring.c:10");
		json_array_append_new(s, x);
	}

	json_t *wf = waitfor_analyze(s);

	ck_assert_ptr_nonnull(wf);
	ck_assert_int_gt(json_array_size(json_object_get(wf, "faulty_ranks")), 0);
	json_decref(wf);
	json_decref(s);
}
END_TEST

/* An analysis that would name all 6 ranks, none certain: the report says it cannot separate
 * them and names the one rank outside the collective the 5 others are in, from the stacks. */
START_TEST(more_than_half_named_narrows_to_the_odd_position)
{
	json_t *s = json_array(), *wf = json_pack("{s:[]}", "culprits");

	for (int r = 0; r < 6; r++) {
		json_array_append_new(s, json_pack("{s:i, s:s, s:s, s:s}", "rank", r, "state", "IN_MPI", "mpi_call",
						   r == 5 ? "MPI_Reduce" : "MPI_Alltoall", "path",
						   r == 5 ? "main > MPI_Reduce" : "main > MPI_Alltoall"));
		json_array_append_new(json_object_get(wf, "culprits"),
				      json_pack("{s:i, s:s, s:s}", "rank", r, "evidence", "likely", "why", "in a cycle"));
	}

	json_t *groups = report_groups(s), *faulty = json_array();
	char *note = NULL;
	json_t *c = culprits_find(s, groups, faulty, wf, &note), *ranks = culprits_ranks(c);
	char *got = json_dumps(ranks, JSON_COMPACT);

	ck_assert_str_eq(got, "[5]");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c, 0), "evidence")), "stacks");
	ck_assert_ptr_nonnull(note);
	ck_assert_ptr_nonnull(strstr(note, "cannot separate ranks 0-5 (6 of the 6 live ranks)"));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(json_array_get(c, 0), "why")),
				     "rank 5 is the only rank outside MPI_Alltoall"));
	free(got);
	free(note);
	json_decref(ranks);
	json_decref(c);
	json_decref(faulty);
	json_decref(groups);
	json_decref(wf);
	json_decref(s);
}
END_TEST

Suite *waitfor_culprits_suite(void)
{
	Suite *s = suite_create("waitfor_culprits");
	TCase *t = tcase_create("order");

	tcase_add_test(t, cross_communicator_skip_names_the_rank_out_of_step);
	tcase_add_test(t, reordered_collectives_name_the_reordering_rank);
	tcase_add_test(t, bystanders_vote_through_the_communicator_of_the_same_collective);
	tcase_add_test(t, bystanders_with_two_fitting_communicators_vote_when_they_agree);
	tcase_add_test(t, grid_rows_vote_through_their_own_row);
	tcase_add_test(t, symmetric_cycle_names_both_sides);
	tcase_add_test(t, a_narrow_majority_is_only_likely);
	tcase_add_test(t, odd_member_of_a_cycle_with_a_full_table);
	tcase_add_test(t, an_envelope_in_the_table_is_exact);
	tcase_add_test(t, halo_receive_with_a_wrong_tag_names_the_receiver);
	tcase_add_test(t, halo_send_with_a_wrong_tag_names_the_sender);
	tcase_add_test(t, waitall_on_a_new_and_an_old_envelope_names_that_rank);
	tcase_add_test(t, an_undecided_large_send_waits_on_its_receiver);
	tcase_add_test(t, wildcard_receives_leave_a_large_send_undecided);
	tcase_add_test(t, more_positions_than_the_order_rule_reads);
	tcase_add_test(t, more_than_half_named_narrows_to_the_odd_position);
	suite_add_tcase(s, t);
	return s;
}
