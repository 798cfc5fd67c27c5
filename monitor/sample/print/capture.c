/* SPDX-License-Identifier: BSD-3-Clause */
/* capture — symbolize the deciding thread of a rank and reduce it to what reports need. */
#include "capture.h"
#include "frames.h"
#include "mpiname.h"
#include "../../../base/runtimes.h"
#include "../safe/procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define SETTLE_NS 3000000000LL         /* how long a report waits for one thread slow to stop */
#define SETTLE_BUDGET_NS 10000000000LL /* and for all of them, in any minute */
#define SETTLE_PERIOD_NS 60000000000LL

static const struct thread_stack *main_thread(const struct thread_stack *th, int n)
{
	for (int i = 0; i < n; i++)
		if (th[i].main)
			return &th[i];
	return NULL;
}

/* The thread that decides the rank: a counted thread in MPI, else the main thread. */
static const struct thread_stack *deciding_thread(const struct thread_stack *th, int n)
{
	for (int i = 0; i < n; i++)
		if (th[i].counted && th[i].in_mpi)
			return &th[i];
	const struct thread_stack *m = main_thread(th, n);

	return m ? m : n ? &th[0] : NULL;
}

static json_t *frame_object(const struct frame_view *v)
{
	const struct sym_frame *f = &v->f;
	const char *mod = strrchr(f->module, '/');
	json_t *o = json_pack("{s:s, s:s?, s:o, s:s, s:b, s:b}", "func", f->func[0] ? f->func : "??",
			      "file", f->file[0] ? f->file : NULL,
			      "line", f->line ? json_integer(f->line) : json_null(), "module",
			      mod ? mod + 1 : f->module, "in_mpi", v->in_mpi, "inlined", f->inlined);

	if (v->symbol[0])
		json_object_set_new(o, "symbol", json_string(v->symbol));

	if (v->python) {
		json_object_set_new(o, "lang", json_string("python"));
		json_object_set_new(o, "library", json_boolean(v->library));
	}
	return o;
}

/* The call a rank is in, from the outermost frame of its communication library when that has
 * no API name (gloo's collectives, a stripped library): a C++ function without its parameter
 * list ("gloo::transport::tcp::UnboundBuffer::waitRecv"), a frame without a symbol as its module
 * alone ("libgloo.so.0.5.0", not "+0x338f7"): ranks waiting in one collective wait at different
 * offsets of its internals and are one group, as ranks in one MPI call are. */
static void call_from_frame(const struct frame_view *v, char *call, size_t len)
{
	const char *name = v->f.func, *paren = strchr(name, '('), *colons = strstr(name, "::");
	size_t n = strlen(name);

	if (v->unnamed) {
		const char *slash = strrchr(v->f.module, '/');

		name = slash ? slash + 1 : v->f.module;
		n = strlen(name);
	} else if (paren && colons && colons < paren) {
		n = (size_t)(paren - name);
	}
	snprintf(call, len, "%.*s", (int)(n < len ? n : len - 1), name);
}

/* What one thread's frames say, for the report. */
struct thread_view {
	json_t *frames;                /* innermost first */
	char call[96];                 /* the communication call it is in, or "" */
	char path[2048];               /* from main (or the outermost frame) to the call */
	char site[300];                /* its innermost frame of the program's own Python, or "" */
	const struct runtime *runtime; /* whose library the call is in (NULL: none, or unknown) */
	const struct runtime *worker;  /* the runtime whose worker thread this is, or NULL */
};

static const char *module_file(const char *module)
{
	const char *slash = strrchr(module, '/');

	return slash ? slash + 1 : module;
}

/* Where the path starts: main (frames above it are the C runtime), else the frame the C
 * runtime's start calls (a stripped program's main that tail-called its library), else the
 * outermost frame that is no C start. */
static int path_top(const char *const *names, int n)
{
	int top = -1, start = -1;

	for (int i = 0; i < n; i++) {
		if (frames_is_main(names[i]))
			top = i;
		if (start < 0 && i > 0 && frames_is_c_start(names[i]))
			start = i - 1;
	}
	if (top < 0)
		top = start >= 0 ? start : n - 1;
	/* No main (an interpreter whose own frames gave way to the Python ones): the C runtime's
	 * start frames are not the user's. */
	while (top > 0 && (!strcmp(names[top], "_start") || !strncmp(names[top], "__libc_start", 12)))
		top--;
	return top;
}

/* th's view; with to_program, its path ends at its innermost frame outside the C runtime (a
 * main thread waiting for a worker waits in pthread_cond_wait: the frame above it says for
 * what). */
