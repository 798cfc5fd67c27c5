/* SPDX-License-Identifier: BSD-3-Clause */
/* discover — a breadth-first walk of the process tree below the job's roots. */
#include "discover.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../base/runtimes.h"
#include "../sample/safe/procfs.h"


static int compare_rank(const void *a, const void *b)
{
	const struct job_proc *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* A process carrying only SLURM_PROCID is a rank when it maps a runtime's rank library
 * (runtimes.c): narrower than the libraries a sample counts as communication, since mpirun
 * and orted map libopen-pal and libopen-rte, and carry the batch shell's SLURM_PROCID, without
 * being ranks. */
bool discover_maps_comm(pid_t pid)
{
	char path[64], line[4096];
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);

	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = runtime_of_rank_path(line) != NULL;
	fclose(f);
	return found;
}

/* Has pid, no torchrun worker itself, started torchrun workers (children carrying
 * TORCHELASTIC_RUN_ID)? Then it is torchrun's elastic agent: it imports torch and carries its
 * launcher's rank (its node's number), but its workers are the ranks. */
static bool is_torch_agent(pid_t pid)
{
	struct pid_list kids = { 0 };
	bool agent = false;

	procfs_children(pid, &kids);
	/* Bounded: a process's children are the job's to create. */
	for (int i = 0; i < kids.n && i < 256 && !agent; i++)
		agent = procfs_is_torch_worker(kids.v[i]);
	pid_list_free(&kids);
	return agent;
}

/* The rank pid carries, by the rules in discover.h; -1 if it is not a rank. *l: what its
 * environment says (its job size, its restarts), read once. */
static int rank_of(pid_t pid, struct proc_launch *l)
{
	procfs_launch(pid, l);
	if (l->torch_worker)
		return procfs_launch_rank(l);

	int rank = l->rank;

	if (rank < 0 && (rank = l->slurm_rank) >= 0 && !discover_maps_comm(pid))
		rank = -1;
	if (rank >= 0 && is_torch_agent(pid))
		rank = -1;
	return rank;
}

/* A file of /proc/self (its executable, a namespace), looked up once. */
struct self_file {
	const char *what; /* "exe", "ns/uts" */
	bool looked, have;
	struct stat st;
};

/* Is /proc/PID/WHAT the same file as this process's? 1 yes, 0 no, -1 when ours is unreadable. */
static int same_as_self(pid_t pid, struct self_file *f)
{
	struct stat st;
	char path[64];

	if (!f->looked) {
		snprintf(path, sizeof(path), "/proc/self/%s", f->what);
		f->have = stat(path, &f->st) == 0;
		f->looked = true;
	}
	if (!f->have)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, f->what);
	return stat(path, &st) == 0 && st.st_dev == f->st.st_dev && st.st_ino == f->st.st_ino;
}

/* Is pid running the same executable as this process (another monitor)? */
static bool runs_this_program(pid_t pid)
{
	static struct self_file exe = { .what = "exe" };

	return same_as_self(pid, &exe) == 1;
}

/* A set of PIDs (open addressing), so a walk over thousands of processes stays linear. */
struct pid_set {
	pid_t *slot; /* 0: empty */
	size_t cap;  /* a power of two */
	size_t n;
};

static void pid_set_put(struct pid_set *s, pid_t p)
{
	size_t i = (size_t)p * 2654435761u & (s->cap - 1);

	while (s->slot[i])
		i = (i + 1) & (s->cap - 1);
	s->slot[i] = p;
	s->n++;
}

static bool pid_set_has(const struct pid_set *s, pid_t p)
{
	for (size_t i = s->cap ? (size_t)p * 2654435761u & (s->cap - 1) : 0; s->cap; i = (i + 1) & (s->cap - 1)) {
		if (s->slot[i] == p)
			return true;
		if (!s->slot[i])
			return false;
	}
	return false;
}

