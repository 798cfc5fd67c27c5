/* SPDX-License-Identifier: BSD-3-Clause */
/* tree — the monitors as a tree for what flows to the leader at report time (issue 39): the
 * leader at the root, then the others in leader-relative order, each with up to `fanout`
 * children. A snapshot asked of the job reaches every monitor in depth log_fanout(monitors)
 * steps, and each monitor hears from its children only: the leader receives fanout messages,
 * not one per monitor. A monitor that does not answer in time is left out (with every monitor
 * below it that cannot be reached another way): the tree is built around it, its parent then
 * asking its children itself. Pure arithmetic on monitor numbers: no MPI here. */
#ifndef PARASTACK_TREE_H
#define PARASTACK_TREE_H

#include <stdbool.h>

#include "../../base/options.h"

#define TREE_FANOUT_DEFAULT WATCH_FANOUT_DEFAULT
#define TREE_FANOUT_MIN WATCH_FANOUT_MIN
#define TREE_FANOUT_MAX WATCH_FANOUT_MAX

struct tree {
	int size, root, fanout;
	const bool *gone; /* size flags, or NULL: monitors left out (not answering) */
};

/* The tree's children of monitor mon, with every gone child replaced by its own children
 * (recursively): the monitors mon asks. The count written to out (at most max). */
int tree_children(const struct tree *t, int mon, int *out, int max);

/* Monitor mon and every monitor below it in the tree as built without gone monitors: those a
 * missing answer from mon leaves out. The count. */
int tree_subtree(const struct tree *t, int mon, int *out, int max);

/* Steps from the root to the deepest monitor. */
int tree_depth(const struct tree *t);

#endif
