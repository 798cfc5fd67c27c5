/* procfs — what /proc tells about a target: its threads, its MPI rank from the launcher's
 * environment, its run state, who traces it, and the ptrace policy of the machine. */
#ifndef PARASTACK_PROCFS_H
#define PARASTACK_PROCFS_H

#include <stddef.h>
#include <sys/types.h>

/* Threads of pid, from /proc/PID/task, the main thread (tid == pid) first. Returns the count
 * (>= 0) written to tids (at most max), or -1 with errno (ESRCH when the process is gone). */
int procfs_threads(pid_t pid, pid_t *tids, int max);

/* The rank the MPI launcher put in the environment (OMPI_COMM_WORLD_RANK, PMIX_RANK,
 * PMI_RANK, SLURM_PROCID, in that order); -1 when none, or the environment is unreadable. */
int procfs_rank(pid_t pid);

/* One-letter state from /proc/PID/stat ('R', 'S', 'D', 'T', 't', 'Z', ...), or 0 if gone. */
char procfs_state(pid_t pid);

/* TracerPid from /proc/PID/status; 0 when untraced, -1 when unreadable. */
pid_t procfs_tracer(pid_t pid);

/* Start time (clock ticks since boot, field 22 of /proc/PID/stat); 0 if unreadable. Pairs
 * with the pid to tell a process from a later one that reuses its number. */
unsigned long long procfs_start_time(pid_t pid);

/* Why ptrace on pid may have failed with EPERM, as a phrase for an error message. */
void procfs_explain_eperm(pid_t pid, char *buf, size_t len);

#endif
