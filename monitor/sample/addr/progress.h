/* SPDX-License-Identifier: BSD-3-Clause */
/* progress — is a rank getting anywhere? A fingerprint of the rank's stack taken from the
 * samples the monitor takes anyway (no extra stop). Two samples of a rank with the same
 * fingerprint: it did not move between them.
 *
 * "Moved" means the job moved (issue 36): for a rank waiting in MPI, progress is judged at the
 * level of the MPI call - the frames outside the MPI library, from the outermost one down to
 * the one that calls into MPI: each frame's return address (so the application's call site,
 * which names the MPI function it calls), the callee-saved registers (rbx, rbp, r12-r15) as
 * that frame sees them (libunwind recovers them: a loop counter or pointer an application frame
 * keeps in a register lives there, saved by a callee), up to PROGRESS_FRAME_BYTES of its own
 * stack (its locals), and a Python rank's frames. Another iteration, another call, another
 * step of the application's loop: moved. Frames inside the MPI library are never part of it.
 * They were once (down to the progress engine: the collective's loop over peers, the request
 * wait), and on an oversubscribed node Open MPI's wait was caught at another depth or with
 * another register in them at nearly every sample of a job that stood still for good (an
 * 8-rank ring + Allreduce on 2 cores: no suspicion in 4 minutes). They are still hashed apart
 * (the "inner" print), for the trace to say when only they differed - ignored, not moved.
 * A rank that polls (MPI_Test*, MPI_Iprobe in a loop) is judged by the polling frame's state,
 * not by where in the loop it calls from: alternating between MPI_Iprobe and MPI_Testall is
 * not progress.
 * What it cannot see: one MPI call that lasts longer than the confirmation window on every
 * sampled rank, with the application's frames unchanged (a basic-linear Alltoall of gigabytes
 * waits in one call): it reads as standing still. */
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
 * rank, for the inner print. An MPI library without symbols for its internals (Debian's MPICH:
 * MPID_Progress_wait and its helpers are nameless) is caught now in the loop's call of the
 * network's progress engine (ucp_worker_progress, named), now in its call of the shared-memory
 * one (nameless): the call site above the loop is the same, so once learned it cuts both
 * alike. */
#define PROGRESS_LOOP_SITES 16
struct progress_loops {
	uint64_t site[PROGRESS_LOOP_SITES];
	int n, next;
};

/* A rank's fingerprint: app decides; inner only tells the trace what else changed. */
struct progress_print {
	uint64_t app;   /* the frames outside MPI, down to the call into it; 0: none (no evidence) */
	uint64_t inner; /* the frames inside MPI above its progress engine */
};

/* The rank's fingerprint from its deciding thread's frames (innermost first); loops (may be
 * NULL) learns and applies the wait loops' call sites. */
struct progress_print progress_fingerprint(const struct maps *mp, const uint64_t *ips,
					   const uint64_t *fhash, int n, struct progress_loops *loops);

/* Sample rounds between a rank's previous sample and this one for the two to be compared
 * (a failed unwind or a moment in the kernel skips one or two). */
#define PROGRESS_MAX_GAP 3

/* What the monitor remembers of a rank between its samples. */
struct progress {
	long seq;        /* sample round of the previous sample; 0: none */
	struct progress_print fp;
	int state;       /* enum rank_state of the previous sample */
};

enum progress_result {
	PROGRESS_UNKNOWN, /* no earlier sample to compare with since `since` */
	PROGRESS_MOVED,   /* it moved: into or out of MPI, or the application's frames differ */
	PROGRESS_STILL,   /* waiting in MPI at the same call, the application as before */
	PROGRESS_OUT,     /* in application code both times: running or stuck, not waiting */
};

/* Which part of a comparison differed, for the trace. */
enum progress_part {
	PROGRESS_PART_NONE,  /* nothing differed (or nothing was compared) */
	PROGRESS_PART_STATE, /* moved: into or out of MPI */
	PROGRESS_PART_APP,   /* moved: a frame outside MPI (call site, registers, stack, Python) */
	PROGRESS_PART_INNER, /* still: only frames inside the MPI library differed (ignored) */
};

/* The trace's letter for one sampled rank (trace.h): m a (moved: state, application frames),
 * s i (still; i: only frames inside MPI differed), o (out of MPI both times), u (nothing to
 * compare), k (in the kernel); upper case while inside MPI_Init. */
char progress_code(enum progress_result r, enum progress_part part, bool in_kernel, bool in_init);

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
 * `since` or later, and at most PROGRESS_MAX_GAP rounds before), then remember it; *part (may be NULL) says what differed. A sample in MPI
 * without a fingerprint (app 0) is no evidence and is not remembered. */
enum progress_result progress_update(struct progress *p, long seq, long since, int state,
				     struct progress_print fp, enum progress_part *part);

#endif
