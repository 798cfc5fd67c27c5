/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the report logic on synthetic snapshots: rank ranges, the slowdown test, faulty
 * ranks, grouping, the diagnosis, and the MPI API name of binding and internal functions. */
#include <string.h>

#include "../../monitor/sample/print/mpiname.h"
#include "../../base/ranges.h"
#include "../../monitor/hang/report.h"
#include "../../monitor/hang/report_summary.h"
#include "suites.h"

/* A rank object as capture.c makes them. */
static json_t *rank_obj(int rank, const char *state, const char *call, const char *path)
{
	return json_pack("{s:i, s:s, s:i, s:s, s:s?, s:s, s:[], s:b}", "rank", rank, "host", "n1",
			 "pid", 1000 + rank, "state", state, "mpi_call", call, "path", path, "frames",
			 "stopped", 0);
}

static json_t *snapshot(int n, const char *state0, const char *call0, const char *path0,
			const char *state, const char *call, const char *path)
{
	json_t *s = json_array();

	for (int r = 0; r < n; r++)
		json_array_append_new(s, r == 0 ? rank_obj(r, state0, call0, path0) :
						  rank_obj(r, state, call, path));
	return s;
}

/* Membership read in place (parastack view marks a tree node faulty with it): the ends of each
 * run, the gaps between, one huge run without expanding it, and text that is no list. */
START_TEST(ranges_contain_what_they_name)
{
	ck_assert(ranges_contains("0-2,4-7,9", 0));
	ck_assert(ranges_contains("0-2,4-7,9", 2));
	ck_assert(!ranges_contains("0-2,4-7,9", 3));
	ck_assert(ranges_contains("0-2,4-7,9", 7));
	ck_assert(ranges_contains("0-2,4-7,9", 9));
	ck_assert(!ranges_contains("0-2,4-7,9", 10));
	ck_assert(ranges_contains("0-99999", 54321));
	ck_assert(!ranges_contains("", 0));
	ck_assert(!ranges_contains(NULL, 0));
	ck_assert(!ranges_contains("a-3", 1));
	ck_assert(!ranges_contains("1;2", 2));
}
END_TEST

