/* SPDX-License-Identifier: BSD-3-Clause */
/* record_format — the memory layout libparastack-mpi.so keeps in each rank and the monitor copies
 * with process_vm_readv at hang time (found through the library's ELF symbol PSREC_SYMBOL). Plain
 * fixed-size arrays: no pointers, nothing the monitor must chase. Writers never lock: each slot
 * carries a sequence number that is odd while it is being written, so a reader that sees it odd,
 * or changed across its copy, treats the slot as unknown. Shared by record/ (the writer) and
 * monitor/ (the reader); bump PSREC_VERSION with any change. */
#ifndef PARASTACK_RECORD_FORMAT_H
#define PARASTACK_RECORD_FORMAT_H

#include <stdint.h>

#define PSREC_SYMBOL "parastack_record"
#define PSREC_MAGIC 0x3130434552535053ULL /* "PSREC01" little-endian */
#define PSREC_VERSION 8
#define PSREC_THREADS 64    /* threads that called MPI (more: not recorded) */
#define PSREC_COMMS 256     /* live communicators */
#define PSREC_REQS 4096     /* live nonblocking requests */
#define PSREC_RUNS 16384    /* member runs of every recorded communicator, together */
#define PSREC_WAITREQS 32   /* requests named per waiting call */
#define PSREC_HISTORY 4     /* latest collectives kept per communicator */
#define PSREC_CHANS 8192    /* point-to-point envelopes counted (more: counts incomplete) */

#define PSREC_ANY_SOURCE (-1)
#define PSREC_NO_PEER (-2)
#define PSREC_ANY_TAG (-1)
#define PSREC_REQ_UNRECORDED (-1) /* a waited request the layer did not record */
#define PSREC_REQ_NULL (-2)       /* MPI_REQUEST_NULL */

/* What a thread is doing in MPI (0: nothing): every function of record/mpi.api, with the kind
 * of call it is (generated: build/gen/psrec_funcs.h). */
#include "psrec_funcs.h"

/* A slot the writer had finished with when it was copied (its seq even; odd: being written). */
static inline int psrec_settled(uint32_t seq)
{
	return (seq & 1) == 0;
}

#define PSREC_KIND_ENUM(kind) PSREC_KIND_##kind,
enum psrec_kind { PSREC_KINDS(PSREC_KIND_ENUM) PSREC_NKINDS };
#undef PSREC_KIND_ENUM

#define PSREC_ENUM(name, text, kind) PSREC_##name,
enum psrec_func { PSREC_FUNCS(PSREC_ENUM) PSREC_NFUNCS };
#undef PSREC_ENUM

/* The call a thread is in. */
struct psrec_call {
	uint32_t seq;     /* odd while written; even and unchanged: consistent */
	int32_t tid;
	uint32_t func;    /* enum psrec_func; PSREC_NONE outside MPI */
	int32_t comm;     /* index into comms, -1 none */
	int32_t peer;     /* world rank, PSREC_ANY_SOURCE, or PSREC_NO_PEER */
	int32_t tag;      /* or PSREC_ANY_TAG */
	int32_t root;     /* world rank of a rooted collective's root, else -1 */
	int32_t nreqs;    /* requests waited on (Wait family) */
	int64_t bytes;    /* count x type size sent or received (the signature's length); -1 where
			   * ranks differ by design (Gatherv, Scatterv, Alltoallv) */
	uint64_t coll_seq;/* the communicator's collective number of this call */
	uint64_t caller;  /* return address into the caller of the MPI function */
	uint64_t step;    /* the thread's calls so far that start no request (blocking calls,
			   * Waits, Tests): requests started in this step (psrec_req.step) were started
			   * since its previous blocking call, as part of the exchange it is in now */
	/* The thread's time in MPI (the straggler model's wait share, issue 69): CLOCK_MONOTONIC
	 * nanoseconds of its finished calls, and when the call it is in began (0: in none).
	 * Written outside seq (a reader copies these two alone, psrec_mpi_ns); a copy torn by a
	 * call's end counts that call twice, for one sample. */
	uint64_t mpi_ns;
	uint64_t entered_ns;
	int32_t reqs[PSREC_WAITREQS]; /* their slots in reqs, PSREC_REQ_UNRECORDED, PSREC_REQ_NULL */
};

/* A thread's time in MPI up to now_ns, from a copy of its mpi_ns and entered_ns. */
static inline uint64_t psrec_mpi_ns(uint64_t mpi_ns, uint64_t entered_ns, uint64_t now_ns)
{
	return mpi_ns + (entered_ns && now_ns > entered_ns ? now_ns - entered_ns : 0);
}

/* One collective as this rank called it: what MPI/SX-style checks compare across ranks. */
struct psrec_coll {
	uint64_t coll_seq; /* 0: none yet */
	uint32_t func;
	int32_t root;      /* world rank, or -1 */
	int64_t bytes;
	uint64_t caller;
};

