/* SPDX-License-Identifier: BSD-3-Clause */
/* maps — the target's memory map (/proc/PID/maps) and what each mapping is: the MPI library
 * (its own shared objects, Open MPI's mca_* components, the fabrics under it), other runtime
 * libraries (libc, the loader, OpenMP, PMIx, libevent, hwloc, ...) or application code. The
 * sampler's hot question — is this instruction pointer inside MPI? — is a lookup here, with no
 * symbol table involved. */
#ifndef PARASTACK_MAPS_H
#define PARASTACK_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "modreg.h"

enum module_kind {
	MODULE_APP,     /* the executable or a library of the application */
	MODULE_MPI,     /* the MPI library and its components */
	MODULE_RUNTIME, /* system or MPI-runtime support: no application code */
};

struct mapping {
	uint64_t start, end, offset;
	uint64_t dev, ino; /* the file's device (major << 32 | minor) and inode; 0 for anonymous */
	int path_index;    /* into maps.mods, or -1 for anonymous mappings */
	bool read : 1, exec : 1, write : 1, shared : 1;
	/* The program or the C library (its loader too): where a walk that reached a thread's
	 * first frame (_start, a clone) ends. */
	bool stack_base : 1;
	uint8_t kind;      /* enum module_kind (a node holds hundreds of these per rank) */
};

/* A module whose functions' ranges a rank consults (modreg.h), and where that rank loaded it. */
struct sym_module {
	const struct module *mod;
	uint64_t bias; /* the rank's address of the file's address 0 */
	bool mpi;      /* its MPI_* functions count as MPI (an application module, static MPI) */
};

struct maps {
	pid_t pid;
	struct mapping *m;
	int len;
	/* Per path_index: the mapped file (modreg.h, shared by the ranks that map it). */
	struct module **mods;
	int npaths;
	/* Per path: may its file be opened (a regular file, as the target sees it)? Only those are
	 * handed to the unwinder and the symbol readers: a planted FIFO would block them. */
	bool *path_ok;
	char *exe; /* path of the main executable, or NULL */
	/* When it was read, in the order of maps_load calls: of two maps, the higher was read later. */
	uint64_t generation;
	/* The modules whose function ranges say what an address is: the MPI libraries that hold
	 * MPI_Init, the progress engines and the polling calls, and, when no MPI library is mapped
	 * (static MPI, Fortran bindings linked into the executable), the application's modules. */
	struct sym_module *syms;
	int nsyms;
};

/* One line of /proc/PID/maps: the mapping, and *name pointing at its path in line (cut at the
 * newline; "" for anonymous memory). 0, or -1 when the line is not one (for tests, fuzzing). */
int maps_parse_line(char *line, struct mapping *m, char **name);
/* Load the map of pid. 0, or -1 with errno. */
int maps_load(pid_t pid, struct maps *mp);
void maps_free(struct maps *mp);
/* The mapping containing addr, or NULL. */
const struct mapping *maps_find(const struct maps *mp, uint64_t addr);
const char *maps_path(const struct maps *mp, const struct mapping *m);
/* Where path index i has its file offset 0 mapped (its lowest such mapping), or 0. */
uint64_t maps_module_base(const struct maps *mp, int i);
/* The path of path index i (0 <= i < npaths). */
const char *maps_path_at(const struct maps *mp, int i);
/* Does an application module of mp hold MPI_* functions (static MPI)? */
bool maps_has_mpi_symbols(const struct maps *mp);
/* May the file behind mapping m be opened (see path_ok)? false for anonymous memory. */
bool maps_file_ok(const struct maps *mp, const struct mapping *m);
/* What code addr lies in: MODULE_MPI for an MPI module or an MPI_* symbol of an application
 * module, else the kind of its mapping; -1 when it is in no mapping. One lookup. */
int maps_kind_at(const struct maps *mp, uint64_t addr);
/* Is addr in MPI code? */
bool maps_in_mpi(const struct maps *mp, uint64_t addr);
/* Is addr inside MPI_Init (or MPI_Init_thread)? */
bool maps_in_init(const struct maps *mp, uint64_t addr);
/* Is addr inside one of the MPI library's progress engines? */
bool maps_in_progress_engine(const struct maps *mp, uint64_t addr);
/* Is addr inside one of MPI's polling calls (MPI_Test*, MPI_Iprobe, ...)? */
bool maps_in_polling_call(const struct maps *mp, uint64_t addr);

/* Is a file whose name starts with file_prefix mapped (a library loaded)? */
bool maps_has_module(const struct maps *mp, const char *file_prefix);
/* Address in the target of a dynamic symbol of the first mapped object whose file name starts
 * with file_prefix; 0 when there is none. */
uint64_t maps_symbol_address(const struct maps *mp, const char *file_prefix, const char *symbol);

/* Classify a shared object by its file name (exposed for tests and configuration). */
enum module_kind maps_classify_path(const char *path, const char *exe);
/* Extra MPI object name prefixes, colon-separated (from PARASTACK_MPI_LIBS). */
void maps_set_extra_mpi(const char *colon_list);

#endif