START_TEST(ranges_are_compact)
{
	char buf[128];
	int a[] = { 0, 1, 2, 4, 5, 6, 7, 9 }, b[] = { 3 }, c[] = { 1, 3, 5 };

	report_ranges(a, 8, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-2,4-7,9");
	report_ranges(b, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "3");
	report_ranges(c, 3, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1,3,5");
	report_ranges(a, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(mpi_api_names)
{
	char buf[64];

	ck_assert_str_eq(mpiname_of("PMPI_Allreduce", buf, sizeof(buf)), "MPI_Allreduce");
	ck_assert_str_eq(mpiname_of("MPI_Recv", buf, sizeof(buf)), "MPI_Recv");
	ck_assert_str_eq(mpiname_of("ompi_recv_f", buf, sizeof(buf)), "MPI_Recv");
	ck_assert_str_eq(mpiname_of("ompi_allreduce_f", buf, sizeof(buf)), "MPI_Allreduce");
	ck_assert_str_eq(mpiname_of("mpi_barrier_", buf, sizeof(buf)), "MPI_Barrier");
	ck_assert_str_eq(mpiname_of("pmpi_send__", buf, sizeof(buf)), "MPI_Send");
	ck_assert_str_eq(mpiname_of("ompi_mpi_finalize", buf, sizeof(buf)), "MPI_Finalize");
	ck_assert_ptr_null(mpiname_of("mca_pml_ob1_recv", buf, sizeof(buf)));
	ck_assert_ptr_null(mpiname_of("opal_progress", buf, sizeof(buf)));
}
END_TEST

START_TEST(movement_between_snapshots)
{
	char why[256];
	json_t *a = snapshot(4, "OUT_MPI", NULL, "main > spin", "IN_MPI", "MPI_Allreduce", "main > MPI_Allreduce");
	json_t *same = snapshot(4, "OUT_MPI", NULL, "main > spin", "IN_MPI", "MPI_Allreduce", "main > MPI_Allreduce");
	json_t *call_changed = snapshot(4, "OUT_MPI", NULL, "main > spin", "IN_MPI", "MPI_Bcast", "main > MPI_Bcast");
	json_t *back_to_app = snapshot(4, "OUT_MPI", NULL, "main > spin", "OUT_MPI", NULL, "main > compute");
	json_t *test_loop = snapshot(4, "OUT_MPI", NULL, "main > spin", "IN_MPI", "MPI_Test", "main > MPI_Test");
	json_t *test_out = snapshot(4, "OUT_MPI", NULL, "main > spin", "OUT_MPI", NULL, "main > poll");
	json_t *probe = snapshot(4, "OUT_MPI", NULL, "main > spin", "IN_MPI", "MPI_Iprobe", "main > MPI_Iprobe");

	ck_assert(!report_moved(a, same, why, sizeof(why)));
	ck_assert(report_moved(a, call_changed, why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "from MPI_Allreduce to MPI_Bcast"));
	ck_assert(report_moved(a, back_to_app, why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "returned from MPI_Allreduce"));
	/* Leaving MPI_Test for the loop around it is what a busy-wait does: not progress. */
	ck_assert(!report_moved(test_loop, test_out, why, sizeof(why)));
	ck_assert(!report_moved(test_loop, probe, why, sizeof(why)));
	json_decref(probe);
	json_decref(a), json_decref(same), json_decref(call_changed), json_decref(back_to_app);
	json_decref(test_loop), json_decref(test_out);
}
END_TEST

START_TEST(faulty_ranks_are_out_in_every_snapshot)
{
	json_t *s[5];

	for (int k = 0; k < 5; k++)
		s[k] = snapshot(6, "IN_MPI", "MPI_Allreduce", "main > MPI_Allreduce", "IN_MPI",
				"MPI_Allreduce", "main > MPI_Allreduce");
	/* Rank 3 out in all five, rank 4 out in four; rank 1 out in four and not sampled in one (a
	 * thread slow to stop): faulty, since that snapshot says nothing; rank 5 never sampled. */
	for (int k = 0; k < 5; k++) {
		json_array_set_new(s[k], 3, rank_obj(3, "OUT_MPI", NULL, "main > spin"));
		if (k != 2)
			json_array_set_new(s[k], 4, rank_obj(4, "OUT_MPI", NULL, "main > compute"));
		json_array_set_new(s[k], 1, rank_obj(1, k == 3 ? "UNKNOWN" : "OUT_MPI", NULL, "main > spin"));
		json_array_set_new(s[k], 5, rank_obj(5, "UNKNOWN", NULL, "(not sampled: test)"));
	}

	json_t *f = report_faulty(s, 5);

	ck_assert_int_eq(json_array_size(f), 2);
	ck_assert_int_eq(json_integer_value(json_array_get(f, 0)), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(f, 1)), 3);
	json_decref(f);
	for (int k = 0; k < 5; k++)
		json_decref(s[k]);
}
END_TEST

static bool diag_has(json_t *diag, const char *part)
{
	size_t i;
	json_t *v;

	json_array_foreach(diag, i, v)
		if (strstr(json_string_value(v), part))
			return true;
	return false;
}

START_TEST(groups_and_mismatched_collectives)
{
	json_t *s = snapshot(8, "IN_MPI", "MPI_Barrier", "main > MPI_Barrier", "IN_MPI",
			     "MPI_Allreduce", "main > solve > MPI_Allreduce");
	json_t *none = json_array();
	json_t *rep = report_build(s, none, 1700000000.5, json_object(), "test");
	json_t *groups = json_object_get(rep, "groups");

	ck_assert_int_eq(json_array_size(groups), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(groups, 0), "ranks")), "1-7");
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(groups, 0), "count")), 7);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(groups, 1), "ranks")), "0");
	ck_assert_str_eq(json_string_value(json_object_get(rep, "hang_type")), "communication");
	ck_assert(diag_has(json_object_get(rep, "diagnosis"), "mismatched collectives"));
	/* The next step points at the odd one out. */
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(rep, "next_step")), "gdb -p 1000"));
	json_decref(rep);
	json_decref(none);
	json_decref(s);
}
END_TEST

