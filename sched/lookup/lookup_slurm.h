/* SPDX-License-Identifier: BSD-3-Clause */
/* lookup_slurm — what parastack needs from Slurm, through libslurm: a job's state and nodes, the
 * PIDs of its steps' tasks on one node (so ranks started by mpirun's daemons or by srun are
 * found without looking at anything else on the node), and cancelling it. Every function puts a
 * one-line reason in err when it fails. */
#ifndef PARASTACK_LOOKUP_SLURM_H
#define PARASTACK_LOOKUP_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SCHED_SLURM_NODES_MAX 8192 /* a larger job gets a one-line error, never a cut list */
#define SCHED_SLURM_NAME_MAX 64

struct slurm_job_info {
	uint32_t id;
	char state[32];        /* "PENDING", "RUNNING", "COMPLETED", "CANCELLED", ... */
	int exit_status;       /* of the batch script, when it has ended */
	int num_nodes;
	int num_tasks;
	uid_t uid;             /* the job's owner */
	gid_t gid;
	char batch_host[SCHED_SLURM_NAME_MAX]; /* the batch script's node; "" without one (salloc) */
	char nodes_expr[65536]; /* as Slurm writes it, e.g. "n[1-4]" */
	char nodes[SCHED_SLURM_NODES_MAX][SCHED_SLURM_NAME_MAX]; /* expanded, in order */
};

/* A job id as Slurm prints it ("1234"); 0 on success, -1 if text is not one. */
int lookup_slurm_parse_jobid(const char *text, uint32_t *id);

/* Which of a job's steps hold the ranks: all of them, or one (an srun step watched on its
 * own, so that two watched steps of one allocation never share a rank). */
struct slurm_steps {
	bool one;      /* false: every step of the job, the batch step included */
	uint32_t step; /* the step, when one */
};

/* "JOB" (every step) or "JOB.STEP" (one srun step), as Slurm prints them. 0, or -1 if text is
 * neither. */
int lookup_slurm_parse_job_step(const char *text, uint32_t *id, struct slurm_steps *steps);

/* The job's state and nodes. 0, or -1 with err (no such job, no controller, ...). */
int lookup_slurm_job(uint32_t id, struct slurm_job_info *job, char *err, size_t len);

/* PIDs of every task of the job's steps (every step, the batch step included, or the one)
 * on `node`, at most max. The count, or -1 with err. */
int lookup_slurm_step_pids(uint32_t id, const struct slurm_steps *steps, const char *node, pid_t *pids,
			  int max, char *err, size_t len);

/* The running step's nodes in place of the job's in job (which lookup_slurm_job filled): the
 * allocation a watch of that step alone runs its monitors on. 0; -1 with err (no such step
 * running, no controller, ...). */
int lookup_slurm_step_nodes(uint32_t id, uint32_t step, struct slurm_job_info *job, char *err, size_t len);

/* Set the job's AdminComment (what `scontrol show job` and sacct show) to text, as only root
 * or SlurmUser may. 0; 1 when this process is neither (nothing asked); -1 with err. */
int lookup_slurm_admin_comment(uint32_t id, const char *text, char *err, size_t len);

/* Cancel the job as scancel does: the whole job, or the one step (scancel JOB.STEP: the
 * allocation and its other steps run on). 0, or -1 with err. */
int lookup_slurm_cancel(uint32_t id, const struct slurm_steps *steps, char *err, size_t len);

#endif
