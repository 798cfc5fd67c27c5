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

#include "procfs.h"

#define WALK_MAX 4096

static int compare_rank(const void *a, const void *b)
{
	const struct job_proc *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

bool discover_maps_mpi(pid_t pid)
{
	char path[64], line[4096];
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);

	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/libmpi") || strstr(line, "/libpmpi") || strstr(line, "/libmpich");
	fclose(f);
	return found;
}

/* The rank pid carries, by the rules in discover.h; -1 if it is not a rank. */
static int rank_of(pid_t pid)
{
	static const char *const launcher_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
						     NULL };
	static const char *const slurm_vars[] = { "SLURM_PROCID", NULL };
	long rank = procfs_env_number(pid, launcher_vars);

	if (rank < 0 && (rank = procfs_env_number(pid, slurm_vars)) >= 0 && !discover_maps_mpi(pid))
		rank = -1;
	return (int)rank;
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

static bool seen(const pid_t *list, int n, pid_t p)
{
	for (int i = 0; i < n; i++)
		if (list[i] == p)
			return true;
	return false;
}

static bool is_rank_found(const struct job_proc *out, int n, pid_t pid, int rank)
{
	for (int i = 0; i < n; i++)
		if (out[i].pid == pid && out[i].rank == rank)
			return true;
	return false;
}

int discover_job(const pid_t *roots, int nroots, struct job_proc *out, int max)
{
	static pid_t queue[WALK_MAX];
	int tail = 0, n = 0;

	for (int i = 0; i < nroots && tail < WALK_MAX; i++)
		if (roots[i] > 0 && !seen(queue, tail, roots[i]) && procfs_state(roots[i]))
			queue[tail++] = roots[i];
	for (int head = 0; head < tail; head++) {
		pid_t p = queue[head], kids[256];
		int nk = procfs_children(p, kids, 256);

		for (int k = 0; k < nk && tail < WALK_MAX; k++)
			if (!seen(queue, tail, kids[k]))
				queue[tail++] = kids[k];
		if (n >= max || runs_this_program(p))
			continue;

		int rank = rank_of(p);

		if (rank < 0 || is_rank_found(out, n, procfs_parent(p), rank))
			continue;
		out[n].pid = p;
		out[n].rank = rank;
		out[n].world_size = procfs_world_size(p);
		n++;
	}
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
	static pid_t match[WALK_MAX];
	int nmatch = 0, n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d)) && nmatch < WALK_MAX) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;

		pid_t p = (pid_t)strtol(e->d_name, NULL, 10);

		if (procfs_env_is(p, name, value) && same_host(p))
			match[nmatch++] = p;
	}
	closedir(d);
	for (int i = 0; i < nmatch && n < max; i++)
		if (!seen(match, nmatch, procfs_parent(match[i])))
			out[n++] = match[i];
	return n;
}

int discover_descendants(pid_t root, struct job_proc *out, int max)
{
	if (!procfs_state(root)) {
		errno = ESRCH;
		return -1;
	}
	return discover_job(&root, 1, out, max);
}