START_TEST(early_finalize_and_point_to_point_deadlock)
{
	json_t *fin = snapshot(4, "IN_MPI", "MPI_Finalize", "main > MPI_Finalize", "IN_MPI",
			       "MPI_Sendrecv", "main > exchange > MPI_Sendrecv");
	json_t *p2p = snapshot(4, "IN_MPI", "MPI_Recv", "main > MPI_Recv", "IN_MPI", "MPI_Sendrecv",
			       "main > exchange > MPI_Sendrecv");
	json_t *none = json_array();
	json_t *groups = report_groups(fin), *d1 = report_diagnose(fin, groups, none);

	ck_assert(diag_has(d1, "already called MPI_Finalize"));
	json_decref(groups);
	groups = report_groups(p2p);

	json_t *d2 = report_diagnose(p2p, groups, none);

	ck_assert(diag_has(d2, "point-to-point communication"));
	ck_assert(!diag_has(d2, "mismatched collectives"));
	json_decref(d1), json_decref(d2), json_decref(groups), json_decref(none);
	json_decref(fin), json_decref(p2p);
}
END_TEST

START_TEST(ranks_in_gloo_are_not_called_point_to_point)
{
	/* torch.distributed: rank 0 waits in dist.recv, the others in the all-reduce, all in gloo. */
	json_t *snap = snapshot(4, "IN_MPI", "libgloo.so.0.5.0", "main (train.py:76) > libgloo.so.0.5.0",
				"IN_MPI", "libgloo.so.0.5.0",
				"runLoop > AsyncWork::execute > libgloo.so.0.5.0");
	json_t *none = json_array(), *groups = report_groups(snap), *d = report_diagnose(snap, groups, none);

	ck_assert(diag_has(d, "ranks wait in gloo (libgloo.so.0.5.0), not at a call it names: gloo runs"));
	ck_assert(!diag_has(d, "point-to-point communication"));
	ck_assert(!diag_has(d, "mismatched collectives"));
	json_decref(d), json_decref(groups), json_decref(none), json_decref(snap);
}
END_TEST

START_TEST(computation_hang_names_the_rank)
{
	json_t *s = snapshot(4, "IN_MPI", "MPI_Allreduce", "main > MPI_Allreduce", "IN_MPI",
			     "MPI_Allreduce", "main > MPI_Allreduce");
	json_t *frames = json_pack("[{s:s, s:s, s:i, s:b}]", "func", "spin", "file", "app.c", "line",
				   42, "in_mpi", 0);
	json_t *r2 = rank_obj(2, "OUT_MPI", NULL, "main > spin");

	json_object_set_new(r2, "frames", frames);
	json_array_set_new(s, 2, r2);

	json_t *faulty = json_pack("[i]", 2);
	json_t *rep = report_build(s, faulty, 1.0, json_object(), "test");

	ck_assert_str_eq(json_string_value(json_object_get(rep, "hang_type")), "computation");
	ck_assert(diag_has(json_object_get(rep, "diagnosis"), "rank 2 (host n1, pid 1002) stays in application code"));
	ck_assert(diag_has(json_object_get(rep, "diagnosis"), "spin (app.c:42)"));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(rep, "next_step")), "gdb -p 1002"));
	json_decref(rep), json_decref(faulty), json_decref(s);
}
END_TEST

/* Issue 68: the others wait in MPI_Init, one has not arrived: named so, at its frame; in a
 * training job, rank 0 waiting out of gloo inside the TCPStore (in_init) is no culprit, and the
 * start-up is init_process_group. */
