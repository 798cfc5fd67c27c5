/* SPDX-License-Identifier: BSD-3-Clause */
/* job — finding the job: this node's ranks (below the launcher, in a Slurm job's steps, in a
 * Torque job, or the PIDs the user listed), every monitor's together (the rank table), the
 * targets opened, and ending a listed job's processes. */
#ifndef PARASTACK_JOB_H
#define PARASTACK_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../sched/lookup/lookup_slurm.h"
#include "../../base/pidlist.h"
#include "../sample/addr/progress.h"
#include "../sample/addr/symbolize.h"
#include "../sample/safe/identity.h"
#include "../sample/safe/ownedfile.h"
#include "../sample/stop/target.h"
#include "comm.h"
#include "discover.h"

#define MAX_RANKS 65536
#define GRACE_MS 5000   /* job_end_listed: SIGTERM to SIGKILL */
#define NOTE_PROGRAMS_MS 250 /* job_note_programs: at most this often */

struct job;

/* One sample of a local rank, as the watch loop reads it. */
struct rank_sample {
	enum rank_state state;
	bool in_kernel, in_init;
	struct progress_print fingerprint;
	struct proc_activity activity; /* read only outside MPI with an unchanged stack (progress_same_outside) */
	int wait_share; /* percent of the time since its previous sample spent in MPI, as the
			 * recording layer's clock says (target_wait_share); -1: not known */
};

/* How a monitor reaches its node's ranks: through ptrace (job_source_ptrace, the installed
 * monitor's), or scripted ranks of a simulated job (tests/sim/source_sim.c, a build of the
 * monitor for bench/ and tests only). Everything after the sample is the same code. */
struct job_source {
	/* This node's ranks (job_discover_local's contract); the count. */
	int (*discover_local)(struct job *j, struct job_proc *local);
	/* Take them as the round's targets (job_open_targets' contract). */
	int (*open_targets)(struct job *j, const struct job_proc *local, int nlocal);
	/* Local rank k (its index in targets) sampled: 0, or -1 when it could not be (gone). */
	int (*sample)(struct job *j, int k, struct rank_sample *s);
	/* Let the round's targets go (what open_targets took). */
	void (*close_targets)(struct job *j);
};
extern const struct job_source job_source_ptrace;

/* The job a monitor watches. */
struct job {
	/* Set once by the monitor's start (its command line and its peers). */
	const struct comm *comm;   /* the monitors */
	const struct job_source *source; /* how its ranks are reached */
	volatile int *stop;        /* set by SIGTERM/SIGINT: stop waiting for the job */
	pid_t launcher;
	const char *launcher_host; /* where the launcher runs; NULL: on every monitor's node */
	bool on_launcher_host;
	uint32_t slurm_job;        /* 0, or the Slurm job whose steps hold the ranks */
	struct slurm_steps slurm_steps; /* which of its steps: all, or one (JOB.STEP) */
	const char *pbs_job;       /* NULL, or the Torque job (PBS_JOBID) whose processes hold them */
	const char *pids_path;     /* NULL, or the file of the ranks the user named (attach) */
	struct pid_entry *pids;    /* job_load_pids */
	struct proc_identity *pid_ids; /* parallel to pids: this node's, as checked (start 0: not) */
	int npids;

	/* job_find_owner, before anything is written: the job's owner, whose processes alone are
	 * its ranks, and whom the files written for it belong to (ownedfile.h). */
	uid_t uid;
	gid_t gid;
	struct file_owner files_owner;

	/* The job's ranks, owned per round (the watch loop frees them at its end). */
	struct table_entry *table;
	int nranks;
	struct target *targets; /* local ranks, parallel to local_rank */
	struct progress *prog;  /* what the previous sample of each local rank showed */
	struct symbolizer_pool syms; /* the ranks' symbolizers, one per executable */
	int *local_rank;
	int nlocal;
	bool said_full; /* the node's ranks past MAX_RANKS have been said to be left out */
	double programs_next_ms; /* when job_note_programs looks again (mono_ms) */
};

/* The launcher can only be seen from its own node; elsewhere it counts as alive. */
bool job_launcher_alive(const struct job *j);

/* This node's ranks: below the launcher (on its node), in the Slurm job's steps, and among the
 * Torque job's processes. */
int job_discover_local(struct job *j, struct job_proc *local);

/* --pids-file: every listed rank, found and checked on every node, or -2 (nothing touched). */
int job_pids_all(struct job *j, struct job_proc *local, int *nlocal);

/* Wait until every rank of the job exists (all monitors together). 0, or -1 if the job ended
 * or the monitor was stopped first, -2 if the listed ranks failed their checks. */
int job_discover_all(struct job *j, struct job_proc *local, int *nlocal);

/* The job's owner (j->uid, gid) from the Slurm job, the launcher or a listed rank (real
 * ids), and whom the files written for it belong to (m->owner). */
void job_find_owner(struct job *j);
/* The targets of this node's ranks, each the owner's process; -1 after one line otherwise, -2
 * (nothing said) when a rank has exited since it was found. */
int job_open_targets(struct job *j, const struct job_proc *local, int nlocal);

/* refind.c. A rank is the owner's process: its real and effective uid both the job's owner; 0,
 * or -1 after one line saying whose it is. */
int job_check_owner(const struct job *j, const struct job_proc *p);

/* Local rank k was found while still its wrapper (a script's `exec "$@"`, env, numactl, a
 * container's init) and has exec'd the program since: the same process (same start and owner),
 * still the launcher's rank of the same number, never seen in its communication library. Then it
 * is opened again as that program, its progress history cleared: true. A rank that was the
 * program and then exec'd (the hostile-job rule, design.md §10), one that changed owner, and
 * the ranks the user listed by PID stay as they are: "not sampled". */
bool job_refind_exec(struct job *j, int k);

/* Local rank k, not yet its program, may be a wrapper running the program as its child: the
 * nearest descendant carrying the same rank that is its program (target_note_program's signs)
 * becomes the rank. At most once a second per rank; not for ranks listed by PID. */
void job_refind_child(struct job *j, int k);

/* Between samples, at most every NOTE_PROGRAMS_MS: note which local ranks have become their
 * program since (target_note_program), so that a rank out of the sample sets that exec's after
 * MPI_Init is still held to the hostile-job rule, and follow a wrapper to its child
 * (job_refind_child). Reads 8 bytes of each rank not yet known to be its program; none stopped. */
void job_note_programs(struct job *j);

/* Index of a local rank in targets, or -1. */
int job_local_index(const struct job *j, int rank);

/* The table is sorted by rank (comm_allgather_table). */
const struct table_entry *job_table_find(const struct job *j, int rank);

/* Two processes claiming one rank (more than one MPI run among the roots): the second of the
 * two table entries (the first is the one before it), or NULL. */
const struct table_entry *job_rank_claimed_twice(const struct job *j);

/* --pids-file: the listed ranks. Monitor 0 reads the file and sends its bytes to the others:
 * on nodes without a shared file system, another node's file of the same name must not decide
 * which processes are watched or ended. */
int job_load_pids(struct job *j);

/* On a hang with --on-hang=kill and a PID list: end exactly this node's listed processes —
 * SIGTERM, then SIGKILL after a grace period to those still there — each only while it is
 * still the process that was checked (same start, program and owner; signalled through a pidfd),
 * never a reused PID. */
void job_end_listed(struct job *j);

#endif
