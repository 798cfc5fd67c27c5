/* SPDX-License-Identifier: BSD-3-Clause */
/* layershims — what placing the recording layer in a job script shares between parastack's
 * launchers (launcher/layer_place.c: `parastack run` of a script, parastack-sbatch) and the
 * SPANK plugin (sched/slurm/: the batch step of a job submitted with --parastack): the
 * launcher names that are shimmed, the variables that tell a shim what it is, the shims'
 * private directory made and removed, and whether a program runs MPICH (which layer it gets).
 *
 * A shim is the parastack program under a launcher's name (mpirun, srun, mpiexec.mpich, ...)
 * first in the script's PATH: it places the layer in that launcher's ranks and execs the real
 * launcher (layer_shim_main). */
#ifndef PARASTACK_LAYERSHIMS_H
#define PARASTACK_LAYERSHIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The shims' private directory, in the environment of the launchers a job script runs. */
#define SHIM_DIR_ENV "PARASTACK_SHIM_DIR"
/* The layer the shims place (the Open MPI build; MPICH's is LIB's DIR/mpich/NAME). */
#define SHIM_LIB_ENV "PARASTACK_RECORD_LIB"
/* Set by a shim for the real launcher: the srun it runs to start its daemons (orted, hydra's
 * proxies) is passed through untouched - the daemons are not ranks. */
#define SHIM_PASS_ENV "PARASTACK_SHIM_PASS"
/* Where the shims' directory, and a launch line's other private files, are made (mkdtemp). */
#define LAYERSHIMS_DIR_TEMPLATE "/tmp/parastack-launch.XXXXXX"
/* The most a shim reads of a file it looks into (a program's ELF header, a --tune file). */
#define LAYERSHIMS_FILE_MAX (64 * 1024)

/* The launcher names that are shimmed, NULL-terminated. */
extern const char *const layershims_names[];

/* A new private directory (mode 0700, /tmp/parastack-launch.XXXXXX) holding every shim, each a
 * symbolic link to program, into dir. 0, or -1 with errno set (nothing left behind). */
int layershims_make(const char *program, char *dir, size_t len);

/* Remove such a directory: its entries (links and the files shims copied into it, never
 * following a link, at most 4096) and itself. With owner other than (uid_t)-1, only a
 * directory that owner owns (a root caller on a user's directory). */
void layershims_remove(const char *dir, uid_t owner);

/* A regular file's first LAYERSHIMS_FILE_MAX bytes, NUL-terminated (malloc'd; *len, when
 * asked, how many), or NULL: never a FIFO or a device, never blocks. */
char *layershims_read_file(const char *path, size_t *len);

/* Does the ELF file at path need MPICH's library (a DT_NEEDED libmpich*)? Read as bytes: the
 * dynamic string table names it within the first LAYERSHIMS_FILE_MAX bytes of the programs
 * launchers run (a false "no" only means the default layer). */
bool layershims_needs_mpich(const char *path);

#endif