/* A communicator's members, in its own rank order, as runs of world ranks: its ranks at ..
 * at + count - 1 are the world ranks start, start + stride, ... A communicator of consecutive or
 * evenly spaced ranks is one run, however large (a million-rank MPI_COMM_WORLD); an irregular
 * one takes a run per stretch (at worst one per member: a table). */
struct psrec_run {
	int32_t at;     /* its first member's rank in the communicator */
	int32_t start;  /* that member's world rank */
	int32_t stride; /* from one member's world rank to the next's (0 when count is 1) */
	int32_t count;
};

/* A communicator. id is the same in every member (derived from how it was made); its members
 * are the runs at runs[first .. first + nruns). */
struct psrec_comm {
	uint32_t seq;
	uint32_t used;
	uint64_t handle;   /* the MPI_Comm value in this process */
	uint64_t id;
	int32_t size;
	int32_t first;     /* into runs, -1 when the pool was full */
	uint32_t chans_lost; /* point-to-point calls on it not counted (the table full): its
			      * counters alone are incomplete, the others' stay exact */
	int32_t nruns;
	uint64_t coll_seq; /* collectives started on it (blocking or not) */
	struct psrec_coll history[PSREC_HISTORY]; /* collective n at history[n % PSREC_HISTORY] */
};

/* A nonblocking or persistent request. */
struct psrec_req {
	uint32_t seq;
	uint32_t used;     /* 0 free, 1 recorded */
	uint64_t handle;   /* the MPI_Request value */
	uint32_t func;     /* what started it */
	int32_t comm;
	int32_t peer;
	int32_t tag;
	uint64_t caller;
	uint8_t persistent, active; /* active: started and not completed */
	uint8_t pad[2];
	int32_t chan;      /* its envelope's counters in chans, -1 none */
	int64_t bytes;     /* count x type size */
	uint64_t step;     /* the starting thread's step (psrec_call.step) when it was started */
	int32_t tid;       /* that thread */
	int32_t pad2;
};

/* Point-to-point traffic per envelope, counted since MPI_Init: what lets the monitor match a
 * waiting receive against the sends its peer posted (and a send against the receives its
 * destination posted) instead of taking every peer of a wait for a culprit. A thread claims a
 * free entry (used 0 -> 1), fills the key, then publishes it (2); counters only grow (atomic
 * adds). Two threads may claim one key twice: the reader sums entries with the same key. */
struct psrec_chan {
	uint32_t used;     /* 0 free, 1 being claimed, 2 ready */
	int32_t peer;      /* world rank: a send's destination, a receive's source (or ANY) */
	int32_t tag;       /* or PSREC_ANY_TAG (receives) */
	uint32_t pad;
	uint64_t comm;     /* the communicator's id (psrec_comm.id) */
	uint64_t sent;     /* sends posted to peer with tag */
	uint64_t posted;   /* receives posted with this envelope (MPI_Mprobe's included) */
	uint64_t done;     /* of them, completed (returned by a Recv or a Wait/Test call) */
};

struct psrec_area {
	uint64_t magic;
	uint32_t version;
	uint32_t size;        /* sizeof(struct psrec_area) */
	int32_t world_rank, world_size;
	int32_t finalized;    /* MPI_Finalize entered */
	uint32_t nthreads;    /* calls[] slots handed out */
	uint32_t runs_used;
	uint32_t dropped;     /* events not recorded for lack of room */
	uint32_t chans_lost;  /* point-to-point calls not counted (table full, an intercommunicator) */
	uint32_t pad;
	char mpi_library[64]; /* MPI_Get_library_version's first line, as built against */
	struct psrec_call calls[PSREC_THREADS];
	struct psrec_comm comms[PSREC_COMMS];
	struct psrec_req reqs[PSREC_REQS];
	struct psrec_run runs[PSREC_RUNS];
	struct psrec_chan chans[PSREC_CHANS];
};

/* Extend run r by world rank w, the communicator's next member: true when w continues it (r
 * then counts it), false when w starts a new run. The writer's and the tests' one rule. */
static inline int psrec_run_extend(struct psrec_run *r, int32_t w)
{
	if (r->count == 1 && w != r->start) {
		r->stride = w - r->start;
		r->count = 2;
		return 1;
	}
	if (r->count >= 2 && (int64_t)r->start + (int64_t)r->stride * r->count == w) {
		r->count++;
		return 1;
	}
	return 0;
}

/* World rank of member `at` of the communicator whose runs are runs[0 .. n), or -1 when none
 * holds it (runs in member order: a binary search). */
static inline int32_t psrec_run_member(const struct psrec_run *runs, int n, int32_t at)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		const struct psrec_run *r = &runs[mid];

		if (at < r->at)
			hi = mid - 1;
		else if (at >= r->at + r->count)
			lo = mid + 1;
		else
			return (int32_t)((int64_t)r->start + (int64_t)r->stride * (at - r->at));
	}
	return -1;
}

#endif
