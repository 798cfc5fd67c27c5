/* job — finding the job: this node's ranks (below the launcher, in a Slurm job's steps, in a
 * Torque job, or the PIDs the user listed), every monitor's together (the rank table), the
 * targets opened, and ending a listed job's processes. */
#ifndef PARASTACK_JOB_H
#define PARASTACK_JOB_H

#include "../daemon/monitor.h"

/* The launcher can only be seen from its own node; elsewhere it counts as alive. */
bool job_launcher_alive(const struct monitor *m);

/* This node's ranks: below the launcher (on its node), in the Slurm job's steps, and among the
 * Torque job's processes. */
int job_discover_local(struct monitor *m, struct job_proc *local);

/* --pids-file: every listed rank, found and checked on every node, or -2 (nothing touched). */
int job_pids_all(struct monitor *m, struct job_proc *local, int *nlocal);

/* Wait until every rank of the job exists (all monitors together). 0, or -1 if the job ended
 * or the monitor was stopped first, -2 if the listed ranks failed their checks. */
int job_discover_all(struct monitor *m, struct job_proc *local, int *nlocal);

/* The job's owner (m->job_uid, job_gid) from the Slurm job, the launcher or a listed rank (real
 * ids), and whom the files written for it belong to (m->owner). */
void job_find_owner(struct monitor *m);
/* The targets of this node's ranks, each the owner's process; -1 after one line otherwise. */
int job_open_targets(struct monitor *m, const struct job_proc *local, int nlocal);

/* Index of a local rank in targets, or -1. */
int job_local_index(const struct monitor *m, int rank);

/* The table is sorted by rank (comm_allgather_table). */
const struct table_entry *job_table_find(const struct monitor *m, int rank);

/* Two processes claiming one rank: more than one MPI job among the roots. */
int job_check_unique_ranks(struct monitor *m);

/* --pids-file: the listed ranks. Monitor 0 reads the file and sends its bytes to the others:
 * on nodes without a shared file system, another node's file of the same name must not decide
 * which processes are watched or ended. */
int job_load_pids(struct monitor *m);

/* On a hang with --on-hang=kill and a PID list: end exactly this node's listed processes —
 * SIGTERM, then SIGKILL after a grace period to those still there — each only while it is
 * still the process that was checked (same start, program and owner; signalled through a pidfd),
 * never a reused PID. */
void job_end_listed(struct monitor *m);

#endif
