/* SPDX-License-Identifier: BSD-3-Clause */
/* refind — a rank found again as the program it becomes (issue 72; design.md §2): the wrapper a
 * launcher started (a script's `exec "$@"`, env, numactl, a container's init) carries the rank's
 * variables before the program does, and the preloaded recording layer maps libmpi into it.
 * Discovery takes it; this file follows it to the program — through its exec (same process,
 * same owner, never seen as the program), or to the descendant that runs the program — and
 * says who the rank's owner must be. No MPI here: the unit tests drive it on real processes. */
#include "job.h"

#include <stdio.h>
#include <string.h>

#include "../../base/clock.h"

/* A rank is the owner's process: its real and effective uid both the job's owner. */
int job_check_owner(const struct job *j, const struct job_proc *p)
{
	struct proc_ids ids;

	if (identity_ids(p->pid, &ids) < 0)
		return 0; /* gone: target_open says so */
	if (ids.ruid == j->uid && ids.euid == j->uid)
		return 0;
	fprintf(stderr, "parastack: rank %d (pid %d) runs as uid %d (effective %d), not as the job's owner "
		"(uid %d): parastack watches only the owner's processes\n", p->rank, (int)p->pid, (int)ids.ruid,
		(int)ids.euid, (int)j->uid);
	return -1;
}

/* Has the process exec'd a program since t was opened, and is it otherwise the same: started
 * at the same moment, owned by the same user? */
static bool exec_only(const struct target *t)
{
	struct proc_identity now;

	return identity_read(t->pid, &now) == 0 && now.start == t->id.start && now.uid == t->id.uid &&
	       now.gid == t->id.gid && (now.exe_dev != t->id.exe_dev || now.exe_ino != t->id.exe_ino);
}

/* Open local rank k's target again on pid (its own process after an exec, or a descendant
 * carrying its rank), as the launcher's rank of that number, its owner's: true when it was.
 * Only a process that is its program is taken when program_only. */
static bool retarget(struct job *j, int k, pid_t pid, bool program_only)
{
	struct target *t = &j->targets[k], fresh;
	struct job_proc p = { pid, discover_rank(pid), -1, -1 };
	char err[512];

	if (p.rank != t->rank || job_check_owner(j, &p) < 0 || target_open(&fresh, pid, err, sizeof(err)) != TARGET_OK)
		return false;
	if (program_only && !fresh.was_program) {
		target_close(&fresh);
		return false;
	}
	target_close(t);
	fresh.rank = p.rank;
	*t = fresh;
	memset(&j->prog[k], 0, sizeof(j->prog[k]));
	return true;
}

bool job_refind_exec(struct job *j, int k)
{
	struct target *t = &j->targets[k];

	return !j->pids && !t->was_program && exec_only(t) && retarget(j, k, t->pid, false);
}

/* Local rank k, not yet its program, may be a wrapper that runs the program as its child (a
 * script's `numactl ./app`, `sh -c 'time ./app'`) rather than exec'ing it: the first descendant
 * (breadth first, DESCEND_MAX processes at most) that carries the same rank and is its program
 * becomes the rank. A helper a rank started before MPI_Init (a shell of its system()) is no
 * program: it stays a helper. Looked at once a DESCEND_EVERY_MS at most. */
#define DESCEND_MAX 64
#define DESCEND_EVERY_MS 1000

void job_refind_child(struct job *j, int k)
{
	struct target *t = &j->targets[k];
	struct pid_list q = { 0 };
	double now = mono_ms();

	if (j->pids || now < t->descend_next_ms)
		return;
	t->descend_next_ms = now + DESCEND_EVERY_MS;
	/* Without the layer, a rank that has loaded its communication library since it was opened
	 * (mpi4py, torch imported) is its program: its children (data-loader workers) are helpers. */
	if (!t->record_addr && discover_maps_comm(t->pid)) {
		t->was_program = true;
		return;
	}
	procfs_children(t->pid, &q);
	for (int i = 0; i < q.n && i < DESCEND_MAX; i++) {
		pid_t c = q.v[i];

		if (discover_rank(c) == t->rank && retarget(j, k, c, true))
			break;
		if (q.n < DESCEND_MAX)
			procfs_children(c, &q);
	}
	pid_list_free(&q);
}

