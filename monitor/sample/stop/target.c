/* SPDX-License-Identifier: BSD-3-Clause */
/* target — sampling one process: snapshot each thread, unwind the copy, classify. Threads are
 * stopped one at a time, each for microseconds; the main thread goes first because it decides
 * most samples on its own. */
#include "target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "../../../record/record_format.h"
#include "../safe/fscreds.h"
#include "../safe/identity.h"
#include "../safe/procfs.h"
#include "../addr/progress.h"

#define KERNEL_RECHECKS 3

static enum target_status from_snapshot(enum snapshot_status st)
{
	switch (st) {
	case SNAPSHOT_OK: return TARGET_OK;
	case SNAPSHOT_GONE: return TARGET_GONE;
	case SNAPSHOT_DENIED: return TARGET_DENIED;
	case SNAPSHOT_TIMEOUT: return TARGET_SLOW;
	default: return TARGET_FAILED;
	}
}

/* Load the map (which opens the mapped files for their symbols) as the target's owner. */
static int target_load_maps(const struct target *t, struct maps *m)
{
	struct fscreds saved;
	int r, e;

	fscreds_enter(t->uid, t->gid, &saved);
	r = maps_load(t->pid, m);
	e = errno;
	fscreds_leave(&saved);
	errno = e;
	return r;
}

/* A CPython rank: its layout and runtime, found as its owner (the symbol is read from the
 * interpreter's file). */
static void target_probe_python(struct target *t)
{
	struct fscreds saved;

	fscreds_enter(t->uid, t->gid, &saved);
	pyframes_probe(&t->maps, &t->py);
	fscreds_leave(&saved);
}

/* Where its recording layer keeps its area; and whether the map already says it is the
 * program (target_note_program). */
static void target_probe_program(struct target *t)
{
	t->record_addr = target_record_area(t);
	t->was_program = !t->record_addr && target_uses_mpi(t);
	target_note_program(t);
}

/* A thread being sampled, for the walk done while it is held. */
struct held_thread {
	const struct target *t;
	struct thread_stack *th;
};

/* While a thread is held: its Python frame chain (the code objects are read after). */
static void target_read_python(pid_t tid, void *arg)
{
	struct held_thread *h = arg;
	pid_t pid = h->t->pid;

	/* The thread's pthread_t is its fs base (x86_64 glibc): what 3.8-3.10 know a thread by. */
	h->th->npy = pyframes_walk(h->t->py.layout, h->t->py.runtime, tid, h->t->snap.regs.fs_base,
				   pyframes_read_process, &pid, h->th->py, PY_MAX_FRAMES);
}

static enum target_status target_reload_maps(struct target *t, char *err, size_t len)
{
	struct maps fresh;

	if (target_load_maps(t, &fresh) < 0) {
		snprintf(err, len, "read /proc/%d/maps: %s", (int)t->pid, strerror(errno));
		return errno == ESRCH ? TARGET_GONE : TARGET_FAILED;
	}
	maps_free(&t->maps);
	t->maps = fresh;
	t->maps_read_ns = snapshot_now_ns();
	t->unw->flush(t->unw_state);
	if (t->py.minor < 0) /* an interpreter found once stays where it is */
		target_probe_python(t);
	return TARGET_OK;
}

/* A map read this long ago may be reread when the unwind looks wrong (see map_looks_stale). */
#define MAPS_RECHECK_NS 1000000000LL

/* Does the walk end where a thread's stack begins: in the C library (a thread's clone) or in
 * the program (_start)? Not merely in a library that holds no application code: libnuma's name
 * on a plugin's code ends a walk there, short of the application. A stack cut short (an
 * instruction without unwind information, a map out of date) would look like movement, and
 * says nothing of where the thread is. */
static bool walk_reaches_start(const struct target *t, const uint64_t *ips, int n)
{
	const struct mapping *m = n ? maps_find(&t->maps, frame_lookup_pc(ips, n - 1)) : NULL;

	return m && m->stack_base;
}

