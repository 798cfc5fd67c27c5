/* SPDX-License-Identifier: BSD-3-Clause */
/* target — one process of the job being watched: its identity (pid, start time, MPI rank), its
 * memory map and its unwinder state, kept across samples. target_sample() is the sampler's hot
 * path; target_capture() collects every thread's frames for a report. */
#ifndef PARASTACK_TARGET_H
#define PARASTACK_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../addr/classify.h"
#include "../safe/identity.h"
#include "../addr/maps.h"
#include "../safe/procfs.h"
#include "../addr/progress.h"
#include "pyframes.h"
#include "snapshot.h"
#include "unwind.h"

#define TARGET_MAX_FRAMES 128

enum target_status {
	TARGET_OK = 0,
	TARGET_GONE,       /* the process exited */
	TARGET_DENIED,     /* ptrace not allowed */
	TARGET_REUSED,     /* the pid now belongs to another process */
	TARGET_CHANGED,    /* the same process now runs another program or as another user */
	TARGET_SLOW,       /* a thread did not stop within the snapshot's deadline (still seized) */
	TARGET_FAILED,     /* anything else; see the message */
};

struct thread_stack {
	pid_t tid;
	int nframes;
	uint64_t ips[TARGET_MAX_FRAMES];
	uint64_t fhash[TARGET_MAX_FRAMES]; /* each frame's progress hash (progress.h) */
	bool main, counted, in_mpi, group_stopped;
	int npy;                                /* Python frames (pyframes.h), innermost first */
	struct pyframe_raw py[PY_MAX_FRAMES];
};

struct sample_cost {
	int threads;          /* threads stopped */
	int64_t stopped_max;  /* longest stop of one thread, ns */
	int64_t stopped_sum;  /* total, ns */
	int64_t held_sum;     /* total time held in the stop (stop seen to detach), ns */
};

struct target {
	pid_t pid;
	int rank; /* from the launcher's environment, -1 if none */
	struct proc_identity id; /* as opened: checked again before every sample (identity.h) */
	uid_t uid; /* its owner: its files are read with these credentials (fscreds.h) */
	gid_t gid;
	struct maps maps;
	int64_t maps_read_ns; /* when maps was read (CLOCK_MONOTONIC) */
	const struct unwinder_ops *unw;
	void *unw_state;
	struct snapshot snap;
	size_t stack_max;
	struct pid_list tids;   /* the threads of the latest sample (grows as needed) */
	/* Of the latest target_sample: the deciding thread's fingerprint (progress.h), whether it
	 * is still inside MPI_Init, and whether it sat in uninterruptible sleep (D). */
	struct progress_print fingerprint;
	struct progress_loops loops; /* the rank's wait loops, learned from its samples */
	bool in_init, in_kernel;
	/* Seen in its communication library (or MPI_Init) at least once: the program itself, not a
	 * wrapper that has yet to exec it (an exec after this is not a wrapper's; job.h). */
	bool was_program;
	uint64_t record_addr; /* its recording layer's area (0: no layer), looked up once at open */
	/* Its time in MPI as target_wait_share last read it (the layer's first thread, CLOCK_MONOTONIC
	 * ns), and when; record_ok: the area is this version (1), not (-1), not looked at yet (0). */
	uint64_t mpi_ns_seen, mpi_seen_at_ns;
	int record_ok;
	double descend_next_ms; /* when job.c next looks below a rank not yet its program (mono_ms) */
	char wchan[64]; /* its wait channel, when in_kernel */
	struct pyproc py; /* a CPython rank's interpreter (pyframes.h) */
};

/* Check that pid exists and can be traced (without tracing it yet), load its map. */
enum target_status target_open(struct target *t, pid_t pid, char *err, size_t len);
void target_close(struct target *t);
/* Is the process IN_MPI or OUT_MPI now? cost may be NULL. */
enum target_status target_sample(struct target *t, enum rank_state *state,
				 struct sample_cost *cost, char *err, size_t len);
/* Every thread's frames: *threads malloc'd (the caller frees it), *n of them. */
enum target_status target_capture(struct target *t, struct thread_stack **threads, int *n,
				  enum rank_state *state, char *err, size_t len);
/* The outermost frame of th inside a runtime's start-up (MPI_Init, torch's rendezvous:
 * modreg.c), or -1; and whether there is one. */
int target_thread_init_frame(const struct target *t, const struct thread_stack *th);
bool target_thread_in_init(const struct target *t, const struct thread_stack *th);
/* Is t still the process that was opened (identity.h)? TARGET_OK, or why not in err. */
enum target_status target_still_same(struct target *t, char *err, size_t len);
/* Has t become the program (t->was_program)? Known from its samples, from its map at open (no
 * layer, and its communication library mapped: a wrapper shell maps none), and read here from its
 * recording layer's area, stamped when MPI_Init returns (the layer is preloaded into a wrapper
 * too, with its MPI library). Once true it stays true. A read of 8 bytes; the rank is not
 * stopped. */
bool target_note_program(struct target *t);

/* The address of its recording layer's area (record_format.h), read as its owner from the
 * layer's symbols once (t->record_addr, at open) and again only while not found; 0: no layer. */
uint64_t target_record_area(const struct target *t);

/* The share of the time since the previous call, in percent, its first MPI thread spent in MPI
 * (the layer's mpi_ns, record_format.h): -1 without the layer, at the first call, or where the
 * copy fails. Two reads of 16 bytes and one of the area's header once; the rank is not stopped. */
int target_wait_share(struct target *t);

/* Does this process map an MPI library (or link MPI statically)? */
bool target_uses_mpi(const struct target *t);

#endif
