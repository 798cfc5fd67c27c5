/* SPDX-License-Identifier: BSD-3-Clause */
/* snapshot — stop one thread for as short a time as possible and copy what the unwinder needs:
 * PTRACE_SEIZE, PTRACE_INTERRUPT, wait for the stop, PTRACE_GETREGS, one process_vm_readv of
 * the live stack, PTRACE_DETACH. Unwinding happens afterwards, on the copy, while the thread
 * runs again. The thread is never left stopped or traced: terminating signals to the tool are
 * held back for the few microseconds of the stop, and a tracer that dies is detached by the
 * kernel. A thread that was already stopped (SIGSTOP) is read and left stopped as it was. */
#ifndef PARASTACK_SNAPSHOT_H
#define PARASTACK_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#define SNAPSHOT_STACK_DEFAULT (64 * 1024) /* bytes of stack copied from SP upward */

enum snapshot_status {
	SNAPSHOT_OK = 0,
	SNAPSHOT_GONE,    /* the thread or process exited (ESRCH), or is a zombie */
	SNAPSHOT_DENIED,  /* EPERM: not ours, ptrace restricted, or traced by someone else */
	SNAPSHOT_TIMEOUT, /* it did not stop in time (uninterruptible sleep); retried later */
	SNAPSHOT_FAILED,  /* anything else; the message says which call */
};

struct snapshot {
	pid_t tid;
	struct user_regs_struct regs;
	uint64_t stack_addr;  /* target address of stack[0] (the stack pointer) */
	size_t stack_len;     /* bytes copied */
	unsigned char *stack; /* owned buffer, reused across snapshots */
	size_t stack_cap;
	bool group_stopped;   /* it was in a job-control stop, and was left so */
	int64_t stopped_ns;   /* from PTRACE_INTERRUPT to PTRACE_DETACH returning */
	int64_t held_ns;      /* from the stop being seen to PTRACE_DETACH returning */
	/* Called while the thread is held, after its registers and stack are copied (NULL: none):
	 * what must be read at the same stop (an interpreter's frame chain). */
	void (*while_held)(pid_t tid, void *arg);
	void *while_held_arg;
};

/* Take a snapshot of thread tid, copying at most stack_max bytes of stack. On failure, a
 * one-line message naming the call, the tid and the likely cause goes to err. */
enum snapshot_status snapshot_take(pid_t tid, struct snapshot *s, size_t stack_max, char *err,
				   size_t errlen);
void snapshot_release(struct snapshot *s);
/* CLOCK_MONOTONIC, in ns: the clock of the stop times above. */
int64_t snapshot_now_ns(void);
/* Detach from threads that did not stop in time, if they have stopped since. Returns how many
 * are still pending. Called before every snapshot and on exit. */
int snapshot_reap_pending(void);
/* Wait up to within_ns for thread tid, if it is one of those, to stop, detaching every pending
 * thread that does; whether tid is let go. For a report, which can wait where a sample must not. */
bool snapshot_settle(pid_t tid, int64_t within_ns);
/* Call fn(tid, arg) while each thread is held, between the copy and PTRACE_DETACH (NULL: none).
 * For tests that must act inside the stop deterministically, e.g. kill the rank there. */
void snapshot_set_held_hook(void (*fn)(pid_t tid, void *arg), void *arg);
/* The next n waits for a stop give up at once, as if the deadline had passed (the thread still
 * stops, and is owed a detach). For tests of what follows a thread slow to stop. */
void snapshot_give_up_next(int n);

#endif
