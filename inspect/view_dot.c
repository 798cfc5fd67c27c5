/* SPDX-License-Identifier: BSD-3-Clause */
/* view_dot — the report's merged stack tree as a Graphviz digraph (view.h), as STAT writes its
 * .dot: a node per frame with the ranks through it, the faulty ranks' nodes in red. */
#include "view.h"

/* Text into a quoted DOT label: quotes and backslashes escaped, control bytes dropped. */
static void dot_esc(FILE *out, const char *s)
{
	for (; s && *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, out);
}

struct dot_walk {
	json_t *r;
	int nodes;
};

/* Node n (its id) and its children's: the next free id. */
static int dot_node(FILE *out, struct dot_walk *w, json_t *node, int depth)
{
	int id = w->nodes++;
	size_t i;
	json_t *child;
	const char *ranks = json_string_value(json_object_get(node, "ranks"));

	fprintf(out, "  n%d [label=\"", id);
	dot_esc(out, json_string_value(json_object_get(node, "frame")));
	fputs("\\n", out);
	dot_esc(out, ranks);
	fprintf(out, " (%lld)\"%s];\n", (long long)json_integer_value(json_object_get(node, "count")),
		view_node_faulty(w->r, node) ? ", color=\"#bb0000\", fontcolor=\"#bb0000\", penwidth=2" : "");
	json_array_foreach(json_object_get(node, "children"), i, child) {
		if (w->nodes >= VIEW_TREE_NODES_MAX || depth + 1 >= VIEW_TREE_DEPTH_MAX)
			break;
		fprintf(out, "  n%d -> n%d;\n", id, w->nodes);
		dot_node(out, w, child, depth + 1);
	}
	return w->nodes;
}

int view_dot(FILE *out, json_t *r)
{
	struct dot_walk w = { r, 0 };
	json_t *node;
	size_t i;

	fputs("digraph parastack {\n  node [shape=box, fontname=\"monospace\"];\n", out);
	json_array_foreach(json_object_get(r, "tree"), i, node)
		if (w.nodes < VIEW_TREE_NODES_MAX)
			dot_node(out, &w, node, 0);
	fputs("}\n", out);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