/* Does the unwind say the map no longer describes the process? A pc in no mapping, always; a pc
 * in data, a walk that broke off or one that ends short of the thread's start, when the map is
 * older than MAPS_RECHECK_NS: the libraries MPI_Init loads and unloads (a transport that finds
 * no hardware) leave a map read before them naming another library's code where a plugin
 * loaded later now lies (libnuma's name on mca_coll_tuned's code), which then unwinds with the
 * wrong tables — a walk that may end quietly one frame further, never reaching the
 * application. A walk short for other reasons (code without unwind tables) rereads the map at
 * most once a second. */
static bool map_looks_stale(const struct target *t, const uint64_t *ips, int n, bool broken)
{
	bool data = false;

	if (n == 0)
		return true;
	for (int i = 0; i < n; i++) {
		const struct mapping *m = maps_find(&t->maps, frame_lookup_pc(ips, i));

		if (!m)
			return true;
		data = data || !m->exec;
	}
	if (snapshot_now_ns() - t->maps_read_ns < MAPS_RECHECK_NS)
		return false;
	return data || broken || !walk_reaches_start(t, ips, n);
}

/* Unwind the current snapshot into ips; read the map again and unwind once more if it looks
 * out of date (a library loaded or unloaded since, JIT code). Nothing is opened: the unwind
 * tables are read from the target's memory (unwind_libunwind.c). */
static int target_unwind(struct target *t, uint64_t *ips, uint64_t *fhash, char *err, size_t len)
{
	bool broken = false;
	int n = t->unw->unwind(t->unw_state, &t->snap, &t->maps, ips, fhash, TARGET_MAX_FRAMES, &broken);

	if (map_looks_stale(t, ips, n, broken) && target_reload_maps(t, err, len) == TARGET_OK)
		n = t->unw->unwind(t->unw_state, &t->snap, &t->maps, ips, fhash, TARGET_MAX_FRAMES, &broken);
	return n;
}

/* Is t still the process that was opened: same start, same program, same owner (identity.h)? */
static enum target_status target_check_identity(struct target *t, char *err, size_t len)
{
	char why[200];

	switch (identity_check(t->pid, &t->id, why, sizeof(why))) {
	case IDENTITY_SAME: return TARGET_OK;
	case IDENTITY_GONE: snprintf(err, len, "%s", why); return TARGET_GONE;
	case IDENTITY_REUSED: snprintf(err, len, "%s; not sampled", why); return TARGET_REUSED;
	default: snprintf(err, len, "%s; not sampled", why); return TARGET_CHANGED;
	}
}

enum target_status target_still_same(struct target *t, char *err, size_t len)
{
	return target_check_identity(t, err, len);
}

enum target_status target_open(struct target *t, pid_t pid, char *err, size_t len)
{
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->rank = -1;
	t->stack_max = SNAPSHOT_STACK_DEFAULT;
	t->unw = &unwinder_libunwind;

	char state = procfs_state(pid);

	if (!state) {
		snprintf(err, len, "%d: no such process", (int)pid);
		return TARGET_GONE;
	}
	if (state == 'Z') {
		snprintf(err, len, "%d: is a zombie (exited, not yet reaped by its parent)", (int)pid);
		return TARGET_GONE;
	}
	if (identity_read(pid, &t->id) < 0) {
		snprintf(err, len, "%d: no such process", (int)pid);
		return TARGET_GONE;
	}
	if (fscreds_owner(pid, &t->uid, &t->gid) < 0) {
		int e = errno;

		snprintf(err, len, "%d: cannot read its owner from /proc/%d/status: %s", (int)pid,
			 (int)pid, strerror(e));
		return e == ENOENT || e == ESRCH ? TARGET_GONE : TARGET_FAILED;
	}
	if (target_load_maps(t, &t->maps) < 0) {
		int e = errno;

		if (e == EACCES || e == EPERM) {
			char why[200];

			procfs_explain_eperm(pid, why, sizeof(why));
			snprintf(err, len, "%d: cannot read its memory map: %s — %s", (int)pid,
				 strerror(e), why);
			return TARGET_DENIED;
		}
		snprintf(err, len, "%d: cannot read its memory map: %s", (int)pid, strerror(e));
		return e == ESRCH ? TARGET_GONE : TARGET_FAILED;
	}
	t->maps_read_ns = snapshot_now_ns();
	t->rank = procfs_rank(pid);
	target_probe_python(t);
	target_probe_program(t);
	t->unw_state = t->unw->open(pid);
	if (!t->unw_state) {
		snprintf(err, len, "%d: cannot set up the unwinder (out of memory?)", (int)pid);
		maps_free(&t->maps);
		return TARGET_FAILED;
	}
	return TARGET_OK;
}