static bool pid_set_grow(struct pid_set *s)
{
	size_t cap = s->cap ? s->cap * 2 : 256;
	struct pid_set big = { calloc(cap, sizeof(pid_t)), cap, 0 };

	if (!big.slot)
		return false;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slot[i])
			pid_set_put(&big, s->slot[i]);
	free(s->slot);
	*s = big;
	return true;
}

/* Add p; false when it was there already (or memory ran out). */
static bool pid_set_add(struct pid_set *s, pid_t p)
{
	if (pid_set_has(s, p) || ((s->n + 1) * 2 > s->cap && !pid_set_grow(s)))
		return false;
	pid_set_put(s, p);
	return true;
}

/* Does an ancestor of p carry a rank? Then p is a helper a rank started (a shell it popen()ed,
 * that shell's children), not a rank. */
static bool below_a_rank(pid_t p)
{
	struct proc_launch l;

	for (int depth = 0; depth < 64; depth++) {
		p = procfs_parent(p);
		if (p <= 1)
			return false;
		if (rank_of(p, &l) >= 0)
			return true;
	}
	return false;
}

int discover_job(const pid_t *roots, int nroots, struct job_proc *out, int max)
{
	struct pid_list queue = { 0 };
	struct pid_set queued = { 0 };
	int n = 0;

	for (int i = 0; i < nroots; i++)
		if (roots[i] > 0 && procfs_state(roots[i]) && pid_set_add(&queued, roots[i]))
			pid_list_push(&queue, roots[i]);
	for (int head = 0; head < queue.n; head++) {
		pid_t p = queue.v[head];
		struct proc_launch l;
		int rank = runs_this_program(p) ? -1 : rank_of(p, &l);

		/* A rank's own children are its helpers: the walk stops there. */
		if (rank >= 0 && !below_a_rank(p)) {
			if (n < max) {
				out[n].pid = p;
				out[n].rank = rank;
				out[n].world_size = l.world_size;
				out[n].restart = l.restart;
			}
			n++;
			continue;
		}
		if (rank >= 0)
			continue;

		int before = queue.n;

		procfs_children(p, &queue);
		/* Drop children queued already (a root's descendant may be a root too). */
		int kept = before;

		for (int k = before; k < queue.n; k++)
			if (pid_set_add(&queued, queue.v[k]))
				queue.v[kept++] = queue.v[k];
		queue.n = kept;
	}
	pid_list_free(&queue);
	free(queued.slot);
	if (n > max)
		n = max;
	qsort(out, (size_t)n, sizeof(*out), compare_rank);
	return n;
}

/* Does pid run under this process's host name (the same UTS namespace)? Several test "nodes"
 * share one machine and one PID space, each with its own host name. */
static bool same_host(pid_t pid)
{
	static struct self_file uts = { .what = "ns/uts" };

	return same_as_self(pid, &uts) != 0;
}

int discover_env_roots(const char *name, const char *value, pid_t *out, int max)
{
	struct pid_list match = { 0 };
	struct pid_set matched = { 0 };
	int n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;

		pid_t p = (pid_t)strtol(e->d_name, NULL, 10);

		if (procfs_env_is(p, name, value) && same_host(p) && pid_list_push(&match, p) == 0)
			pid_set_add(&matched, p);
	}
	closedir(d);
	for (int i = 0; i < match.n && n < max; i++) {
		pid_t parent = procfs_parent(match.v[i]);

		/* The topmost: its parent did not match. */
		if (parent <= 0 || !pid_set_has(&matched, parent))
			out[n++] = match.v[i];
	}
	pid_list_free(&match);
	free(matched.slot);
	return n;
}

int discover_rank(pid_t pid)
{
	struct proc_launch l;

	return runs_this_program(pid) ? -1 : rank_of(pid, &l);
}

int discover_descendants(pid_t root, struct job_proc *out, int max)
{
	if (!procfs_state(root)) {
		errno = ESRCH;
		return -1;
	}
	return discover_job(&root, 1, out, max);
}
