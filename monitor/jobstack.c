/* jobstack — a whole job's stacks, gathered to monitor 0 (jobstack.h). Each monitor renders its
 * own ranks (text is rendered where the ranks run, so nothing of their files is needed
 * elsewhere) and sends a JSON array of items; monitor 0 sorts them by rank and prints. */
#include "jobstack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pstack.h"
#include "report.h"

enum jobstack_format jobstack_format_parse(const char *word)
{
	static const char *const names[] = { "text", "json", "tree", "tree-json" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(word, names[i]))
			return (enum jobstack_format)(JOBSTACK_TEXT + i);
	return JOBSTACK_NONE;
}

/* One process as text: an item {"rank", "text"}; NULL with err when it cannot be looked at. */
static json_t *text_item(pid_t pid, int rank, struct symbolizer_pool *syms, const char *host,
			 char *err, size_t len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&buf, &size);

	if (!mem) {
		snprintf(err, len, "open_memstream: out of memory");
		return NULL;
	}

	int rc = pstack_process(pid, syms, host, mem, NULL, err, len);

	fclose(mem);

	json_t *item = rc < 0 ? NULL : json_pack("{s:i, s:s}", "rank", rank, "text", buf);

	free(buf);
	return item;
}

/* This monitor's processes as items of format f; *failed counts those that could not be
 * looked at (each said on standard error). */
static json_t *render_local(const struct comm *c, const struct job_proc *local, int nlocal,
			    enum jobstack_format f, int *failed)
{
	struct symbolizer_pool syms = { 0 };
	json_t *items = json_array();
	char err[512];

	for (int i = 0; i < nlocal; i++) {
		json_t *item = NULL;
		int ok;

		if (f == JOBSTACK_TEXT)
			ok = (item = text_item(local[i].pid, local[i].rank, &syms, c->host, err, sizeof(err))) != NULL;
		else if (f == JOBSTACK_JSON)
			ok = pstack_process(local[i].pid, &syms, c->host, NULL, items, err, sizeof(err)) == 0;
		else
			ok = (item = pstack_capture(local[i].pid, &syms, c->host, err, sizeof(err))) != NULL;
		if (item)
			json_array_append_new(items, item);
		if (!ok) {
			fprintf(stderr, "parastack stack: rank %d on %s: %s\n", local[i].rank, c->host, err);
			(*failed)++;
		}
	}
	symbolizer_pool_free(&syms);
	return items;
}

static void print_items(json_t *all, enum jobstack_format f)
{
	size_t i;
	json_t *item;

	if (f == JOBSTACK_TREE || f == JOBSTACK_TREE_JSON) {
		pstack_print_tree(stdout, all, f == JOBSTACK_TREE_JSON);
	} else if (f == JOBSTACK_JSON) {
		json_dumpf(all, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
		putchar('\n');
	} else {
		json_array_foreach(all, i, item)
			printf("%s%s", i ? "\n" : "", json_string_value(json_object_get(item, "text")));
	}
	fflush(stdout);
}

long jobstack_print(const struct comm *c, const struct job_proc *local, int nlocal,
		    enum jobstack_format f)
{
	int failed = 0;
	json_t *mine = render_local(c, local, nlocal, f, &failed);

	if (c->me != c->leader) {
		comm_send_json(mine);
	} else {
		for (int mon = 0; mon < c->size; mon++) {
			json_t *part = mon == c->me ? NULL : comm_recv_json(mon);

			if (json_is_array(part))
				json_array_extend(mine, part);
			json_decref(part);
		}
		report_sort_by_rank(mine);
		print_items(mine, f);
	}
	json_decref(mine);
	return comm_sum(failed);
}
