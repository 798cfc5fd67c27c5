/* discover — which processes are the job's ranks on this node. Only processes that belong to
 * the job are ever considered: the descendants of the launcher parastack started, the tasks of
 * the Slurm job's steps on this node (and their descendants), found by following
 * /proc/PID/task/TID/children down from those roots — never by scanning for names.
 *
 * A process is a rank when its environment carries a rank from an MPI launcher
 * (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK), or SLURM_PROCID when it also maps an MPI library
 * (mpirun, orted, srun and the batch shell carry SLURM_PROCID too, and are not ranks). A process
 * whose parent is a rank with the same number is a helper the rank forked, not the rank; the
 * monitors themselves (processes running this program) are never ranks. */
#ifndef PARASTACK_DISCOVER_H
#define PARASTACK_DISCOVER_H

#include <sys/types.h>

struct job_proc {
	pid_t pid;
	int rank;        /* -1 when the environment names none */
	int world_size;  /* from the environment, -1 when unknown */
};

/* Ranks among roots and their descendants (roots themselves included); count written (<= max),
 * sorted by rank. Roots that no longer exist are skipped. */
int discover_job(const pid_t *roots, int nroots, struct job_proc *out, int max);

/* Ranks descended from root (the launcher), or -1 with errno ESRCH when root itself is gone. */
int discover_descendants(pid_t root, struct job_proc *out, int max);

#endif
