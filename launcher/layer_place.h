/* SPDX-License-Identifier: BSD-3-Clause */
/* layer_place — how the recording layer (libparastack-mpi.so) reaches the ranks of a launch
 * line, and only the ranks: never the launcher or its daemons.
 *
 * Contract: parastack never changes whether or how a job runs. layer_place() returns the
 * user's line with the layer placed by the method that launcher accepts beside what the user
 * wrote, or the line untouched and a reason (then the job runs without the layer, and the
 * caller says so in one line). It never returns a line the launcher would refuse.
 *  - Open MPI (mpirun, mpiexec, orterun by any name): `-x` and mca_base_env_list cannot be
 *    mixed (mpirun aborts), so the layer goes the way the user's line already goes: `-x` (one
 *    per application context, merged into the user's own `-x LD_PRELOAD`; an appfile is
 *    copied with it), or the list (the user's --mca value, or the environment's merged with
 *    what MCA parameter files say); a line with neither gets the list, in the environment.
 *  - srun: Slurm's task prolog (SLURM_TASK_PROLOG, parastack-task-prolog beside the layer)
 *    preloads it in each task's own environment: argv and --export untouched; a line with its
 *    own --task-prolog (or a job with its own SLURM_TASK_PROLOG) runs without the layer.
 *  - Any other launcher (a job script, a wrapper): the launchers it runs through PATH (mpirun,
 *    mpiexec, orterun, srun) are parastack's shims (layer_shim_main), which place the layer the
 *    same way and exec the real launcher; nothing else in the script is touched. The srun that
 *    Open MPI's mpirun runs to start its daemons is passed through as it is.
 * The user's own preloaded libraries stay, in their order, before the layer. */
#ifndef PARASTACK_LAYER_PLACE_H
#define PARASTACK_LAYER_PLACE_H

#include <stdbool.h>

#include "layer_placement.h"

/* Place lib into the ranks of argv. 0 when placed or left out with a reason (p->why_not);
 * -1 only when memory runs out (p->argv is then argv itself). */
int layer_place(char **argv, const char *lib, struct layer_placement *p);
/* Apply p->env to this process's environment (in the launcher's child, before exec). */
void layer_placement_setenv(const struct layer_placement *p);
/* Remove the private directory (shims, appfile copy) and free what layer_place allocated. */
void layer_placement_free(struct layer_placement *p);

/* Is this program started as one of the shims (argv[0] named mpirun/mpiexec/orterun, with the
 * shim directory in the environment)? */
bool layer_shim_invoked(const char *argv0);
/* The shim: find the real launcher in PATH after the shims, place the layer, exec it. Returns
 * only when no real launcher is found (127, as a shell would). */
int layer_shim_main(int argc, char **argv);

#endif