START_TEST(a_rank_not_yet_in_the_start_up_is_named_so)
{
	json_t *s = snapshot(4, "IN_MPI", "MPI_Init", "main > MPI_Init", "IN_MPI", "MPI_Init", "main > MPI_Init");
	json_t *r3 = rank_obj(3, "OUT_MPI", NULL, "main > read_input > read");
	json_t *faulty, *rep;
	size_t i;
	json_t *r;

	json_array_foreach(s, i, r)
		json_object_set_new(r, "in_init", json_true());
	json_object_set_new(r3, "frames", json_pack("[{s:s, s:s, s:i, s:b}]", "func", "read_input", "file", "app.c",
						    "line", 12, "in_mpi", 0));
	json_array_set_new(s, 3, r3);
	faulty = report_faulty(&s, 1);
	ck_assert(json_array_size(faulty) == 1 && json_integer_value(json_array_get(faulty, 0)) == 3);
	rep = report_build(s, faulty, 1.0, json_object(), "test");
	ck_assert(diag_has(json_object_get(rep, "diagnosis"),
			   "rank 3 (host n1, pid 1003) has not reached MPI_Init: it waits at read_input (app.c:12)"));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(json_array_get(json_object_get(rep, "culprits"), 0), "why")),
				     "it has not reached MPI_Init"));
	json_decref(rep), json_decref(faulty);

	/* Torch: rank 0 out of the runtime in the TCPStore, ranks 1-2 in gloo's rendezvous. */
	json_array_foreach(s, i, r)
		if (i < 3)
			json_object_set_new(r, "runtime", json_string("gloo"));
	json_object_set_new(json_array_get(s, 0), "state", json_string("OUT_MPI"));
	json_object_set_new(json_array_get(s, 0), "mpi_call", json_null());
	faulty = report_faulty(&s, 1);
	ck_assert(json_array_size(faulty) == 1 && json_integer_value(json_array_get(faulty, 0)) == 3);
	rep = report_build(s, faulty, 1.0, json_object(), "test");
	ck_assert(diag_has(json_object_get(rep, "diagnosis"), "has not reached init_process_group"));
	json_decref(rep), json_decref(faulty);

	/* Torch with rank 0 (the TCPStore's host) not there: the others retry their connect in
	 * the TCPStore, out of any call. */
	json_array_foreach(s, i, r) {
		json_object_set_new(r, "state", json_string("OUT_MPI"));
		json_object_set_new(r, "mpi_call", json_null());
		json_object_del(r, "runtime");
	}
	faulty = report_faulty(&s, 1);
	ck_assert(json_array_size(faulty) == 1 && json_integer_value(json_array_get(faulty, 0)) == 3);
	rep = report_build(s, faulty, 1.0, json_object(), "test");
	ck_assert(diag_has(json_object_get(rep, "diagnosis"), "has not reached init_process_group"));
	json_decref(rep), json_decref(faulty);

	/* Not a start-up: one waiting rank outside MPI_Init. */
	json_object_del(json_array_get(s, 1), "in_init");
	faulty = json_pack("[i]", 3);
	rep = report_build(s, faulty, 1.0, json_object(), "test");
	ck_assert(diag_has(json_object_get(rep, "diagnosis"), "stays in application code"));
	json_decref(rep), json_decref(faulty), json_decref(s);
}
END_TEST

/* A rank sleeping in libc: the position is its own innermost frame, with the library call. */
START_TEST(position_is_the_application_frame)
{
	json_t *s = snapshot(3, "IN_MPI", "MPI_Allreduce", "main > MPI_Allreduce", "IN_MPI",
			     "MPI_Allreduce", "main > MPI_Allreduce");
	json_t *r1 = rank_obj(1, "OUT_MPI", NULL, "main > faulty_sleep > pause");

	json_object_set_new(r1, "frames", json_pack("[{s:s, s:s, s:i, s:s, s:b}, {s:s, s:s, s:i, s:s, s:b}]",
						    "func", "pause", "file", "../sysdeps/unix/sysv/linux/pause.c",
						    "line", 29, "module", "libc.so.6", "in_mpi", 0, "func",
						    "faulty_sleep", "file", "faults.h", "line", 132, "module",
						    "stencil", "in_mpi", 0));
	json_array_set_new(s, 1, r1);

	json_t *faulty = json_pack("[i]", 1);
	json_t *rep = report_build(s, faulty, 1.0, json_object(), "test");

	ck_assert(diag_has(json_object_get(rep, "diagnosis"), "at faulty_sleep (faults.h:132), in pause (libc.so.6)"));
	json_decref(rep), json_decref(faulty), json_decref(s);
}
END_TEST

/* A code built without -g (Debian's LAMMPS): no frame has a position, so the innermost named
 * frame of the code and its module say where the rank stays (the report said "at application
 * code"); a position further out still wins, and a nameless frame is passed over. */