void target_close(struct target *t)
{
	if (t->unw_state)
		t->unw->close(t->unw_state);
	t->unw_state = NULL;
	snapshot_release(&t->snap);
	maps_free(&t->maps);
	pid_list_free(&t->tids);
}

bool target_uses_mpi(const struct target *t)
{
	for (int i = 0; i < t->maps.len; i++)
		if (t->maps.m[i].kind == MODULE_MPI)
			return true;
	return maps_has_mpi_symbols(&t->maps);
}

static void cost_add(struct sample_cost *cost, const struct snapshot *s)
{
	if (!cost)
		return;
	cost->threads++;
	cost->stopped_sum += s->stopped_ns;
	cost->held_sum += s->held_ns;
	if (s->stopped_ns > cost->stopped_max)
		cost->stopped_max = s->stopped_ns;
}

/* The stack copy every target's snapshot uses in turn, one per sampling thread: a copy is
 * unwound before the next is taken, so a node of 256 ranks holds one 64 KiB buffer, not 256. */
static __thread struct {
	unsigned char *buf;
	size_t cap;
} stack_copy;

/* Snapshot, unwind and classify one thread into th. */
static enum target_status target_thread(struct target *t, pid_t tid, struct thread_stack *th,
					struct sample_cost *cost, char *err, size_t len)
{
	struct held_thread held = { t, th };

	th->npy = 0;
	t->snap.while_held = t->py.layout ? target_read_python : NULL;
	t->snap.while_held_arg = &held;
	t->snap.stack = stack_copy.buf;
	t->snap.stack_cap = stack_copy.cap;

	enum snapshot_status ss = snapshot_take(tid, &t->snap, t->stack_max, err, len);

	t->snap.while_held = NULL; /* held lives on this stack */
	stack_copy.buf = t->snap.stack; /* grown by snapshot_take if it had to */
	stack_copy.cap = t->snap.stack_cap;
	if (ss == SNAPSHOT_OK) {
		cost_add(cost, &t->snap);
		th->tid = tid;
		th->main = tid == t->pid;
		th->group_stopped = t->snap.group_stopped;
		th->nframes = target_unwind(t, th->ips, th->fhash, err, len);
	}
	/* The copy is the thread's buffer again: nothing of this target points at it. */
	t->snap.stack = NULL;
	t->snap.stack_cap = 0;
	t->snap.stack_len = 0;
	if (ss != SNAPSHOT_OK)
		return from_snapshot(ss);
	/* The Python frames are progress too: where each code object stands. */
	if (th->npy && th->nframes) {
		uint64_t h = 0;

		for (int i = 0; i < th->npy; i++)
			h = progress_mix(progress_mix(h, th->py[i].code), th->py[i].instr);
		th->fhash[th->nframes - 1] = progress_mix(th->fhash[th->nframes - 1], h);
	}
	classify_thread(&t->maps, th->ips, th->nframes, th->main, &th->counted, &th->in_mpi);
	return TARGET_OK;
}

/* Threads of the process, or an error status. */
static enum target_status target_threads(struct target *t, int *n, char *err, size_t len)
{
	enum target_status st = target_check_identity(t, err, len);

	if (st != TARGET_OK)
		return st;
	*n = procfs_thread_list(t->pid, &t->tids);
	if (*n <= 0) {
		snprintf(err, len, "process %d exited", (int)t->pid);
		return TARGET_GONE;
	}
	return TARGET_OK;
}

int target_thread_init_frame(const struct target *t, const struct thread_stack *th)
{
	for (int i = th ? th->nframes - 1 : -1; i >= 0; i--)
		if (maps_in_init(&t->maps, frame_lookup_pc(th->ips, i)))
			return i;
	return -1;
}

bool target_thread_in_init(const struct target *t, const struct thread_stack *th)
{
	return target_thread_init_frame(t, th) >= 0;
}

