/* SPDX-License-Identifier: BSD-3-Clause */
/* runtimes — the one table of communication runtimes (MPI's implementations, gloo, NCCL, the
 * fabrics beneath them): for each, the libraries that mark it, the frames that mean "starting"
 * or "progressing" in it, its worker threads, and the words a report uses for it. Sampling
 * (maps.c, modreg.c), discovery (discover.c, pidlist_check.c), capture and the report read it;
 * nothing else names a runtime. Adding one is one entry (runtimes.c) and its test
 * (test_runtimes.c). Pure lookups over constant strings: no allocation, no I/O. */
#ifndef PARASTACK_RUNTIMES_H
#define PARASTACK_RUNTIMES_H

#include <stdbool.h>
#include <stddef.h>

struct runtime {
	const char *name;  /* "Open MPI", "gloo": for people */
	const char *word;  /* what a report's sentences call waiting in it: "MPI", "gloo", "NCCL" */
	const char *about; /* why a rank waits in it, once in a diagnosis; NULL: nothing to add */
	/* Prefixes of the file names of its shared objects whose frames are waiting in it (a
	 * rank with a thread in one is IN_MPI: the state's name predates the other runtimes). */
	const char *const *comm_libs;
	/* Substrings of a mapped path that make a process carrying only SLURM_PROCID a rank:
	 * narrower than comm_libs (mpirun and orted map libopen-pal). */
	const char *const *rank_libs;
	/* Prefixes of the file names of the libraries whose symbols are read for start-up and
	 * progress calls (modreg.c): the ones holding MPI_Init or a progress engine. */
	const char *const *symbol_libs;
	const char *const *startup_syms;     /* exact names: a rank inside one is starting */
	const char *const *startup_prefixes; /* the same as prefixes (mangled C++ constructors) */
	const char *const *progress_syms;    /* its progress engines (design.md §4, the fingerprint) */
	/* Functions (demangled, up to the parameter list) that begin its worker threads: a rank
	 * whose waiting thread runs one is placed at its main thread, the worker folded under it. */
	const char *const *worker_frames;
	/* Its own names for MPI routines: a routine's body ("ompi_mpi_" + "finalize") and its
	 * Fortran bindings ("ompi_" + "recv" + "_f"). */
	const char *body_prefix, *fortran_prefix, *fortran_suffix;
};

/* The table, ending with an entry whose name is NULL. */
extern const struct runtime runtimes[];

/* The entry called name ("MPICH"), or NULL. */
const struct runtime *runtime_named(const char *name);
/* The runtime whose communication library file name (no directory) is, or NULL. */
const struct runtime *runtime_of_library(const char *file_name);
/* Does a mapped path (a line of /proc/PID/maps) make a process a rank (rank_libs)? */
const struct runtime *runtime_of_rank_path(const char *path);
/* Is file_name one whose symbols give start-up and progress calls (symbol_libs)? Its MPI_*
 * names are MPI calls only where MPI is linked into the program (maps.c decides). */
bool runtime_reads_symbols(const char *file_name);
bool runtime_is_startup_symbol(const char *name);
bool runtime_is_progress_symbol(const char *name);
/* The runtime a thread is a worker of, from one of its demangled frame names, or NULL. */
const struct runtime *runtime_of_worker_frame(const char *func);
/* The MPI routine a runtime's own function name stands for: its stem ("finalize" of
 * ompi_mpi_finalize, "recv" of ompi_recv_f) in *stem, and its length; 0 when it is none. */
size_t runtime_mpi_stem(const char *name, const char **stem);
/* The about of the first runtime called word that has one, or NULL. */
const char *runtime_about(const char *word);
/* The rank libraries of every runtime, for a message: "libmpi, libpmpi, libmpich, ...". */
void runtime_rank_library_list(char *buf, size_t len);

#endif