START_TEST(position_without_debug_info_is_the_function_and_module)
{
	json_t *s = snapshot(3, "IN_MPI", "MPI_Send", "main > MPI_Send", "IN_MPI", "MPI_Send",
			     "main > MPI_Send");
	json_t *r1 = rank_obj(1, "OUT_MPI", NULL, "main > LAMMPS_NS::PairLJCut::compute(int, int)");
	json_t *r2 = rank_obj(2, "OUT_MPI", NULL, "main > compute > nanosleep");

	json_object_set_new(r1, "frames", json_pack("[{s:s, s:b}, {s:s, s:s, s:b}, {s:s, s:s, s:b}]",
						    "module", "liblammps.so.0", "in_mpi", 0,
						    "func", "LAMMPS_NS::PairLJCut::compute(int, int)",
						    "module", "liblammps.so.0", "in_mpi", 0,
						    "func", "main", "module", "lmp", "in_mpi", 0));
	json_object_set_new(r2, "frames", json_pack("[{s:s, s:s, s:b}, {s:s, s:s, s:b}, {s:s, s:s, s:i, s:s, s:b}]",
						    "func", "nanosleep", "module", "libc.so.6", "in_mpi", 0,
						    "func", "compute", "module", "app", "in_mpi", 0,
						    "func", "main", "file", "app.c", "line", 12,
						    "module", "app", "in_mpi", 0));
	json_array_set_new(s, 1, r1);
	json_array_set_new(s, 2, r2);

	json_t *faulty = json_pack("[i, i]", 1, 2);
	json_t *rep = report_build(s, faulty, 1.0, json_object(), "test");
	json_t *diag = json_object_get(rep, "diagnosis");

	ck_assert(diag_has(diag, "rank 1 (host n1, pid 1001) stays in application code in every snapshot, "
			   "at LAMMPS_NS::PairLJCut::compute(int, int) (liblammps.so.0)"));
	ck_assert(diag_has(diag, "at main (app.c:12), in nanosleep (libc.so.6)"));
	ck_assert(!diag_has(diag, "at application code"));
	json_decref(rep), json_decref(faulty), json_decref(s);

	/* CP2K (stripped): its nameless frames folded under the module's name, said once */
	s = snapshot(2, "IN_MPI", "MPI_Sendrecv", "main > MPI_Sendrecv", "OUT_MPI", NULL,
		     "main > GOMP_parallel > cp2k.psmp (2 frames)");
	json_object_set_new(json_array_get(s, 1), "frames",
			    json_pack("[{s:s, s:s, s:b}, {s:s, s:s, s:b}]", "func", "cp2k.psmp (2 frames)",
				      "module", "cp2k.psmp", "in_mpi", 0, "func", "GOMP_parallel",
				      "module", "libgomp.so.1.0.0", "in_mpi", 0));
	faulty = json_pack("[i]", 1);
	rep = report_build(s, faulty, 1.0, json_object(), "test");
	ck_assert(diag_has(json_object_get(rep, "diagnosis"), "in every snapshot, at cp2k.psmp (2 frames)"));
	ck_assert(!diag_has(json_object_get(rep, "diagnosis"), "(2 frames) (cp2k.psmp)"));
	json_decref(rep), json_decref(faulty), json_decref(s);
}
END_TEST

/* The merged stack tree: each distinct path once, shared frames with the union of ranks. */
START_TEST(stack_tree_merges_paths)
{
	json_t *s = snapshot(4, "IN_MPI", "MPI_Recv", "main > solve > MPI_Recv", "IN_MPI",
			     "MPI_Allreduce", "main > solve > MPI_Allreduce");
	json_t *r3 = rank_obj(3, "OUT_MPI", NULL, "main > spin");

	json_array_set_new(s, 3, r3);

	json_t *faulty = json_pack("[i]", 3);
	json_t *rep = report_build(s, faulty, 1.0, json_object(), "test");
	json_t *tree = json_object_get(rep, "tree"), *main_node = json_array_get(tree, 0);
	json_t *solve = json_array_get(json_object_get(main_node, "children"), 0);

	ck_assert_int_eq(json_array_size(tree), 1);
	ck_assert_str_eq(json_string_value(json_object_get(main_node, "frame")), "main");
	ck_assert_str_eq(json_string_value(json_object_get(main_node, "ranks")), "0-3");
	ck_assert_str_eq(json_string_value(json_object_get(solve, "frame")), "solve");
	ck_assert_str_eq(json_string_value(json_object_get(solve, "ranks")), "0-2");
	ck_assert_int_eq(json_array_size(json_object_get(solve, "children")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(main_node, "children"), 1),
							   "ranks")), "3");
	json_decref(rep), json_decref(faulty), json_decref(s);
}
END_TEST

/* Three snapshots of nranks ranks waiting in MPI_Sendrecv, with `special` (consumed) in place of
 * the rank it describes in each. */
static void snapshots_with(json_t *snaps[3], int nranks, json_t *special)
{
	size_t at = (size_t)json_integer_value(json_object_get(special, "rank"));

	for (int k = 0; k < 3; k++) {
		snaps[k] = snapshot(nranks, "IN_MPI", "MPI_Sendrecv", "main > MPI_Sendrecv", "IN_MPI",
				    "MPI_Sendrecv", "main > MPI_Sendrecv");
		json_array_set_new(snaps[k], at, json_deep_copy(special));
	}
	json_decref(special);
}

