/* SPDX-License-Identifier: BSD-3-Clause */
/* job — finding the job: this node's ranks (below the launcher, in a Slurm job's steps, in a
 * Torque job, or the PIDs the user listed), every monitor's together (the rank table), the
 * targets opened, and ending a listed job's processes. Its state is struct job (job.h). */
#include "job.h"

#include "../../sched/lookup/lookup_slurm.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "../../base/clock.h"
#include "../../base/log.h"
#include "../../base/options.h"
#include "pidlist_check.h"
#include "../sample/safe/procsig.h"
#include "../sample/stop/snapshot.h"

/* The launcher can only be seen from its own node; elsewhere it counts as alive. */
bool job_launcher_alive(const struct job *j)
{
	char st = j->launcher > 0 && j->on_launcher_host ? procfs_state(j->launcher) : 'R';

	return st && st != 'Z';
}

/* This node's ranks: below the launcher (on its node), in the Slurm job's steps, and among the
 * Torque job's processes. */
int job_discover_local(struct job *j, struct job_proc *local)
{
	static pid_t roots[MAX_RANKS];
	int nroots = 0;
	char err[512];

	if (j->launcher && j->on_launcher_host)
		roots[nroots++] = j->launcher;
	if (j->slurm_job) {
		const char *node = getenv("SLURMD_NODENAME");
		int n = lookup_slurm_step_pids(j->slurm_job, &j->slurm_steps, node ? node : j->comm->host, roots + nroots,
					      MAX_RANKS - nroots, err, sizeof(err));

		nroots += n > 0 ? n : 0;
	}
	if (j->pbs_job)
		nroots += discover_env_roots("PBS_JOBID", j->pbs_job, roots + nroots, MAX_RANKS - nroots);
	int n = discover_job(roots, nroots, local, MAX_RANKS);

	/* A node of more ranks than this is not a node parastack has met: said, never dropped
	 * without a word. */
	if (n >= MAX_RANKS && !j->said_full) {
		fprintf(stderr, "parastack: more than %d ranks on %s: only the first %d found are watched\n", MAX_RANKS,
			j->comm->host, MAX_RANKS);
		j->said_full = true;
	}
	return n;
}

/* The listed ranks of this node, each checked before any is touched. The count, or -1 after
 * naming every entry that failed its check. */
static int pids_local(struct job *j, struct job_proc *local)
{
	char err[512];
	int n = 0, bad = 0;

	for (int i = 0; i < j->npids; i++) {
		struct pid_entry *e = &j->pids[i];

		if (!pidlist_same_host(e->host, j->comm->host))
			continue;

		bool ok = pidlist_check(e, &j->pid_ids[i], err, sizeof(err)) == 0;

		if (ok && e->rank < 0 && (e->rank = procfs_rank(e->pid)) < 0) {
			snprintf(err, sizeof(err), "PID %d (line %d) has no MPI rank in its environment; "
				 "give it in a third column", (int)e->pid, e->line);
			ok = false;
		}
		if (!ok) {
			fprintf(stderr, "parastack: %s, line %d (on %s): %s\n", j->pids_path, e->line,
				j->comm->host, err);
			bad = 1;
			continue;
		}
		local[n].pid = e->pid;
		local[n].rank = e->rank;
		local[n].world_size = -1;
		local[n].restart = -1;
		n++;
	}
	return bad ? -1 : n;
}

/* --pids-file: every listed rank, found and checked on every node, or -2 (nothing touched). */
int job_pids_all(struct job *j, struct job_proc *local, int *nlocal)
{
	int n = pids_local(j, local);

	if (comm_max(n < 0))
		return -2;
	long total = comm_sum(n);

	if (total != j->npids) {
		if (j->comm->me == 0)
			fprintf(stderr, "parastack: %s lists %d rank(s), but the monitors' hosts hold %ld of "
				"them; start one monitor on each host the file names\n", j->pids_path,
				j->npids, total);
		return -2;
	}
	*nlocal = n;
	return 0;
}

/* Wait until every rank of the job exists (all monitors together). 0, or -1 if the job ended
 * or the monitor was stopped first, -2 if the listed ranks failed their checks. */
