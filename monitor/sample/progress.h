/* progress — is a rank getting anywhere? A fingerprint of the rank's stack taken from the
 * samples the monitor takes anyway (no extra stop). Two samples of a rank with the same
 * fingerprint: it did not move between them.
 *
 * What the fingerprint holds, and why (found on real Open MPI 4.1 jobs, tests/cli/test-stack.sh
 * and the stencil/phases/busywait apps): for the deciding thread, from the outermost frame
 * inward, each frame's return address, the callee-saved registers (rbx, rbp, r12-r15) as that
 * frame sees them (libunwind recovers them: a loop counter or pointer an application frame keeps
 * in a register lives there, saved by a callee) and up to PROGRESS_FRAME_BYTES of its own stack
 * (its locals). It stops at the MPI library's progress engine (opal_progress,
 * ucp_worker_progress, MPID_Progress_*): a rank deadlocked in MPI_Recv or a collective spins
 * there, and the frames below change at every sample (which BTL it polls, sched_yield or poll
 * when cores are shared); every frame above it - the application's, the MPI call's, the
 * collective algorithm's (its loop over peers), the request wait - stays identical for as long
 * as nothing arrives. So: identical in every sample of a deadlocked rank (MPI_Recv, Barrier,
 * Allreduce, Sendrecv, C and Fortran bindings), different from one sample to the next in a
 * healthy rank (another call, another iteration, another step of the collective). A rank that
 * polls (MPI_Test*, MPI_Iprobe in a loop) is cut at the polling call, and the return address of
 * the loop's frame is left out: alternating between MPI_Iprobe and MPI_Testall is not progress.
 * What it cannot see: one MPI call moving data for longer than the confirmation window with
 * the same frames above the progress engine (a basic-linear Alltoall of gigabytes waits in
 * one waitall). */
#ifndef PARASTACK_PROGRESS_H
#define PARASTACK_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps.h"

#define PROGRESS_FRAME_BYTES 512 /* stack bytes of one frame that go into its hash */

static inline uint64_t progress_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 31);
}

uint64_t progress_hash_bytes(uint64_t h, const void *p, size_t n);

/* Call sites seen calling a wait loop (the frame that calls the progress engine), learned per
 * rank. An MPI library without symbols for its internals (Debian's MPICH: MPID_Progress_wait
 * and its helpers are nameless) is caught now in the loop's call of the network's progress
 * engine (ucp_worker_progress, named), now in its call of the shared-memory one (nameless):
 * the call site above the loop is the same, so once learned it cuts both alike. */
#define PROGRESS_LOOP_SITES 16
struct progress_loops {
	uint64_t site[PROGRESS_LOOP_SITES];
	int n, next;
};

/* The rank's fingerprint from its deciding thread's frames (innermost first); loops (may be
 * NULL) learns and applies the wait loops' call sites. */
uint64_t progress_fingerprint(const struct maps *mp, const uint64_t *ips, const uint64_t *fhash,
			      int n, struct progress_loops *loops);

/* What the monitor remembers of a rank between its samples. */
struct progress {
	long seq;        /* sample round of the previous sample; 0: none */
	uint64_t fp;
	int state;       /* enum rank_state of the previous sample */
};

enum progress_result {
	PROGRESS_UNKNOWN, /* no earlier sample to compare with since `since` */
	PROGRESS_MOVED,   /* it moved: into or out of MPI, or waits somewhere else */
	PROGRESS_STILL,   /* waiting in MPI exactly as before */
	PROGRESS_OUT,     /* in application code both times: running or stuck, not waiting */
};

/* What sampling a set of ranks found (a monitor's reply to the leader). */
struct sample_counts {
	int out;    /* OUT_MPI */
	int live;   /* sampled at all (not gone) */
	int moved, still; /* progress_update's verdicts */
	int kernel; /* in uninterruptible sleep (D) */
	int init;   /* inside MPI_Init */
};
#define SAMPLE_COUNTS_INTS 6

/* Compare the sample of round seq with the rank's previous one (only if taken in round
 * `since` or later), then remember it. A sample in MPI without a fingerprint (fp 0) is no
 * evidence and is not remembered. */
enum progress_result progress_update(struct progress *p, long seq, long since, int state,
				     uint64_t fp);

#endif