START_TEST(dead_rank_is_named_with_its_signal)
{
	json_t *snaps[3], *rep, *faulty, *dead = rank_obj(2, "EXITED", NULL, "(exited)");

	json_object_set_new(dead, "exit", json_string("killed by signal 9 (SIGKILL)"));
	snapshots_with(snaps, 4, dead);
	faulty = report_faulty(snaps, 3);
	ck_assert_int_eq(json_array_size(faulty), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(faulty, 0)), 2);
	rep = report_build(snaps[2], faulty, 1.0, json_object(), "test");
	ck_assert_str_eq(json_string_value(json_object_get(rep, "hang_type")), "communication");
	ck_assert_int_eq(json_array_size(json_object_get(rep, "dead_ranks")), 1);
	ck_assert(diag_has(json_object_get(rep, "diagnosis"), "rank 2 (host n1, pid 1002) died: killed by signal 9 (SIGKILL)"));
	/* Nothing to debug in a dead rank: the next step points at a live one. */
	ck_assert_ptr_null(strstr(json_string_value(json_object_get(rep, "next_step")), "gdb -p 1002"));
	json_decref(rep), json_decref(faulty);
	for (int k = 0; k < 3; k++)
		json_decref(snaps[k]);
}
END_TEST

START_TEST(frozen_rank_is_faulty_even_in_mpi)
{
	json_t *snaps[3], *rep, *faulty, *frozen = rank_obj(1, "IN_MPI", "MPI_Sendrecv", "main > MPI_Sendrecv");

	json_object_set_new(frozen, "stopped", json_true());
	snapshots_with(snaps, 3, frozen);
	faulty = report_faulty(snaps, 3);
	ck_assert_int_eq(json_array_size(faulty), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(faulty, 0)), 1);
	rep = report_build(snaps[2], faulty, 1.0, json_object(), "test");
	ck_assert_str_eq(json_string_value(json_object_get(rep, "hang_type")), "computation");
	ck_assert(diag_has(json_object_get(rep, "diagnosis"), "rank 1 (host n1, pid 1001) is stopped (SIGSTOP"));
	json_decref(rep), json_decref(faulty);
	for (int k = 0; k < 3; k++)
		json_decref(snaps[k]);
}
END_TEST

/* 600 groups waiting in alternating collectives, with long call paths from the watched binary:
 * the text of the mismatch sentence grows with them (it once overran a 1 KiB stack buffer). */
START_TEST(many_groups_in_collectives_are_bounded_by_nothing)
{
	json_t *s = json_array(), *none = json_array();
	char path[300];

	for (int r = 0; r < 600; r++) {
		snprintf(path, sizeof(path), "main > solver_%d_%0200d > %s", r, 0,
			 r % 2 ? "MPI_Barrier" : "MPI_Allreduce");
		json_array_append_new(s, rank_obj(r, "IN_MPI", r % 2 ? "MPI_Barrier" : "MPI_Allreduce", path));
	}

	json_t *rep = report_build(s, none, 1700000000.5, json_object(), "test");
	json_t *diag = json_object_get(rep, "diagnosis");
	size_t i;
	json_t *d;
	size_t longest = 0;

	ck_assert_int_eq(json_array_size(json_object_get(rep, "groups")), 600);
	ck_assert(diag_has(diag, "mismatched collectives"));
	json_array_foreach(diag, i, d)
		if (strlen(json_string_value(d)) > longest)
			longest = strlen(json_string_value(d));
	ck_assert_uint_gt(longest, 4096); /* every group named, not cut */
	json_decref(rep);
	json_decref(none);
	json_decref(s);
}
END_TEST

/* Every other rank of 4,000 in one group: its ranges are longer than any fixed buffer. */
START_TEST(scattered_ranks_keep_every_range)
{
	json_t *s = json_array();

	for (int r = 0; r < 4000; r++)
		json_array_append_new(s, rank_obj(r, "IN_MPI", r % 2 ? "MPI_Recv" : "MPI_Send",
						  r % 2 ? "main > MPI_Recv" : "main > MPI_Send"));

	json_t *groups = report_groups(s);
	const char *ranges = json_string_value(json_object_get(json_array_get(groups, 0), "ranks"));

	ck_assert_ptr_nonnull(strstr(ranges, ",3998"));
	json_decref(groups);
	json_decref(s);
}
END_TEST