int job_discover_all(struct job *j, struct job_proc *local, int *nlocal)
{
	long last_total = -1;
	int stable = 0;
	double start = mono_ms(), noted = 0, every = 30000;

	if (j->pids)
		return job_pids_all(j, local, nlocal);
	for (;;) {
		int n = j->source->discover_local(j, local), size = -1;

		for (int i = 0; i < n; i++)
			size = local[i].world_size > size ? local[i].world_size : size;

		long total = comm_sum(n), world = comm_max(size);
		long ended = comm_max(!job_launcher_alive(j) || *j->stop);

		if (ended)
			return -1;
		stable = total == last_total ? stable + 1 : 0;
		last_total = total;
		if (total > 0 && (world > 0 ? total >= world : stable >= 15)) {
			*nlocal = n;
			return 0;
		}
		/* Said after 30 s, then ever less often (a batch script between two MPI programs
		 * may work for hours without one: its output is the user's). */
		if (mono_ms() - start > 30000 && mono_ms() - noted > every) {
			if (world > 0)
				log_info("waiting for the job's ranks: %ld of %ld found so far", total, world);
			else
				log_info("waiting for the job's ranks: %ld found so far", total);
			if (noted && every < 1800000)
				every *= 2;
			noted = mono_ms();
		}
		sleep_ms(200);
	}
}

/* The process the job's owner is read from: the launcher, the first listed PID of this node,
 * the first process of the Torque job; 0 when there is none here. */
static pid_t owner_source(const struct job *j)
{
	pid_t roots[1];

	if (j->launcher > 0 && j->on_launcher_host)
		return j->launcher;
	for (int i = 0; i < j->npids; i++)
		if (pidlist_same_host(j->pids[i].host, j->comm->host))
			return j->pids[i].pid;
	if (j->pbs_job && discover_env_roots("PBS_JOBID", j->pbs_job, roots, 1) == 1)
		return roots[0];
	return 0;
}

void job_find_owner(struct job *j)
{
	struct slurm_job_info *job = j->slurm_job ? malloc(sizeof(*job)) : NULL;
	char err[512];
	pid_t src = owner_source(j);
	struct proc_ids ids;

	j->uid = getuid();
	j->gid = getgid();
	if (job && lookup_slurm_job(j->slurm_job, job, err, sizeof(err)) == 0) {
		j->uid = job->uid;
		j->gid = job->gid;
	} else if (src > 0 && identity_ids(src, &ids) == 0) {
		/* The real ids: a process that exec'd a setuid program keeps its owner's. */
		j->uid = ids.ruid;
		j->gid = ids.rgid;
	}
	free(job);
	ownedfile_owner(j->uid, j->gid, &j->files_owner);
}

int job_open_targets(struct job *j, const struct job_proc *local, int nlocal)
{
	char err[512];

	j->targets = calloc((size_t)nlocal + 1, sizeof(*j->targets));
	j->local_rank = calloc((size_t)nlocal + 1, sizeof(int));
	j->prog = calloc((size_t)nlocal + 1, sizeof(*j->prog));
	for (int i = 0; i < nlocal; i++) {
		if (job_check_owner(j, &local[i]) < 0)
			return -1;
		enum target_status st = target_open(&j->targets[i], local[i].pid, err, sizeof(err));

		/* Gone since it was found: a short MPI run ended (the watch waits for the next). */
		if (st == TARGET_GONE)
			return -2;
		if (st != TARGET_OK) {
			fprintf(stderr, "parastack: rank %d: %s\n", local[i].rank, err);
			return -1;
		}
		j->targets[i].rank = local[i].rank;
		j->local_rank[i] = local[i].rank;
		j->nlocal = i + 1;
	}
	return 0;
}

/* Index of a local rank in targets, or -1. */
int job_local_index(const struct job *j, int rank)
{
	for (int i = 0; i < j->nlocal; i++)
		if (j->local_rank[i] == rank)
			return i;
	return -1;
}

static int compare_entry_rank(const void *key, const void *entry)
{
	int rank = *(const int *)key, other = ((const struct table_entry *)entry)->rank;

	return (rank > other) - (rank < other);
}

/* The table is sorted by rank (comm_allgather_table). */
const struct table_entry *job_table_find(const struct job *j, int rank)
{
	return bsearch(&rank, j->table, (size_t)j->nranks, sizeof(*j->table), compare_entry_rank);
}

/* The table is sorted by rank: a rank claimed twice is two neighbours. */
const struct table_entry *job_rank_claimed_twice(const struct job *j)
{
	for (int i = 1; i < j->nranks; i++)
		if (j->table[i].rank == j->table[i - 1].rank)
			return &j->table[i];
	return NULL;
}

/* --pids-file: the listed ranks. Monitor 0 reads the file and sends its bytes to the others:
 * on nodes without a shared file system, another node's file of the same name must not decide
 * which processes are watched or ended. */
