/* discover — which processes are the job's ranks on this node. Only processes that belong to
 * the job are ever considered: the descendants of the launcher parastack started (found by
 * following /proc/PID/task/TID/children down from it, never by scanning for names), or the PIDs
 * the user named. A rank comes from the launcher's environment; a process whose parent carries
 * the same rank is a helper the rank forked, not the rank. */
#ifndef PARASTACK_DISCOVER_H
#define PARASTACK_DISCOVER_H

#include <sys/types.h>

struct job_proc {
	pid_t pid;
	int rank;        /* -1 when the environment names none */
	int world_size;  /* from the environment, -1 when unknown */
};

/* Processes descended from root that carry an MPI rank; count written (<= max), or -1 with
 * errno ESRCH when root itself is gone. Sorted by rank. */
int discover_descendants(pid_t root, struct job_proc *out, int max);

#endif