/* A rank in uninterruptible sleep in every snapshot: an io hang, with its wait channel. */
START_TEST(rank_in_the_kernel_is_an_io_hang)
{
	json_t *s = snapshot(4, "IN_MPI", "MPI_Recv", "main > MPI_Recv", "IN_MPI", "MPI_Recv",
			     "main > MPI_Recv");
	json_t *r2 = json_array_get(s, 2);
	char what[256];

	json_object_set_new(r2, "state", json_string("OUT_MPI"));
	json_object_set_new(r2, "in_kernel", json_true());
	json_object_set_new(r2, "wchan", json_string("nfs_wait_bit_killable"));

	json_t *faulty = report_faulty(&s, 1);
	json_t *rep = report_build(s, faulty, 1700000000.5, json_object(), "test");

	ck_assert_str_eq(json_string_value(json_object_get(rep, "hang_type")), "io");
	ck_assert(diag_has(json_object_get(rep, "diagnosis"), "wait channel nfs_wait_bit_killable"));
	ck_assert(!diag_has(json_object_get(rep, "diagnosis"), "point-to-point communication"));
	report_summary(s, what, sizeof(what));
	ck_assert_str_eq(what, "rank 2 blocked in the kernel (uninterruptible sleep)");
	json_decref(rep), json_decref(faulty), json_decref(s);
}
END_TEST

/* A report of a huge job, as report.c could build it: every part far past what a screen holds. */
static json_t *huge_report(void)
{
	json_t *r = json_pack("{s:s, s:s, s:f}", "verdict", "hang", "hang_type", "communication", "detected_at",
			      1795672291.5);
	json_t *faulty = json_array(), *culprits = json_array(), *groups = json_array(), *ranks = json_array();
	json_t *diagnosis = json_array(), *tree = json_array();
	char longtext[5000], path[300];

	memset(longtext, 'x', sizeof(longtext) - 1);
	longtext[sizeof(longtext) - 1] = '\0';
	for (int k = 0; k < 5000; k++) {
		json_t *o;

		json_array_append_new(faulty, json_integer(2 * k));
		json_array_append_new(culprits, json_pack("{s:i, s:s, s:s}", "rank", 2 * k, "evidence", "likely", "why",
							  longtext));
		snprintf(path, sizeof(path), "main > phase_%d > MPI_Recv", k);
		o = rank_obj(2 * k, "IN_MPI", "MPI_Recv", path);
		for (int f = 0; f < (k < 10 ? 30 : 0); f++) /* only the first are printed */
			json_array_append_new(json_object_get(o, "frames"),
					      json_pack("{s:s, s:s, s:i, s:s}", "func", longtext + 4000, "file", "a.c", "line",
							f, "module", "app"));
		json_object_set_new(o, "record_unreadable", json_string("it says it is rank -1"));
		json_array_append_new(ranks, o);
		json_array_append_new(ranks, rank_obj(2 * k + 1, "IN_MPI", "MPI_Barrier", "main > MPI_Barrier"));
		json_array_append_new(groups, json_pack("{s:s, s:i, s:s, s:s}", "ranks", longtext + 4500, "count", 2,
							"state", "IN_MPI", "path", longtext));
		json_array_append_new(diagnosis, json_string(longtext));
		json_array_append_new(tree, json_pack("{s:s, s:s, s:i, s:[]}", "frame", longtext + 10 * (k % 400),
						      "ranks", "0-9999", "count", 10000, "children"));
	}
	json_object_set_new(r, "faulty_ranks", faulty);
	json_object_set_new(r, "culprits", culprits);
	json_object_set_new(r, "groups", groups);
	json_object_set_new(r, "ranks", ranks);
	json_object_set_new(r, "diagnosis", diagnosis);
	json_object_set_new(r, "tree", tree);
	json_object_set_new(r, "culprits_note", json_string(longtext));
	json_object_set_new(r, "next_step", json_string("gdb -p 1000"));
	json_object_set_new(r, "action", json_string("reported"));
	return r;
}

