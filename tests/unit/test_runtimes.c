/* SPDX-License-Identifier: BSD-3-Clause */
/* runtimes — the one table of communication runtimes (issue 67): each runtime's libraries,
 * start-up and progress calls and worker threads found through it, and what no runtime owns
 * left alone. A runtime added to the table gets its row here. */
#include <check.h>
#include <string.h>

#include "suites.h"
#include "../../monitor/sample/addr/maps.h"
#include "../../base/runtimes.h"

static const char *word_of(const char *file)
{
	const struct runtime *r = runtime_of_library(file);

	return r ? r->word : NULL;
}

START_TEST(libraries_name_their_runtime)
{
	static const struct { const char *file, *word, *name; } rows[] = {
		{ "libmpi.so.40.30.5", "MPI", "Open MPI" },
		{ "libopen-pal.so.40", "MPI", "Open MPI" },
		{ "mca_pml_ob1.so", "MPI", "Open MPI" },
		{ "libmpich.so.12.3.0", "MPI", "MPICH" },
		{ "libmpifort.so.12", "MPI", "MPICH" },
		{ "libucp.so.0", "MPI", "MPI's fabric" },
		{ "libparastack-mpi.so", "MPI", "MPI" },
		{ "libgloo.so.0.5.0", "gloo", "gloo" },
		{ "libnccl-net.so", "NCCL", "NCCL" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct runtime *r = runtime_of_library(rows[i].file);

		ck_assert_msg(r, "%s: no runtime", rows[i].file);
		ck_assert_str_eq(r->word, rows[i].word);
		ck_assert_str_eq(r->name, rows[i].name);
		ck_assert_int_eq(maps_classify_path(rows[i].file, NULL), MODULE_MPI);
	}
	/* NCCL's own library polls in its proxy threads all the time; torch's holds the model. */
	ck_assert_ptr_null(word_of("libnccl.so.2.18.3"));
	ck_assert_ptr_null(word_of("libtorch_cpu.so.1.13.0"));
	ck_assert_ptr_null(word_of("libc.so.6"));
	ck_assert_ptr_null(word_of("libapp.so"));
}
END_TEST

START_TEST(rank_libraries_make_ranks)
{
	ck_assert_ptr_nonnull(runtime_of_rank_path("7f00-7f10 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libmpi.so.40"));
	ck_assert_ptr_nonnull(runtime_of_rank_path("/usr/lib/x86_64-linux-gnu/libmpich.so.12"));
	ck_assert_str_eq(runtime_of_rank_path("/usr/lib/x86_64-linux-gnu/libgloo.so.0.5.0")->word, "gloo");
	ck_assert_str_eq(runtime_of_rank_path("/site-packages/nvidia/nccl/lib/libnccl.so.2")->word, "NCCL");
	/* mpirun and orted map Open MPI's support libraries: no rank for that. */
	ck_assert_ptr_null(runtime_of_rank_path("/usr/lib/x86_64-linux-gnu/libopen-pal.so.40"));
	ck_assert_ptr_null(runtime_of_rank_path("/usr/lib/x86_64-linux-gnu/libc.so.6"));

	char list[200];

	runtime_rank_library_list(list, sizeof(list));
	ck_assert_str_eq(list, "libmpich, libmpi, libpmpi, libgloo, libnccl");
}
END_TEST

START_TEST(calls_and_workers)
{
	ck_assert(runtime_is_startup_symbol("MPI_Init"));
	ck_assert(runtime_is_startup_symbol("ompi_mpi_init"));
	ck_assert(runtime_is_startup_symbol("MPIR_Init_thread"));
	ck_assert(runtime_is_startup_symbol("_ZN4c10d8TCPStoreC1ERKSsRKNS_15TCPStoreOptionsE"));
	ck_assert(runtime_is_startup_symbol("_ZN4gloo10rendezvous7Context15connectFullMeshERNS0_5StoreERSt10shared_ptrINS_9transport6DeviceEE"));
	ck_assert(runtime_is_startup_symbol("ncclCommInitRank"));
	ck_assert(!runtime_is_startup_symbol("MPI_Init_"));
	ck_assert(!runtime_is_startup_symbol("MPI_Allreduce"));
	ck_assert(runtime_is_progress_symbol("opal_progress"));
	ck_assert(runtime_is_progress_symbol("MPID_Progress_wait"));
	ck_assert(runtime_is_progress_symbol("ucp_worker_progress"));
	ck_assert(!runtime_is_progress_symbol("opal_progress_set_event_flag"));
	ck_assert(runtime_reads_symbols("libmpi.so.40"));
	ck_assert(runtime_reads_symbols("libtorch_cpu.so.1.13.0"));
	ck_assert(runtime_reads_symbols("libnccl.so.2"));
	ck_assert(!runtime_reads_symbols("libc.so.6"));

	ck_assert_str_eq(runtime_of_worker_frame("c10d::ProcessGroupGloo::runLoop(int)")->word, "gloo");
	ck_assert_str_eq(runtime_of_worker_frame("c10d::ProcessGroupNCCL::ncclCommWatchdog()")->word, "NCCL");
	ck_assert_str_eq(runtime_of_worker_frame("ncclProxyService")->word, "NCCL");
	ck_assert_ptr_null(runtime_of_worker_frame("c10d::ProcessGroupGloo::runLoopX(int)"));
	ck_assert_ptr_null(runtime_of_worker_frame("main"));
	ck_assert_str_eq(runtime_about("gloo"), "gloo runs torch.distributed's collectives and send/recv");
	ck_assert_ptr_null(runtime_about("MPI"));
	ck_assert_ptr_null(runtime_about(NULL));
}
END_TEST

/* Every entry is whole: a name, a word, and no list without its end. */
START_TEST(entries_are_whole)
{
	int n = 0;

	for (const struct runtime *r = runtimes; r->name; r++, n++) {
		ck_assert_msg(r->word && *r->word, "%s: no word", r->name);
		for (int i = 0; r->comm_libs && r->comm_libs[i]; i++)
			ck_assert_str_ne(r->comm_libs[i], "");
	}
	ck_assert_int_ge(n, 6);
}
END_TEST

Suite *runtimes_suite(void)
{
	Suite *s = suite_create("runtimes");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, libraries_name_their_runtime);
	tcase_add_test(tc, rank_libraries_make_ranks);
	tcase_add_test(tc, calls_and_workers);
	tcase_add_test(tc, entries_are_whole);
	suite_add_tcase(s, tc);
	return s;
}
