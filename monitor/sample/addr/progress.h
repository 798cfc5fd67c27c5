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
#include "../safe/procfs.h"

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

/* The rank's fingerprint from its deciding thread's frames (innermost first); init_at: the
 * outermost frame inside a runtime's start-up, or -1 (target_thread_init_frame: found once per
 * sample, it also says the rank is starting); loops (may be NULL) learns and applies the wait
 * loops' call sites. */
struct progress_print progress_fingerprint(const struct maps *mp, const uint64_t *ips,
					   const uint64_t *fhash, int n, int init_at, struct progress_loops *loops);

/* Sample rounds between a rank's previous sample and this one for the two to be compared
 * (a failed unwind or a moment in the kernel skips one or two). */
#define PROGRESS_MAX_GAP 3

/* What the monitor remembers of a rank between its samples. */
struct progress {
	long seq;        /* sample round of the previous sample; 0: none */
	struct progress_print fp;
	int state;       /* enum rank_state of the previous sample */
	struct proc_activity base; /* outside MPI, standing in one stack: its activity then, */
	double base_ms;            /* at this time (monotonic ms), */
	uint64_t base_app;         /* that stack (its fingerprint's app), */
	int off_base;              /* and samples in a row since that caught another stack */
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

/* A rank outside MPI (and not in MPI_Init) both times, as its process shows it (issue 68: a
 * rank that has not reached MPI_Init while the others wait there): IDLE - the same stack, and
 * neither its bytes read or written nor its CPU time grew since it was first found so (blocked
 * for good in a read no one answers, or waiting on a lock); BUSY - its stack or its I/O
 * changed, or it used more CPU than PROGRESS_BUSY_CPU_MS and PROGRESS_BUSY_SHARE of the time
 * since (computing, reading its input, importing modules). The comparison is with the activity
 * when the stack was first seen, not with the previous sample's: a rank loading at 3 % of a
 * CPU gains no clock tick between two samples, but two within a second. The samples' own stops
 * cost a blocked rank about 0.2 % of a CPU (60-75 us each, measured: 2 ticks in 100 s), hence
 * the share. A blocked rank is now and then caught at another instruction (restarting the
 * system call a stop interrupted): one sample off its stack is no move. */
enum progress_outside { PROGRESS_OUTSIDE_UNKNOWN, PROGRESS_OUTSIDE_IDLE, PROGRESS_OUTSIDE_BUSY };
#define PROGRESS_BUSY_CPU_MS 20   /* two clock ticks */
#define PROGRESS_BUSY_SHARE 0.01  /* of one CPU, since the stack was first seen */
#define PROGRESS_OFF_BASE 2       /* samples in a row off the stack: it moved */

/* Is this sample (state, fp) outside MPI in the stack the rank stands in (or, none known, its
 * previous sample's), so that reading its activity can tell idle from busy? Asked before
 * progress_update. */
bool progress_same_outside(const struct progress *p, int state, struct progress_print fp);

/* Compare a sample taken at t_ms (monotonic) with what p remembers (before progress_update,
 * which stores the stack); outside: the rank is outside MPI and not in MPI_Init; a: its
 * activity, read where progress_same_outside said so (else unknown). */
enum progress_outside progress_outside_update(struct progress *p, double t_ms, bool outside,
					      struct progress_print fp, const struct proc_activity *a);

/* The trace's letter for one sampled rank (trace.h): m a (moved: state, application frames),
 * s i (still; i: only frames inside MPI differed), o (out of MPI both times), w b (out of MPI
 * both times: w stood still, b busy; progress_outside), u (nothing to compare), k (in the
 * kernel); upper case while inside MPI_Init. */
char progress_code(enum progress_result r, enum progress_part part, enum progress_outside o, bool in_kernel,
		   bool in_init);

/* What sampling a set of ranks found (a monitor's reply to the leader). */
struct sample_counts {
	int out;    /* OUT_MPI */
	int live;   /* sampled at all (not gone) */
	int moved, still; /* progress_update's verdicts */
	int kernel; /* in uninterruptible sleep (D) */
	int init;   /* inside MPI_Init */
	int idle, busy; /* outside MPI: progress_outside's verdicts */
};
#define SAMPLE_COUNTS_INTS 8

/* Compare the sample of round seq with the rank's previous one (only if taken in round
 * `since` or later, and at most PROGRESS_MAX_GAP rounds before), then remember it; *part (may be NULL) says what differed. A sample in MPI
 * without a fingerprint (app 0) is no evidence and is not remembered. */
enum progress_result progress_update(struct progress *p, long seq, long since, int state,
				     struct progress_print fp, enum progress_part *part);

#endif