START_TEST(text_report_is_bounded_whatever_the_job)
{
	json_t *r = huge_report();
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int lines = 0, longest = 0;

	ck_assert_ptr_nonnull(out);
	report_print(out, r);
	fclose(out);
	for (char *p = text, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);

		lines++;
		longest = n > longest ? n : longest;
	}
	ck_assert_int_le(lines, REPORT_TEXT_MAX_LINES);
	ck_assert_int_le(longest, REPORT_TEXT_MAX_LINE);
	/* What was left out is said, not dropped. */
	ck_assert_ptr_nonnull(strstr(text, "… and 4992 more (every culprit"));
	ck_assert_ptr_nonnull(strstr(text, "more groups (the JSON report has them all)"));
	ck_assert_ptr_nonnull(strstr(text, "more (the JSON report's diagnosis has them all)"));
	ck_assert_ptr_nonnull(strstr(text, "4996 more faulty rank(s): their frames are in the JSON report"));
	ck_assert_ptr_nonnull(strstr(text, "4996 more ranks' records are unreadable"));
	ck_assert_ptr_nonnull(strstr(text, "(cut: the JSON report has it whole)"));
	free(text);
	json_decref(r);
}
END_TEST

/* Issue 39: a 10,000-rank job's JSON report as a summary keeps the faulty rank and the first
 * of each group in full, and counts the others; "all" keeps every rank. */
START_TEST(json_report_summary_keeps_the_faulty_and_one_per_group)
{
	json_t *snap = json_array(), *faulty = json_array(), *r;

	for (int k = 0; k < 10000; k++)
		json_array_append_new(snap, k == 7777 ? rank_obj(k, "OUT_MPI", NULL, "main > compute") :
					    rank_obj(k, "IN_MPI", "MPI_Allreduce", k % 2 ? "main > a > MPI_Allreduce" :
											  "main > b > MPI_Allreduce"));
	json_array_append_new(faulty, json_integer(7777));
	r = report_build(snap, faulty, 0, json_object(), "none");
	report_summarize(r, false);
	ck_assert_str_eq(json_string_value(json_object_get(r, "ranks_detail")), "summary");

	json_t *ranks = json_object_get(r, "ranks");
	size_t i;
	json_t *v;
	bool has_faulty = false;

	ck_assert_int_le(json_array_size(ranks), 4);
	json_array_foreach(ranks, i, v)
		has_faulty |= json_integer_value(json_object_get(v, "rank")) == 7777;
	ck_assert(has_faulty);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "ranks_omitted")), 10000 - (json_int_t)json_array_size(ranks));
	json_decref(r);
	r = report_build(snap, faulty, 0, json_object(), "none");
	report_summarize(r, true);
	ck_assert_int_eq(json_array_size(json_object_get(r, "ranks")), 10000);
	ck_assert_str_eq(json_string_value(json_object_get(r, "ranks_detail")), "all");
	json_decref(r);
	json_decref(faulty);
	json_decref(snap);
}
END_TEST

Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, ranges_are_compact);
	tcase_add_test(tc, ranges_contain_what_they_name);
	tcase_add_test(tc, mpi_api_names);
	tcase_add_test(tc, movement_between_snapshots);
	tcase_add_test(tc, faulty_ranks_are_out_in_every_snapshot);
	tcase_add_test(tc, groups_and_mismatched_collectives);
	tcase_add_test(tc, early_finalize_and_point_to_point_deadlock);
	tcase_add_test(tc, ranks_in_gloo_are_not_called_point_to_point);
	tcase_add_test(tc, computation_hang_names_the_rank);
	tcase_add_test(tc, a_rank_not_yet_in_the_start_up_is_named_so);
	tcase_add_test(tc, dead_rank_is_named_with_its_signal);
	tcase_add_test(tc, frozen_rank_is_faulty_even_in_mpi);
	tcase_add_test(tc, many_groups_in_collectives_are_bounded_by_nothing);
	tcase_add_test(tc, scattered_ranks_keep_every_range);
	tcase_add_test(tc, rank_in_the_kernel_is_an_io_hang);
	tcase_add_test(tc, stack_tree_merges_paths);
	tcase_add_test(tc, position_is_the_application_frame);
	tcase_add_test(tc, position_without_debug_info_is_the_function_and_module);
	tcase_add_test(tc, text_report_is_bounded_whatever_the_job);
	tcase_add_test(tc, json_report_summary_keeps_the_faulty_and_one_per_group);
	suite_add_tcase(s, tc);
	return s;
}
