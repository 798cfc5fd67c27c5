/* SPDX-License-Identifier: BSD-3-Clause */
/* install_paths — where an installed parastack finds its parts at run time, from what the build
 * was configured with (the Makefile's BINDIR, LIBDIR, SYSCONFDIR, MPIRUN, SLURM; build/gen/
 * config.h): the recording layer and task prolog (LIBDIR/parastack), the site's default options
 * (SYSCONFDIR/options), the launcher of the monitors; and --version, which says all of it.
 * The layer is found from the running program by the configured path between the two
 * directories, never by an absolute path: a staged (DESTDIR) or moved installation finds its
 * own, and in the build tree everything sits beside the programs. */
#ifndef PARASTACK_INSTALL_PATHS_H
#define PARASTACK_INSTALL_PATHS_H

#include <stddef.h>

/* The program `name` installed next to this one, in path. 0, or -1 if it is not there. */
int sibling_program(const char *name, char *path, size_t len);

/* The file `name` of the layer directory (libparastack-mpi.so, parastack-task-prolog): beside
 * this program (the build tree), else in the installed LIBDIR/parastack. 0, or -1 when neither
 * holds it (path then names the installed place, for the error). */
int install_layer_file(const char *name, char *path, size_t len);

/* The site's default options file: SYSCONFDIR/options. */
const char *install_options_file(void);

/* The launcher that starts the monitors (MPIRUN), and whether it is MPICH's hydra (else Open
 * MPI's mpirun): their command lines differ. */
const char *install_mpirun(void);
int install_mpirun_is_hydra(void);

/* "PROG VERSION (built with MPI LIBRARY, Slurm X.Y.Z)" on standard output, then where this
 * installation finds its parts, one "  what: where" line each. */
void print_version(const char *prog);

#endif
