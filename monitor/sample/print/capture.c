/* SPDX-License-Identifier: BSD-3-Clause */
/* capture — symbolize the deciding thread of a rank and reduce it to what reports need. */
#include "capture.h"
#include "frames.h"
#include "mpiname.h"
#include "../safe/procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define SETTLE_NS 3000000000LL         /* how long a report waits for one thread slow to stop */
#define SETTLE_BUDGET_NS 10000000000LL /* and for all of them, in any minute */
#define SETTLE_PERIOD_NS 60000000000LL

/* The thread that decides the rank: a counted thread in MPI, else the main thread. */
static const struct thread_stack *deciding_thread(const struct thread_stack *th, int n)
{
	for (int i = 0; i < n; i++)
		if (th[i].counted && th[i].in_mpi)
			return &th[i];
	for (int i = 0; i < n; i++)
		if (th[i].main)
			return &th[i];
	return n ? &th[0] : NULL;
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

/* Frames innermost first; path from main (or the outermost frame) to the MPI call. */
static void describe(struct target *t, struct symbolizer *sy, const struct thread_stack *th,
		     json_t *rank)
{
	json_t *frames = json_array();
	char call[96] = "", path[2048] = "";
	const char *names[TARGET_MAX_FRAMES * 2];
	int nnames = 0, mpi_at = -1;
	static struct frame_view v[TARGET_MAX_FRAMES * 2];
	static char labels[TARGET_MAX_FRAMES * 2][300];
	int nv = th ? frames_view(t, sy, th, v, TARGET_MAX_FRAMES * 2) : 0;

	for (int i = 0; i < nv; i++, nnames++) {
		struct sym_frame *f = &v[i].f;

		json_array_append_new(frames, frame_object(&v[i]));
		/* A Python frame is known by its function and line: "relax (solver.py:31)". */
		if (v[i].python && f->line)
			snprintf(labels[i], sizeof(labels[i]), "%.200s (%.60s:%d)", f->func, f->module, f->line);
		else
			snprintf(labels[i], sizeof(labels[i]), "%s", f->func);
		names[nnames] = labels[i];
		if (v[i].in_mpi)
			mpi_at = nnames; /* the outermost MPI frame: the call the app made */
	}
	/* The MPI call: the outermost MPI frame with an API name, searching inward from it. */
	for (int i = mpi_at; i >= 0 && !call[0]; i--)
		mpiname_of(names[i], call, sizeof(call));
	if (mpi_at >= 0 && !call[0])
		call_from_frame(&v[mpi_at], call, sizeof(call));

	/* Path: from main (frames above it are the C runtime) down to the MPI call, or to the
	 * innermost application frame when out of MPI. Without a main (a stripped program's main
	 * that tail-called its library), from the frame the C runtime's start calls. */
	int top = -1, start = -1;

	for (int i = 0; i < nnames; i++) {
		if (frames_is_main(names[i]))
			top = i;
		if (start < 0 && i > 0 && frames_is_c_start(names[i]))
			start = i - 1;
	}
	if (top < 0)
		top = start >= 0 ? start : nnames - 1;
	/* No main (an interpreter whose own frames gave way to the Python ones): the C runtime's
	 * start frames are not the user's. */
	while (top > 0 && (!strcmp(names[top], "_start") || !strncmp(names[top], "__libc_start", 12)))
		top--;

	int bottom = mpi_at >= 0 ? mpi_at + 1 : 0;
	size_t o = 0;

	for (int i = top; i >= bottom && o < sizeof(path) - 8; i--)
		o += (size_t)snprintf(path + o, sizeof(path) - o, "%s%s", o ? " > " : "", names[i]);
	if (call[0] && o < sizeof(path) - 8)
		snprintf(path + o, sizeof(path) - o, "%s%s", o ? " > " : "", call);
	json_object_set_new(rank, "mpi_call", call[0] ? json_string(call) : json_null());
	json_object_set_new(rank, "path", json_string(path));
	json_object_set_new(rank, "frames", frames);
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
	describe(t, sy, th, rank);
	if (!th && t->in_kernel) {
		char path[128];

		snprintf(path, sizeof(path), "(in the kernel: %s)", t->wchan);
		json_object_set_new(rank, "path", json_string(path));
	}
	json_object_set_new(rank, "stopped", json_boolean(th && th->group_stopped));
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