/* What a deciding thread tells of the rank beyond its state: its progress fingerprint (0 when
 * the unwind was incomplete: no evidence either way) and whether it is still starting (inside
 * MPI_Init). */
static void target_note_decider(struct target *t, const struct thread_stack *th)
{
	static const struct progress_print none;
	int init_at = target_thread_init_frame(t, th);

	t->fingerprint = walk_reaches_start(t, th->ips, th->nframes) ?
				 progress_fingerprint(&t->maps, th->ips, th->fhash, th->nframes, init_at, &t->loops) : none;
	t->in_init = init_at >= 0;
}

/* A thread in uninterruptible sleep (D) stops only when it leaves the kernel: it is not seized
 * (it would stay traced until then); for the main thread, the rank notes its wait channel. A
 * page fault or a short lock wait shows D for microseconds: only a D state seen again after
 * KERNEL_RECHECKS pauses of a millisecond counts. */
static bool target_thread_in_kernel(struct target *t, pid_t tid)
{
	int seen = 0;

	while (procfs_state(tid) == 'D' && ++seen <= KERNEL_RECHECKS)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	if (seen <= KERNEL_RECHECKS)
		return false;
	if (tid == t->pid) {
		t->in_kernel = true;
		procfs_wchan(tid, t->wchan, sizeof(t->wchan));
	}
	return true;
}

enum target_status target_sample(struct target *t, enum rank_state *state,
				 struct sample_cost *cost, char *err, size_t len)
{
	struct thread_stack th;
	int n;
	enum target_status st = target_threads(t, &n, err, len);

	*state = RANK_UNKNOWN;
	t->in_kernel = t->in_init = false;
	t->fingerprint = (struct progress_print){ 0, 0 };
	if (cost)
		memset(cost, 0, sizeof(*cost));
	if (st != TARGET_OK)
		return st;
	for (int i = 0; i < n; i++) {
		if (target_thread_in_kernel(t, t->tids.v[i]))
			continue;
		st = target_thread(t, t->tids.v[i], &th, cost, err, len);
		if (st == TARGET_GONE && t->tids.v[i] != t->pid)
			continue; /* a thread ended between listing and stopping it */
		if (st != TARGET_OK)
			return st;
		if (th.counted && th.in_mpi) {
			target_note_decider(t, &th);
			*state = RANK_IN_MPI;
			t->was_program = true;
			return TARGET_OK;
		}
		/* A main thread of which not one frame could be read says nothing either way. */
		if (th.main && th.nframes == 0) {
			snprintf(err, len, "pid %d: no frame of its main thread could be read; not sampled this time",
				 (int)t->pid);
			return TARGET_FAILED;
		}
		if (th.main)
			target_note_decider(t, &th);
	}
	t->was_program |= t->in_init;
	/* In the kernel with no thread in MPI: the rank is not waiting for the others. */
	*state = RANK_OUT_MPI;
	return TARGET_OK;
}

enum target_status target_capture(struct target *t, struct thread_stack **threads, int *n,
				  enum rank_state *state, char *err, size_t len)
{
	int nt, got = 0;
	enum target_status st = target_threads(t, &nt, err, len);

	*n = 0;
	*threads = NULL;
	*state = RANK_UNKNOWN;
	t->in_kernel = false;
	if (st != TARGET_OK)
		return st;
	if (!(*threads = calloc((size_t)nt, sizeof(**threads)))) {
		snprintf(err, len, "out of memory for %d threads' stacks", nt);
		return TARGET_FAILED;
	}
	for (int i = 0; i < nt; i++) {
		if (target_thread_in_kernel(t, t->tids.v[i]))
			continue;
		st = target_thread(t, t->tids.v[i], &(*threads)[got], NULL, err, len);
		if (st == TARGET_GONE && t->tids.v[i] != t->pid)
			continue;
		if (st != TARGET_OK) {
			free(*threads);
			*threads = NULL;
			return st;
		}
		got++;
	}
	*n = got;
	*state = RANK_OUT_MPI;
	for (int i = 0; i < got; i++)
		if ((*threads)[i].counted && (*threads)[i].in_mpi)
			*state = RANK_IN_MPI;
	t->was_program |= *state == RANK_IN_MPI;
	return TARGET_OK;
}
