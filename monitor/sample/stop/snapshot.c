/* SPDX-License-Identifier: BSD-3-Clause */
/* snapshot — the hot path. Everything between PTRACE_INTERRUPT and PTRACE_DETACH is a handful
 * of system calls; no allocation, no file I/O, no symbol lookups. */
#include "snapshot.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "../safe/procfs.h"

#define STOP_DEADLINE_NS 1000000000LL /* give up waiting for the stop after 1 s */
#define SPIN_NS 30000LL               /* then poll, before sleeping, for 30 us */

/* Seized threads this tracer still owes a wait: those that had not stopped by the deadline
 * (detached once they stop) and those that died while seized (reaped, or their parent could
 * never collect them). As many as there are: a thread is never forgotten traced. */
static pid_t *pending;
static int npending, pending_cap;

static void (*held_hook)(pid_t tid, void *arg);
static void *held_arg;

int64_t snapshot_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Terminating signals wait until the thread is detached; SIGCHLD is taken by sigtimedwait. */
static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGALRM);
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, old);
}

static int give_up_next;

void snapshot_give_up_next(int n)
{
	give_up_next = n;
}

/* Wait for tid to report a stop (or its end) until the deadline; 1 stopped, 0 timed out,
 * -1 gone or error (errno). Polls for SPIN_NS, the time a running thread takes to stop when it
 * has a core; then sleeps in sigtimedwait for the SIGCHLD that a tracee's stop sends its tracer
 * (SIGCHLD is blocked for the window), since polling longer would take the CPU that the thread
 * needs to reach its stop when cores are oversubscribed. */
static int wait_for_stop(pid_t tid, int *status)
{
	int64_t start = snapshot_now_ns(), deadline = start + STOP_DEADLINE_NS;
	sigset_t chld;

	if (give_up_next > 0) {
		give_up_next--;
		return 0;
	}

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		pid_t r = waitpid(tid, status, __WALL | WNOHANG);

		if (r == tid)
			return WIFSTOPPED(*status) ? 1 : (errno = ESRCH, -1);
		if (r < 0 && errno != EINTR)
			return -1;

		int64_t t = snapshot_now_ns(), left = deadline - t;

		if (left <= 0)
			return 0;
		if (t - start < SPIN_NS)
			continue;

		struct timespec ts = { left / 1000000000LL, left % 1000000000LL };

		sigtimedwait(&chld, NULL, &ts);
	}
}

/* What a thread's state says about a stop that did not come. */
static const char *stop_hint(char state)
{
	switch (state) {
	case 'D': return ": uninterruptible sleep";
	case 'R': return ": runnable, waiting for a core or in a long system call";
	default: return "";
	}
}

static void remember_pending(pid_t tid)
{
	if (npending == pending_cap) {
		int cap = pending_cap ? pending_cap * 2 : 64;
		pid_t *p = realloc(pending, (size_t)cap * sizeof(*p));

		if (!p) {
			/* No memory to remember it: wait for it here, as long as it takes to stop. */
			int status;

			if (waitpid(tid, &status, __WALL) == tid && WIFSTOPPED(status))
				ptrace(PTRACE_DETACH, tid, NULL, NULL);
			return;
		}
		pending = p;
		pending_cap = cap;
	}
	pending[npending++] = tid;
}

int snapshot_reap_pending(void)
{
	for (int i = 0; i < npending;) {
		int status;
		pid_t r = waitpid(pending[i], &status, __WALL | WNOHANG);

		if (r == 0) {
			i++;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r == pending[i] && WIFSTOPPED(status)) {
			int sig = (status >> 16) == 0 ? WSTOPSIG(status) : 0;

			ptrace(PTRACE_DETACH, pending[i], NULL, (void *)(long)sig);
		}
		pending[i] = pending[--npending];
	}
	return npending;
}

static bool is_pending(pid_t tid)
{
	for (int i = 0; i < npending; i++)
		if (pending[i] == tid)
			return true;
	return false;
}

bool snapshot_settle(pid_t tid, int64_t within_ns)
{
	int64_t deadline = snapshot_now_ns() + within_ns;

	/* Polled: a thread slow to stop is one waiting for a core, and a report waits for it at
	 * most within_ns, so a 5 ms tick costs nothing worth a signal-driven wait. */
	while (snapshot_reap_pending() > 0 && is_pending(tid) && snapshot_now_ns() < deadline) {
		struct timespec tick = { 0, 5000000 };

		nanosleep(&tick, NULL);
	}
	return !is_pending(tid);
}