int job_load_pids(struct job *j)
{
	char err[600] = "", msg[512];
	char *text = NULL;
	size_t n = 0;
	long len = -1;

	if (j->comm->me == 0 && (text = pidlist_load_file(j->pids_path, &n, err, sizeof(err))))
		len = (long)n;
	comm_bcast_bytes(&text, &len);
	j->pids = calloc(PIDLIST_MAX, sizeof(*j->pids));
	j->npids = len < 0 || !j->pids || !text ? -1 :
		   pidlist_parse_text(text, (size_t)len, j->pids, PIDLIST_MAX, msg, sizeof(msg));
	if (j->npids < 0 && len >= 0)
		snprintf(err, sizeof(err), "%s: %s", j->pids_path, j->pids && text ? msg : "out of memory");
	free(text);
	j->pid_ids = j->npids < 0 ? NULL : calloc((size_t)j->npids + 1, sizeof(*j->pid_ids));
	if (j->npids >= 0 && !j->pid_ids) {
		snprintf(err, sizeof(err), "%s: out of memory", j->pids_path);
		j->npids = -1;
	}
	if (j->npids < 0) {
		if (j->comm->me == 0)
			cmd_error("monitor", "%s", err);
		return -1;
	}
	return 0;
}

/* Is pid a process this monitor checked (only its own host's are: identity recorded in id) that
 * still runs as that same process (identity.h)? */
static bool still_listed(pid_t pid, const struct proc_identity *id)
{
	char why[200];

	return id->start && identity_check(pid, id, why, sizeof(why)) == IDENTITY_SAME;
}

static bool still_listed_ctx(pid_t pid, const void *id)
{
	return still_listed(pid, id);
}

/* Send sig to pid only while its identity holds (procsig.h: through a pidfd opened before the
 * check, or by PID right after it where pidfd_open fails). */
static bool signal_listed(struct procsig *ps, pid_t pid, const struct proc_identity *id, int sig)
{
	return procsig_send(ps, pid, still_listed_ctx, id, sig);
}

/* On a hang with --on-hang=kill and a PID list: end exactly this node's listed processes —
 * SIGTERM, then SIGKILL after a grace period to those still there — each only while it is
 * still the process that was checked (same start, program and owner; signalled through a pidfd),
 * never a reused PID. */
void job_end_listed(struct job *j)
{
	bool any = false;
	struct procsig ps = { 0 };

	for (int i = 0; i < j->npids; i++)
		any |= signal_listed(&ps, j->pids[i].pid, &j->pid_ids[i], SIGTERM);
	for (double until = mono_ms() + GRACE_MS; any && mono_ms() < until; sleep_ms(100)) {
		any = false;
		for (int i = 0; i < j->npids; i++)
			any |= still_listed(j->pids[i].pid, &j->pid_ids[i]);
	}
	for (int i = 0; i < j->npids; i++)
		signal_listed(&ps, j->pids[i].pid, &j->pid_ids[i], SIGKILL);
	if (ps.by_pid)
		log_say("pidfd_open: %s - %d signal(s) to the listed processes sent by PID, each checked just before",
			strerror(ps.pidfd_errno), ps.by_pid);
}

void job_note_programs(struct job *j)
{
	double now = mono_ms();

	/* A simulated job's ranks are scripted; and a follower polls every ACTIVE_POLL_MS, far more
	 * often than a rank starts its program. */
	if (j->source != &job_source_ptrace || now < j->programs_next_ms)
		return;
	j->programs_next_ms = now + NOTE_PROGRAMS_MS;
	for (int i = 0; j->targets && i < j->nlocal; i++)
		if (!j->targets[i].was_program && !target_note_program(&j->targets[i]))
			job_refind_child(j, i);
}

/* One ptrace sample of local rank k (target.c): stopped for microseconds and let go. */
static int ptrace_sample(struct job *j, int k, struct rank_sample *s)
{
	struct target *t = &j->targets[k];
	char err[512];
	enum target_status st = target_sample(t, &s->state, NULL, err, sizeof(err));

	if (st == TARGET_CHANGED && job_refind_exec(j, k))
		st = target_sample(t, &s->state, NULL, err, sizeof(err));
	if (st != TARGET_OK)
		return -1;
	s->in_kernel = t->in_kernel;
	s->in_init = t->in_init;
	s->fingerprint = t->fingerprint;
	s->activity = (struct proc_activity){ 0 };
	s->wait_share = target_wait_share(t);
	/* Two /proc reads, only for a rank that stands outside MPI: blocked, or computing in one frame. */
	if (!s->in_kernel && !s->in_init && progress_same_outside(&j->prog[k], s->state, s->fingerprint))
		procfs_activity(t->pid, &s->activity);
	return 0;
}

/* Detach from every target and free what the round held of them. */
static void ptrace_close_targets(struct job *j)
{
	for (int i = 0; i < j->nlocal; i++)
		target_close(&j->targets[i]);
	symbolizer_pool_free(&j->syms);
	snapshot_reap_pending();
}

const struct job_source job_source_ptrace = {
	.discover_local = job_discover_local,
	.open_targets = job_open_targets,
	.sample = ptrace_sample,
	.close_targets = ptrace_close_targets,
};
