/* SPDX-License-Identifier: BSD-3-Clause */
/* report_stacks — `parastack stack`'s items printed (report_stacks.h): the same tree the hang
 * report draws, so a user reads one picture in both. */
#include "report_stacks.h"

#include "report.h"

void report_print_stacks(FILE *out, json_t *items, enum pstack_format f)
{
	size_t i;
	json_t *item;

	if (f == PSTACK_TREE || f == PSTACK_TREE_JSON) {
		json_t *groups, *tree;

		report_sort_by_rank(items);
		groups = report_groups(items);
		tree = report_tree(groups);
		if (f == PSTACK_TREE_JSON) {
			json_dumpf(tree, out, JSON_INDENT(2));
			fputc('\n', out);
		} else {
			fprintf(out, "%d process(es); each distinct call path once, with its ranks:\n",
				(int)json_array_size(items));
			report_print_tree(out, tree, 1 << 30);
		}
		json_decref(tree);
		json_decref(groups);
	} else if (f == PSTACK_JSON) {
		json_dumpf(items, out, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
		fputc('\n', out);
	} else {
		json_array_foreach(items, i, item)
			fprintf(out, "%s%s", i ? "\n" : "", json_string_value(json_object_get(item, "text")));
	}
	fflush(out);
}