/* "call" is what precedes the tid in the message, e.g. "ptrace(SEIZE, " or "waitpid(". */
static enum snapshot_status fail_errno(int e, const char *call, pid_t tid, char *err, size_t len)
{
	if (e == ESRCH) {
		snprintf(err, len, "%s%d): %s — the thread exited", call, (int)tid, strerror(e));
		return SNAPSHOT_GONE;
	}
	if (e == EPERM) {
		char why[200];

		procfs_explain_eperm(tid, why, sizeof(why));
		snprintf(err, len, "%s%d): %s — %s", call, (int)tid, strerror(e), why);
		return SNAPSHOT_DENIED;
	}
	snprintf(err, len, "%s%d): %s", call, (int)tid, strerror(e));
	return SNAPSHOT_FAILED;
}

static int stack_reserve(struct snapshot *s, size_t n)
{
	if (s->stack_cap >= n)
		return 0;

	unsigned char *p = realloc(s->stack, n);

	if (!p)
		return -1;
	s->stack = p;
	s->stack_cap = n;
	return 0;
}

/* Copy registers and stack of a stopped thread. */
static enum snapshot_status copy_state(pid_t tid, struct snapshot *s, size_t stack_max, char *err,
				       size_t errlen)
{
	if (ptrace(PTRACE_GETREGS, tid, NULL, &s->regs) < 0)
		return fail_errno(errno, "ptrace(GETREGS, ", tid, err, errlen);
	s->stack_addr = s->regs.rsp;

	struct iovec local = { s->stack, stack_max };
	struct iovec remote = { (void *)(uintptr_t)s->regs.rsp, stack_max };
	ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);

	s->stack_len = n > 0 ? (size_t)n : 0;
	return SNAPSHOT_OK;
}

enum snapshot_status snapshot_take(pid_t tid, struct snapshot *s, size_t stack_max, char *err,
				   size_t errlen)
{
	enum snapshot_status st = SNAPSHOT_OK;
	sigset_t old;
	int status = 0, e;

	s->tid = tid;
	s->stack_len = 0;
	s->group_stopped = false;
	s->stopped_ns = 0;
	if (stack_reserve(s, stack_max) < 0) {
		snprintf(err, errlen, "out of memory for a %zu-byte stack copy", stack_max);
		return SNAPSHOT_FAILED;
	}
	snapshot_reap_pending();
	block_signals(&old);
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
		e = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		/* A zombie cannot be seized (EPERM); say what it is rather than blame permissions. */
		if (procfs_state(tid) == 'Z') {
			snprintf(err, errlen, "thread %d is a zombie (exited, not yet reaped)", (int)tid);
			return SNAPSHOT_GONE;
		}
		return fail_errno(e, "ptrace(SEIZE, ", tid, err, errlen);
	}

	int64_t t0 = snapshot_now_ns();

	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
		e = errno;
		/* Not stopped, so PTRACE_DETACH cannot work: the thread is gone, the only way
		 * INTERRUPT fails on a seized thread. Its death is ours to collect. */
		remember_pending(tid);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return fail_errno(e, "ptrace(INTERRUPT, ", tid, err, errlen);
	}

	int w = wait_for_stop(tid, &status);

	if (w <= 0) {
		e = errno;
		if (w == 0) {
			char state = procfs_state(tid);

			remember_pending(tid);
			snprintf(err, errlen, "thread %d did not stop within 1 s (state %c%s); will detach when it does",
				 (int)tid, state ? state : '?', stop_hint(state));
			st = SNAPSHOT_TIMEOUT;
		} else {
			/* Reaped already when waitpid reported its end; else owed. */
			if (e != ESRCH)
				remember_pending(tid);
			st = fail_errno(e, "waitpid(", tid, err, errlen);
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
		return st;
	}

	int64_t t_stopped = snapshot_now_ns();
	int event = status >> 16, sig = WSTOPSIG(status), inject = 0;

	if (event == PTRACE_EVENT_STOP)
		s->group_stopped = sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
	else if (event == 0)
		inject = sig; /* a signal-delivery stop: hand the signal back on detach */

	st = copy_state(tid, s, stack_max, err, errlen);
	if (s->while_held && st == SNAPSHOT_OK)
		s->while_held(tid, s->while_held_arg);
	if (held_hook)
		held_hook(tid, held_arg);
	if (ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)inject) < 0) {
		/* Killed while stopped (SIGKILL): its death is ours to collect, or its parent
		 * (mpirun, orted, slurmstepd) could never reap it while we live. */
		e = errno;
		remember_pending(tid);
		if (st == SNAPSHOT_OK)
			st = fail_errno(e, "ptrace(DETACH, ", tid, err, errlen);
	}
	s->stopped_ns = snapshot_now_ns() - t0;
	s->held_ns = snapshot_now_ns() - t_stopped;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return st;
}

void snapshot_set_held_hook(void (*fn)(pid_t tid, void *arg), void *arg)
{
	held_hook = fn;
	held_arg = arg;
}

void snapshot_release(struct snapshot *s)
{
	free(s->stack);
	s->stack = NULL;
	s->stack_cap = 0;
}
