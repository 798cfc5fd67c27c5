/* SPDX-License-Identifier: BSD-3-Clause */
/* tree — the monitors' tree (tree.h). */
#include "tree.h"

static int rel(const struct tree *t, int mon)
{
	return (mon - t->root + t->size) % t->size;
}

static int mon_at(const struct tree *t, int r)
{
	return (r + t->root) % t->size;
}

/* Append the monitors mon asks in its own place: its children, gone ones replaced by theirs. */
static int children_into(const struct tree *t, int mon, int *out, int n, int max)
{
	long first = (long)rel(t, mon) * t->fanout + 1;

	for (long r = first; r < first + t->fanout && r < t->size && n < max; r++) {
		int c = mon_at(t, (int)r);

		if (t->gone && t->gone[c])
			n = children_into(t, c, out, n, max);
		else
			out[n++] = c;
	}
	return n;
}

int tree_children(const struct tree *t, int mon, int *out, int max)
{
	return t->size > 1 && t->fanout >= 1 ? children_into(t, mon, out, 0, max) : 0;
}

int tree_subtree(const struct tree *t, int mon, int *out, int max)
{
	int n = 0, head = 0;

	if (max < 1)
		return 0;
	out[n++] = mon;
	/* Breadth first over the tree as built without gone monitors. */
	while (head < n && n < max) {
		int k = tree_children(t, out[head++], out + n, max - n);

		n += k;
	}
	return n;
}

int tree_depth(const struct tree *t)
{
	int depth = 0;

	for (long last = 0, width = 1; last < t->size - 1; depth++) {
		width *= t->fanout;
		last += width;
	}
	return depth;
}
