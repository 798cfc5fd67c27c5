/* SPDX-License-Identifier: BSD-3-Clause */
/* pstack — one process's stacks as text or JSON, and processes' call paths merged into a tree
 * (pstack.h). Each thread is stopped for microseconds (target.c) and always let go. */
#include "pstack.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "frames.h"
#include "../addr/symbolize.h"
#include "../stop/target.h"


static const char *thread_role(const struct thread_stack *th)
{
	if (th->main)
		return "main";
	return th->counted ? "application" : "runtime, not counted";
}

static void print_frame(FILE *out, int idx, const struct frame_view *v)
{
	const struct sym_frame *f = &v->f;
	bool in_mpi = v->in_mpi;
	const char *mod = strrchr(f->module, '/');

	if (v->python) { /* no address: the interpreter runs it */
		fprintf(out, "    #%-2d %-18s %s [Python]", idx, "", f->func);
		if (f->file[0])
			fprintf(out, " at %s:%d", f->file, f->line);
		fputc('\n', out);
		return;
	}

	mod = mod ? mod + 1 : f->module;
	fprintf(out, "    #%-2d 0x%016llx %s", idx, (unsigned long long)f->pc,
		f->func[0] ? f->func : "??");
	if (f->func[0] && !f->inlined && !v->unnamed) /* module+0xOFFSET has its own */
		fprintf(out, "+0x%llx", (unsigned long long)f->offset);
	if (f->inlined)
		fprintf(out, " (inlined)");
	fprintf(out, " [%s]%s", mod[0] ? mod : "?", in_mpi ? " MPI" : "");
	if (f->file[0])
		fprintf(out, " at %s:%d", f->file, f->line);
	fputc('\n', out);
}

static json_t *frame_json(const struct frame_view *v)
{
	const struct sym_frame *f = &v->f;
	bool in_mpi = v->in_mpi;
	char pc[24];

	snprintf(pc, sizeof(pc), "0x%llx", (unsigned long long)f->pc);

	json_t *j = json_pack("{s:s, s:s?, s:s?, s:b, s:b}", "pc", pc, "func",
			      f->func[0] ? f->func : NULL, "module", f->module[0] ? f->module : NULL,
			      "inlined", f->inlined, "in_mpi", in_mpi);

	if (v->symbol[0])
		json_object_set_new(j, "symbol", json_string(v->symbol));

	json_object_set_new(j, "offset", f->inlined ? json_null() : json_integer((json_int_t)f->offset));
	json_object_set_new(j, "file", f->file[0] ? json_string(f->file) : json_null());
	json_object_set_new(j, "line", f->line ? json_integer(f->line) : json_null());
	if (v->python) {
		json_object_set_new(j, "lang", json_string("python"));
		json_object_set_new(j, "library", json_boolean(v->library));
		json_object_set_new(j, "pc", json_null());
		json_object_set_new(j, "offset", json_null());
	}
	return j;
}

/* Symbolize and emit one thread, as text or into a JSON array of threads. */
static void emit_thread(FILE *text, struct symbolizer *sy, struct target *t,
			const struct thread_stack *th, json_t *jthreads)
{
	json_t *jframes = json_array();
	static struct frame_view v[TARGET_MAX_FRAMES * 2];
	int nv = frames_view(t, sy, th, v, TARGET_MAX_FRAMES * 2);

	if (text)
		fprintf(text, "  thread %d (%s)%s%s\n", (int)th->tid, thread_role(th),
			th->in_mpi ? " in MPI" : "", th->group_stopped ? " [stopped]" : "");
	for (int i = 0; i < nv; i++) {
		if (text)
			print_frame(text, i, &v[i]);
		else
			json_array_append_new(jframes, frame_json(&v[i]));
	}
	if (text)
		json_decref(jframes);
	else
		json_array_append_new(jthreads, json_pack("{s:i, s:b, s:b, s:b, s:b, s:o}", "tid",
							  (int)th->tid, "main", th->main, "counted",
							  th->counted, "in_mpi", th->in_mpi,
							  "stopped", th->group_stopped, "frames", jframes));
}

static void print_header(FILE *text, const struct target *t, pid_t pid, const char *host,
			 enum rank_state state)
{
	fprintf(text, "process %d", (int)pid);
	if (t->rank >= 0)
		fprintf(text, " rank %d", t->rank);
	if (host)
		fprintf(text, " on %s", host);
	fprintf(text, ": %s%s\n", rank_state_name(state),
		target_uses_mpi(t) ? "" : " (no MPI library mapped)");
	/* A main thread in uninterruptible sleep cannot stop until it leaves the kernel: not
	 * stopped, it has no user-space frames to show, only where the kernel holds it. */
	char why[200];

