/* SPDX-License-Identifier: BSD-3-Clause */
/* discover — which processes are the job's ranks on this node. Only processes that belong to
 * the job are ever considered: the descendants of the launcher parastack started, the tasks of
 * the Slurm job's steps on this node, or (Torque) the topmost processes whose environment
 * carries the job's PBS_JOBID, and their descendants, found by following
 * /proc/PID/task/TID/children down from those roots — never by process names.
 *
 * A process is a rank when its environment carries a rank from a launcher: torchrun's RANK in a
 * worker (TORCHELASTIC_RUN_ID set), else OMPI_COMM_WORLD_RANK, PMIX_RANK or PMI_RANK, else
 * SLURM_PROCID when it also maps a communication library (libmpi, libmpich, libgloo: mpirun,
 * orted, srun and the batch shell carry SLURM_PROCID too, and are not ranks). torchrun's elastic
 * agent, whose children are workers, is never a rank. A process whose parent is a rank is a
 * helper the rank forked, not the rank; the monitors themselves (processes running this program)
 * are never ranks. */
#ifndef PARASTACK_DISCOVER_H
#define PARASTACK_DISCOVER_H

#include <stdbool.h>
#include <sys/types.h>

struct job_proc {
	pid_t pid;
	int rank;        /* -1 when the environment names none */
	int world_size;  /* from the environment, -1 when unknown */
	int restart;     /* a torchrun worker's TORCHELASTIC_RESTART_COUNT, -1 for other ranks */
};

/* Ranks among roots and their descendants (roots themselves included); count written (<= max),
 * sorted by rank. Roots that no longer exist are skipped. */
int discover_job(const pid_t *roots, int nroots, struct job_proc *out, int max);

/* Roots for a job known only by a variable its scheduler puts in the environment of every
 * process it starts (Torque: PBS_JOBID): the processes whose environment holds name=value and
 * whose parent's does not. Only environments this user may read are looked at (/proc/PID/
 * environ is private to the process's owner). Count written (<= max). */
int discover_env_roots(const char *name, const char *value, pid_t *out, int max);

/* Does pid map a communication library that makes it a rank (libmpi*, libpmpi*, libmpich*,
 * libgloo*)? */
bool discover_maps_comm(pid_t pid);

/* The rank pid carries by the rules above, or -1 when it is no rank (a monitor, torchrun's
 * agent, no rank in its environment). */
int discover_rank(pid_t pid);

/* Ranks descended from root (the launcher), or -1 with errno ESRCH when root itself is gone. */
int discover_descendants(pid_t root, struct job_proc *out, int max);

#endif
