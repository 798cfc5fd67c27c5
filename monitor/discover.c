/* discover — a breadth-first walk of the process tree below the launcher. */
#include "discover.h"

#include <errno.h>
#include <stdlib.h>

#include "procfs.h"

#define WALK_MAX 4096

static int compare_rank(const void *a, const void *b)
{
	const struct job_proc *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

int discover_descendants(pid_t root, struct job_proc *out, int max)
{
	static pid_t queue[WALK_MAX];
	int head = 0, tail = 0, n = 0;

	if (!procfs_state(root)) {
		errno = ESRCH;
		return -1;
	}
	queue[tail++] = root;
	while (head < tail) {
		pid_t p = queue[head++];

		tail += procfs_children(p, queue + tail, WALK_MAX - tail);
		if (p == root || n >= max)
			continue;

		int rank = procfs_rank(p);

		if (rank < 0)
			continue;
		/* A helper forked by a rank inherits its environment: the rank is the ancestor. */
		if (procfs_rank(procfs_parent(p)) == rank)
			continue;
		out[n].pid = p;
		out[n].rank = rank;
		out[n].world_size = procfs_world_size(p);
		n++;
	}
	qsort(out, (size_t)n, sizeof(*out), compare_rank);
	return n;
}