	pyframes_why_not(&t->py, why, sizeof(why));
	if (why[0])
		fprintf(text, "  Python: %s\n", why);
	if (t->in_kernel)
		fprintf(text, "  thread %d (main) in the kernel: uninterruptible sleep (D), wait channel "
			"%s; not stopped\n", (int)pid, t->wchan);
}

static json_t *process_json(const struct target *t, pid_t pid, const char *host,
			    enum rank_state state, json_t *jthreads)
{
	json_t *j = json_pack("{s:i, s:s, s:o, s:b}", "pid", (int)pid, "state",
			      rank_state_name(state), "threads", jthreads, "uses_mpi",
			      target_uses_mpi(t));

	json_object_set_new(j, "rank", t->rank >= 0 ? json_integer(t->rank) : json_null());
	if (host)
		json_object_set_new(j, "host", json_string(host));
	if (t->in_kernel) {
		json_object_set_new(j, "in_kernel", json_true());
		json_object_set_new(j, "wchan", json_string(t->wchan));
	}
	return j;
}

/* Stop pid's threads one at a time, unwind, detach, and describe it: as text on `text`, or as
 * an object appended to the JSON array `json` (when text is NULL). host, when not NULL, is
 * named in both (a job spanning hosts). 0, or -1 with err (nothing is left stopped). */
static int pstack_process(pid_t pid, struct symbolizer_pool *syms, const char *host, FILE *text,
			  json_t *json, char *err, size_t len)
{
	struct thread_stack *threads = NULL;
	struct target t;
	int n = 0;
	enum rank_state state;
	enum target_status st = target_open(&t, pid, err, len);

	if (st == TARGET_OK)
		st = target_capture(&t, &threads, &n, &state, err, len);
	if (st != TARGET_OK) {
		target_close(&t);
		return -1;
	}

	struct symbolizer *sy = symbolizer_pool_get(syms, &t.maps);
	json_t *jthreads = text ? NULL : json_array();

	if (text)
		print_header(text, &t, pid, host, state);
	for (int i = 0; i < n; i++)
		emit_thread(text, sy, &t, &threads[i], jthreads);
	if (!text)
		json_array_append_new(json, process_json(&t, pid, host, state, jthreads));
	free(threads);
	target_close(&t);
	return 0;
}

enum pstack_format pstack_format_parse(const char *word)
{
	for (int f = PSTACK_TEXT; f <= PSTACK_TREE_JSON; f++)
		if (!strcmp(word, pstack_format_name((enum pstack_format)f)))
			return (enum pstack_format)f;
	return PSTACK_NONE;
}

const char *pstack_format_name(enum pstack_format f)
{
	static const char *const names[] = { "", "text", "json", "tree", "tree-json" };

	return names[f];
}

/* pid as a rank object of a report snapshot (capture.h): its deciding thread's call path.
 * NULL with err when it cannot be looked at. */
static json_t *capture_item(pid_t pid, struct symbolizer_pool *syms, const char *host, char *err,
			    size_t len)
{
	struct target t;
	json_t *rank = NULL;

	if (target_open(&t, pid, err, len) == TARGET_OK)
		rank = capture_rank(&t, symbolizer_pool_get(syms, &t.maps), host);
	target_close(&t);
	return rank;
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

json_t *pstack_items(const pid_t *pids, const int *ranks, int n, const char *host,
		     enum pstack_format f, int *failed)
{
	struct symbolizer_pool syms = { 0 };
	json_t *items = json_array();
	char err[512], me[256] = "";

	gethostname(me, sizeof(me) - 1);
	for (int i = 0; i < n; i++) {
		int rank = host ? ranks[i] : -1;
		json_t *item = NULL;
		bool ok;

		if (f == PSTACK_TEXT)
			ok = (item = text_item(pids[i], rank, &syms, host, err, sizeof(err))) != NULL;
		else if (f == PSTACK_JSON)
			ok = pstack_process(pids[i], &syms, host, NULL, items, err, sizeof(err)) == 0;
		else
			ok = (item = capture_item(pids[i], &syms, host ? host : me, err, sizeof(err))) != NULL;
		if (item)
			json_array_append_new(items, item);
		if (ok)
			continue;
		(*failed)++;
		if (host)
			fprintf(stderr, "parastack stack: rank %d on %s: %s\n", rank, host, err);
		else
			fprintf(stderr, "parastack stack: %s\n", err);
	}
	symbolizer_pool_free(&syms);
	return items;
}
