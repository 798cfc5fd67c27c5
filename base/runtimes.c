/* SPDX-License-Identifier: BSD-3-Clause */
/* runtimes — the table (runtimes.h). An entry's lists end with NULL; a list left NULL is empty.
 * The order matters where prefixes overlap: a file name belongs to the first entry with a
 * matching prefix (parastack's own layer before MPI's "libmpi"). */
#include "runtimes.h"

#include <stdio.h>
#include <string.h>

#define LIST(...) ((const char *const[]){ __VA_ARGS__, NULL })

const struct runtime runtimes[] = {
	{
		/* The MPI standard's calls, wherever they are: parastack's recording layer (its
		 * MPI_* wrappers are the application's calls, its MPI_Test* the polling it does)
		 * and the Fortran bindings' names. */
		.name = "MPI",
		.word = "MPI",
		.comm_libs = LIST("libparastack-mpi"),
		.symbol_libs = LIST("libparastack-mpi.so"),
		.startup_syms = LIST("MPI_Init", "PMPI_Init", "MPI_Init_thread", "PMPI_Init_thread", "mpi_init_",
				     "pmpi_init_", "mpi_init_thread_", "pmpi_init_thread_"),
	},
	{
		.name = "MPICH",
		.word = "MPI",
		.comm_libs = LIST("libmpich", "libmpl.", "libmpifort"),
		.rank_libs = LIST("/libmpich"),
		.symbol_libs = LIST("libmpich.so", "libmpifort.so"),
		.startup_syms = LIST("MPID_Init", "MPIR_Init_thread"),
		.progress_syms = LIST("MPID_Progress_wait", "MPID_Progress_test", "MPIDI_CH3I_Progress",
				      "MPIDI_progress_test", "MPIDI_Progress_test", "MPIR_Progress_hook_exec_all"),
	},
	{
		.name = "Open MPI",
		.word = "MPI",
		.comm_libs = LIST("libmpi", "libpmpi", "libopen-pal", "libopen-rte", "libmca_common_", "mca_"),
		.rank_libs = LIST("/libmpi", "/libpmpi"),
		.symbol_libs = LIST("libmpi.so", "libopen-pal.so", "libmpi_mpifh.so", "libmpi_usempi"),
		.startup_syms = LIST("ompi_mpi_init", "ompi_init_f", "ompi_init_thread_f"),
		.progress_syms = LIST("opal_progress"),
		.body_prefix = "ompi_mpi_",
		.fortran_prefix = "ompi_",
		.fortran_suffix = "_f",
	},
	{
		/* The fabrics beneath MPI (UCX, libfabric, PSM, HCOLL, MXM): waiting in them is
		 * waiting in the MPI above. */
		.name = "MPI's fabric",
		.word = "MPI",
		.comm_libs = LIST("libucp", "libuct", "libucs", "libfabric", "libpsm", "libhcoll", "libmxm"),
		.symbol_libs = LIST("libucp.so", "libuct.so"),
		.progress_syms = LIST("ucp_worker_progress", "uct_worker_progress"),
	},
	{
		/* torch.distributed's CPU collectives (design.md §8.1): a training rank's process
		 * group thread runs each collective in gloo (waitRecv while a peer is missing) and
		 * DDP's backward waits for that thread. Start-up: the process group's full mesh
		 * with every rank. */
		.name = "gloo",
		.word = "gloo",
		.about = "gloo runs torch.distributed's collectives and send/recv",
		.comm_libs = LIST("libgloo"),
		.rank_libs = LIST("/libgloo"),
		.symbol_libs = LIST("libgloo.so"),
		.startup_prefixes = LIST("_ZN4c10d16ProcessGroupGlooC1E", "_ZN4c10d16ProcessGroupGlooC2E",
					 "_ZN4gloo10rendezvous7Context15connectFullMeshE"),
		.worker_frames = LIST("c10d::ProcessGroupGloo::runLoop"),
	},
	{
		/* torch.distributed itself: init_process_group's TCPStore (rank 0 waits for every
		 * worker, the others connect), under whichever backend. Its library holds the
		 * model's code too: no frame of it is waiting in communication. */
		.name = "torch.distributed",
		.word = "torch.distributed",
		.symbol_libs = LIST("libtorch_cpu.so"),
		.startup_prefixes = LIST("_ZN4c10d8TCPStoreC1E", "_ZN4c10d8TCPStoreC2E"),
	},
	{
		/* NCCL makes its communicator at the first collective. Its proxy threads poll in
		 * libnccl all the time, so only its network plugin's frames are waiting in it; a
		 * rank waiting for a collective waits in CUDA's synchronize, on its GPU. */
		.name = "NCCL",
		.word = "NCCL",
		.about = "NCCL runs torch.distributed's collectives on the GPUs",
		.comm_libs = LIST("libnccl-net"),
		.rank_libs = LIST("/libnccl"),
		.symbol_libs = LIST("libnccl.so"),
		.startup_syms = LIST("ncclCommInitRank", "pncclCommInitRank", "ncclCommInitAll", "pncclCommInitAll"),
		.worker_frames = LIST("ncclProxyService", "ncclProxyProgress", "ncclProxyServiceUDS",
				      "c10d::ProcessGroupNCCL::ncclCommWatchdog",
				      "c10d::ProcessGroupNCCL::heartbeatMonitor"),
	},
	{ .name = NULL },
};