static void view_thread(struct target *t, struct symbolizer *sy, const struct thread_stack *th,
			bool to_program, struct thread_view *out)
{
	const char *names[TARGET_MAX_FRAMES * 2];
	int at[TARGET_MAX_FRAMES * 2]; /* names[k] is v[at[k]]'s */
	int mpi_at = -1, nn = 0;
	static struct frame_view v[TARGET_MAX_FRAMES * 2];
	static char labels[TARGET_MAX_FRAMES * 2][300];
	int nv = th ? frames_view(t, sy, th, v, TARGET_MAX_FRAMES * 2) : 0;

	memset(out, 0, sizeof(*out));
	out->frames = json_array();
	for (int i = 0; i < nv; i++) {
		struct sym_frame *f = &v[i].f;

		json_array_append_new(out->frames, frame_object(&v[i]));
		if (v[i].recorder) /* parastack's own wrapper: not the program's path */
			continue;
		/* A Python frame is known by its function and line: "relax (solver.py:31)". */
		if (v[i].python && f->line)
			snprintf(labels[i], sizeof(labels[i]), "%.200s (%.60s:%d)", f->func, f->module, f->line);
		else
			snprintf(labels[i], sizeof(labels[i]), "%s", f->func);
		at[nn] = i;
		names[nn] = labels[i];
		if (v[i].in_mpi)
			mpi_at = nn; /* the outermost communication frame: the call the app made */
		if (v[i].python && !v[i].library && f->line && !out->site[0])
			snprintf(out->site, sizeof(out->site), "%.299s", labels[i]);
		if (!out->worker && !v[i].python)
			out->worker = runtime_of_worker_frame(f->func);
		nn++;
	}
	/* The call: the outermost MPI frame with an API name, searching inward from it. */
	for (int k = mpi_at; k >= 0 && !out->call[0]; k--)
		mpiname_of(names[k], out->call, sizeof(out->call));
	if (mpi_at >= 0 && !out->call[0])
		call_from_frame(&v[at[mpi_at]], out->call, sizeof(out->call));
	if (mpi_at >= 0)
		out->runtime = runtime_of_library(module_file(v[at[mpi_at]].f.module));

	/* Down to the call, or to the innermost application frame when out of it. */
	int top = path_top(names, nn), bottom = mpi_at >= 0 ? mpi_at + 1 : 0;
	size_t o = 0;

	while (to_program && mpi_at < 0 && bottom < top && !v[at[bottom]].python &&
	       maps_classify_path(v[at[bottom]].f.module, NULL) == MODULE_RUNTIME)
		bottom++;
	for (int k = top; k >= bottom && o < sizeof(out->path) - 8; k--)
		o += (size_t)snprintf(out->path + o, sizeof(out->path) - o, "%s%s", o ? " > " : "", names[k]);
	if (out->call[0] && o < sizeof(out->path) - 8)
		snprintf(out->path + o, sizeof(out->path) - o, "%s%s", o ? " > " : "", out->call);
}

/* The rank's position: its deciding thread's, except where that is a runtime's worker (gloo's
 * process-group thread runs the collective DDP's backward waits for): then its main thread's,
 * which holds the trainer's own Python line, with the worker folded in ("[gloo worker: waits
 * in libgloo.so.0.5.0]") and kept whole under "worker". */
static void describe(struct target *t, struct symbolizer *sy, const struct thread_stack *th,
		     const struct thread_stack *main_th, json_t *rank)
{
	static struct thread_view d, m;
	const char *word = "MPI";

	view_thread(t, sy, th, false, &d);
	if (d.runtime)
		word = d.runtime->word;
	if (d.worker && d.call[0] && main_th && main_th != th) {
		view_thread(t, sy, main_th, true, &m);
		json_object_set_new(rank, "worker", json_pack("{s:s, s:s, s:s, s:o}", "runtime", d.worker->word,
							       "call", d.call, "path", d.path, "frames", d.frames));
		size_t o = strlen(m.path);

		snprintf(m.path + o, sizeof(m.path) - o, "%s[%s worker: waits in %s]", o ? " > " : "",
			 d.worker->word, d.call);
		snprintf(m.call, sizeof(m.call), "%s", d.call);
		d = m;
	}
	json_object_set_new(rank, "mpi_call", d.call[0] ? json_string(d.call) : json_null());
	json_object_set_new(rank, "path", json_string(d.path));
	json_object_set_new(rank, "frames", d.frames);
	if (d.call[0])
		json_object_set_new(rank, "runtime", json_string(word));
	if (d.site[0])
		json_object_set_new(rank, "site", json_string(d.site));
}