static bool starts_with_one(const char *s, const char *const *list)
{
	for (int i = 0; list && list[i]; i++)
		if (!strncmp(s, list[i], strlen(list[i])))
			return true;
	return false;
}

static bool equals_one(const char *s, const char *const *list)
{
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

const struct runtime *runtime_named(const char *name)
{
	for (const struct runtime *r = runtimes; r->name; r++)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

const struct runtime *runtime_of_library(const char *file_name)
{
	for (const struct runtime *r = runtimes; r->name; r++)
		if (starts_with_one(file_name, r->comm_libs))
			return r;
	return NULL;
}

const struct runtime *runtime_of_rank_path(const char *path)
{
	for (const struct runtime *r = runtimes; r->name; r++)
		for (int i = 0; r->rank_libs && r->rank_libs[i]; i++)
			if (strstr(path, r->rank_libs[i]))
				return r;
	return NULL;
}

bool runtime_reads_symbols(const char *file_name)
{
	for (const struct runtime *r = runtimes; r->name; r++)
		if (starts_with_one(file_name, r->symbol_libs))
			return true;
	return false;
}

bool runtime_is_startup_symbol(const char *name)
{
	for (const struct runtime *r = runtimes; r->name; r++)
		if (equals_one(name, r->startup_syms) || starts_with_one(name, r->startup_prefixes))
			return true;
	return false;
}

bool runtime_is_progress_symbol(const char *name)
{
	for (const struct runtime *r = runtimes; r->name; r++)
		if (equals_one(name, r->progress_syms))
			return true;
	return false;
}

/* A frame's function is a worker's entry when it is one up to its parameter list
 * ("c10d::ProcessGroupGloo::runLoop(int)"). */
const struct runtime *runtime_of_worker_frame(const char *func)
{
	for (const struct runtime *r = runtimes; r->name; r++)
		for (int i = 0; r->worker_frames && r->worker_frames[i]; i++) {
			size_t n = strlen(r->worker_frames[i]);

			if (!strncmp(func, r->worker_frames[i], n) && (func[n] == '\0' || func[n] == '('))
				return r;
		}
	return NULL;
}

size_t runtime_mpi_stem(const char *name, const char **stem)
{
	size_t n = strlen(name);

	for (const struct runtime *r = runtimes; r->name; r++) {
		size_t bp = r->body_prefix ? strlen(r->body_prefix) : 0;
		size_t fp = r->fortran_prefix ? strlen(r->fortran_prefix) : 0;
		size_t fs = r->fortran_suffix ? strlen(r->fortran_suffix) : 0;

		if (bp && n > bp && !strncmp(name, r->body_prefix, bp)) {
			*stem = name + bp;
			return n - bp;
		}
		if (fp && fs && n > fp + fs && !strncmp(name, r->fortran_prefix, fp) &&
		    !strcmp(name + n - fs, r->fortran_suffix)) {
			*stem = name + fp;
			return n - fp - fs;
		}
	}
	return 0;
}

const char *runtime_about(const char *word)
{
	for (const struct runtime *r = runtimes; r->name && word; r++)
		if (r->about && !strcmp(r->word, word))
			return r->about;
	return NULL;
}

void runtime_rank_library_list(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (const struct runtime *r = runtimes; r->name; r++)
		for (int i = 0; r->rank_libs && r->rank_libs[i] && o < len; i++)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", r->rank_libs[i] + 1);
}