/* Wait for tid, slow to stop, to be let go: at most SETTLE_NS, and SETTLE_BUDGET_NS a minute
 * over all ranks, so a node of ranks that never stop cannot hold the report for long. */
static bool settle_within_budget(pid_t tid)
{
	static int64_t period_start, spent;
	int64_t now = snapshot_now_ns(), left;

	if (now - period_start > SETTLE_PERIOD_NS) {
		period_start = now;
		spent = 0;
	}
	left = SETTLE_BUDGET_NS - spent;
	if (left <= 0)
		return false;

	bool let_go = snapshot_settle(tid, left < SETTLE_NS ? left : SETTLE_NS);

	spent += snapshot_now_ns() - now;
	return let_go;
}

json_t *capture_rank(struct target *t, struct symbolizer *sy, const char *host)
{
	struct thread_stack *threads;
	char err[512];
	int n = 0;
	enum rank_state state;

	enum target_status st = target_capture(t, &threads, &n, &state, err, sizeof(err));

	/* A thread that waited over a second for a core (a spinning rank among busy pollers on an
	 * oversubscribed node) is often the faulty rank itself: once it has stopped and been let
	 * go, the report tries it once more rather than show the rank without a stack. */
	if (st == TARGET_SLOW && settle_within_budget(t->snap.tid))
		st = target_capture(t, &threads, &n, &state, err, sizeof(err));
	if (st == TARGET_GONE || st == TARGET_REUSED)
		return capture_exited(t->rank, t->pid, host);
	/* Alive but not sampled this time (a thread slow to stop on a loaded node): no evidence
	 * either way, never taken for an exit. */
	if (st != TARGET_OK)
		return json_pack("{s:i, s:s, s:i, s:s, s:n, s:s++, s:[], s:b}", "rank", t->rank, "host",
				 host, "pid", (int)t->pid, "state", "UNKNOWN", "mpi_call", "path",
				 "(not sampled: ", err, ")", "frames", "stopped", 0);

	json_t *rank = json_pack("{s:i, s:s, s:i, s:s}", "rank", t->rank, "host", host, "pid",
				 (int)t->pid, "state", rank_state_name(state));
	const struct thread_stack *th = deciding_thread(threads, n);

	/* The main thread sits in the kernel and no thread is in MPI: its stack is the kernel's. */
	if (t->in_kernel && !(th && th->counted && th->in_mpi))
		th = NULL;
	describe(t, sy, th, main_thread(threads, n), rank);
	if (!th && t->in_kernel) {
		char path[128];

		snprintf(path, sizeof(path), "(in the kernel: %s)", t->wchan);
		json_object_set_new(rank, "path", json_string(path));
	}
	json_object_set_new(rank, "stopped", json_boolean(th && th->group_stopped));
	/* Where the others wait in the start-up, a rank not there yet is named so (report.c). */
	if (target_thread_in_init(t, th))
		json_object_set_new(rank, "in_init", json_true());
	if (t->py.minor >= 0) {
		char why[200];

		pyframes_why_not(&t->py, why, sizeof(why));
		json_object_set_new(rank, "python", json_pack("{s:i, s:b, s:s?}", "minor", t->py.minor, "frames",
							       t->py.layout != NULL, "why", why[0] ? why : NULL));
	}
	if (t->in_kernel) {
		json_object_set_new(rank, "in_kernel", json_true());
		json_object_set_new(rank, "wchan", json_string(t->wchan));
	}
	free(threads);
	return rank;
}

/* How a rank that is gone ended, as far as this node can tell: a zombie still holds its status;
 * once its parent has collected it, only the parent (the launcher) knows. */
static void describe_exit(pid_t pid, char *buf, size_t len)
{
	int st = procfs_exit_code(pid);

	if (st >= 0 && WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d (SIG%s)%s", WTERMSIG(st), sigabbrev_np(WTERMSIG(st)) ?
			 sigabbrev_np(WTERMSIG(st)) : "?", WCOREDUMP(st) ? ", core dumped" : "");
	else if (st >= 0)
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	else
		snprintf(buf, len, "ended; its parent (the launcher) has its exit status — its output "
			 "says how it ended");
}

json_t *capture_exited(int rank, pid_t pid, const char *host)
{
	char how[160];

	describe_exit(pid, how, sizeof(how));
	return json_pack("{s:i, s:s, s:i, s:s, s:n, s:s, s:[], s:b, s:s}", "rank", rank, "host", host,
			 "pid", (int)pid, "state", "EXITED", "mpi_call", "path", "(exited)", "frames",
			 "stopped", 0, "exit", how);
}
