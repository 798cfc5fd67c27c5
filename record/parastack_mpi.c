/* libparastack-mpi.so — the recording layer: PMPI wrappers that note, in memory the monitor can
 * copy (record_format.h), the MPI call each thread is in, each communicator's members and
 * collective count, and the live nonblocking requests. No locks and no system calls on the
 * call path: a few stores per call, each slot's sequence number odd while written. Preloaded
 * into the ranks by `parastack run`/`-sbatch`/`-qsub` (never into mpirun, orted, slurmstepd). */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record_format.h"

#define EXPORT __attribute__((visibility("default")))
#define CALLER ((uint64_t)(uintptr_t)__builtin_return_address(0))

EXPORT struct psrec_area parastack_record;
static int recording; /* set at MPI_Init when the library matches the one built against */
static __thread int my_slot = -1;

#define A (&parastack_record)

/* Mark a slot being written (odd), then written (even): readers keep only even, unchanged ones. */
static inline void seq_open(uint32_t *seq)
{
	__atomic_store_n(seq, *seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void seq_close(uint32_t *seq)
{
	__atomic_store_n(seq, *seq + 1, __ATOMIC_RELEASE);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

/* This thread's call slot, handed out once per thread; NULL when all are taken. */
static struct psrec_call *my_call(void)
{
	if (my_slot < 0) {
		uint32_t s = __atomic_fetch_add(&A->nthreads, 1, __ATOMIC_RELAXED);

		if (s >= PSREC_THREADS) {
			/* No slot for this thread, now or later: counted once. */
			__atomic_fetch_add(&A->dropped, 1, __ATOMIC_RELAXED);
			my_slot = PSREC_THREADS;
			return NULL;
		}
		my_slot = (int)s;
		A->calls[s].tid = (int32_t)syscall(SYS_gettid); /* once per thread */
	}
	return my_slot < PSREC_THREADS ? &A->calls[my_slot] : NULL;
}

/* ---- communicators ---------------------------------------------------------------------- */

static unsigned comm_hash(MPI_Comm c)
{
	uint64_t h = mix(0, (uint64_t)(uintptr_t)c);

	return (unsigned)(h >> 32) % PSREC_COMMS;
}

static int comm_find(MPI_Comm c)
{
	unsigned h = comm_hash(c);

	for (unsigned k = 0; k < 16; k++) {
		struct psrec_comm *p = &A->comms[(h + k) % PSREC_COMMS];

		if (p->used && p->handle == (uint64_t)(uintptr_t)c)
			return (int)((h + k) % PSREC_COMMS);
	}
	return -1;
}

/* Record c with the given id: its members as world ranks. The slot index, or -1. */
static int comm_add(MPI_Comm c, uint64_t id)
{
	unsigned h = comm_hash(c);
	int size = 0, inter = 0;

	PMPI_Comm_test_inter(c, &inter);
	if (inter)
		return -1;
	PMPI_Comm_size(c, &size);
	for (unsigned k = 0; k < 16; k++) {
		int i = (int)((h + k) % PSREC_COMMS);
		struct psrec_comm *p = &A->comms[i];
		uint32_t zero = 0;

		if (!__atomic_compare_exchange_n(&p->used, &zero, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		seq_open(&p->seq);
		p->handle = (uint64_t)(uintptr_t)c;
		p->id = id;
		p->size = size;
		p->coll_seq = 0;
		memset(p->history, 0, sizeof(p->history));
		p->first = -1;

		uint32_t first = __atomic_fetch_add(&A->members_used, (uint32_t)size, __ATOMIC_RELAXED);

		if (first + (uint32_t)size <= PSREC_MEMBERS) {
			MPI_Group g, world;
			int ranks[256];

			PMPI_Comm_group(c, &g);
			PMPI_Comm_group(MPI_COMM_WORLD, &world);
			for (int r = 0; r < size; r += 256) {
				int n = size - r < 256 ? size - r : 256;

				for (int j = 0; j < n; j++)
					ranks[j] = r + j;
				PMPI_Group_translate_ranks(g, n, ranks, world, &A->members[first + (uint32_t)r]);
			}
			PMPI_Group_free(&g);
			PMPI_Group_free(&world);
			p->first = (int32_t)first;
		} else {
			__atomic_fetch_add(&A->dropped, 1, __ATOMIC_RELAXED);
		}
		seq_close(&p->seq);
		return i;
	}
	__atomic_fetch_add(&A->dropped, 1, __ATOMIC_RELAXED);
	return -1;
}

/* A communicator made by a call the layer does not wrap: named by its members alone. */
static int comm_slot(MPI_Comm c)
{
	int i = comm_find(c);

	if (i >= 0 || c == MPI_COMM_NULL)
		return i;

	int size = 0, inter = 0;
	MPI_Group g, world;
	uint64_t id = 0x6d656d62657273ULL;

	PMPI_Comm_test_inter(c, &inter);
	if (inter)
		return -1;
	PMPI_Comm_size(c, &size);
	PMPI_Comm_group(c, &g);
	PMPI_Comm_group(MPI_COMM_WORLD, &world);
	for (int r = 0; r < size; r++) {
		int w = -1;

		PMPI_Group_translate_ranks(g, 1, &r, world, &w);
		id = mix(id, (uint64_t)(int64_t)w);
	}
	PMPI_Group_free(&g);
	PMPI_Group_free(&world);
	return comm_add(c, id);
}

static void comm_forget(MPI_Comm c)
{
	int i = comm_find(c);

	if (i < 0)
		return;
	seq_open(&A->comms[i].seq);
	A->comms[i].handle = 0;
	seq_close(&A->comms[i].seq);
	__atomic_store_n(&A->comms[i].used, 0, __ATOMIC_RELEASE);
}

/* World rank of rank r of the recorded communicator i, or -1. */
static int32_t world_rank_of(int i, int r)
{
	const struct psrec_comm *p = i >= 0 ? &A->comms[i] : NULL;

	if (r == MPI_ANY_SOURCE)
		return PSREC_ANY_SOURCE;
	if (r == MPI_PROC_NULL || !p || p->first < 0 || r < 0 || r >= p->size)
		return PSREC_NO_PEER;
	return A->members[p->first + r];
}

/* ---- the call in progress ---------------------------------------------------------------- */

struct call_args {
	enum psrec_func func;
	MPI_Comm comm;
	int peer, tag, root, collective;
	int64_t bytes;
	uint64_t caller;
};

static int64_t type_bytes(int count, MPI_Datatype t)
{
	int size = 0;

	if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &size) != MPI_SUCCESS)
		return -1;
	return (int64_t)count * size;
}

static struct psrec_call *call_enter(const struct call_args *a)
{
	struct psrec_call *c = recording ? my_call() : NULL;

	if (!c)
		return NULL;

	int ci = a->comm != MPI_COMM_NULL ? comm_slot(a->comm) : -1;
	uint64_t cseq = 0;

	if (a->collective && ci >= 0) {
		struct psrec_comm *p = &A->comms[ci];
		struct psrec_coll *h;

		/* One thread at a time runs collectives on a communicator (MPI's rule). */
		seq_open(&p->seq);
		cseq = ++p->coll_seq;
		h = &p->history[cseq % PSREC_HISTORY];
		h->coll_seq = cseq;
		h->func = a->func;
		h->root = a->root >= 0 ? world_rank_of(ci, a->root) : -1;
		h->bytes = a->bytes;
		h->caller = a->caller;
		seq_close(&p->seq);
	}
	seq_open(&c->seq);
	c->func = a->func;
	c->comm = ci;
	c->peer = a->peer == PSREC_NO_PEER ? PSREC_NO_PEER : world_rank_of(ci, a->peer);
	c->tag = a->tag == MPI_ANY_TAG ? PSREC_ANY_TAG : a->tag;
	c->root = a->root >= 0 ? world_rank_of(ci, a->root) : -1;
	c->bytes = a->bytes;
	c->coll_seq = cseq;
	c->caller = a->caller;
	c->nreqs = 0;
	seq_close(&c->seq);
	return c;
}

static void call_leave(struct psrec_call *c)
{
	if (!c)
		return;
	seq_open(&c->seq);
	c->func = PSREC_NONE;
	seq_close(&c->seq);
}

/* ---- requests --------------------------------------------------------------------------- */

#define REQ_PROBES 8

static unsigned req_hash(MPI_Request r)
{
	return (unsigned)(mix(1, (uint64_t)(uintptr_t)r) >> 32) % PSREC_REQS;
}

static int req_find(MPI_Request r)
{
	unsigned h = req_hash(r);

	for (unsigned k = 0; k < REQ_PROBES; k++) {
		struct psrec_req *p = &A->reqs[(h + k) % PSREC_REQS];

		if (p->used && p->handle == (uint64_t)(uintptr_t)r)
			return (int)((h + k) % PSREC_REQS);
	}
	return -1;
}

static void req_add(MPI_Request r, const struct call_args *a, int persistent)
{
	if (!recording || r == MPI_REQUEST_NULL)
		return;

	unsigned h = req_hash(r);
	int ci = comm_slot(a->comm);

	for (unsigned k = 0; k < REQ_PROBES; k++) {
		struct psrec_req *p = &A->reqs[(h + k) % PSREC_REQS];
		uint32_t zero = 0;

		if (!__atomic_compare_exchange_n(&p->used, &zero, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		seq_open(&p->seq);
		p->handle = (uint64_t)(uintptr_t)r;
		p->func = a->func;
		p->comm = ci;
		p->peer = a->peer == PSREC_NO_PEER ? PSREC_NO_PEER : world_rank_of(ci, a->peer);
		p->tag = a->tag == MPI_ANY_TAG ? PSREC_ANY_TAG : a->tag;
		p->caller = a->caller;
		p->persistent = (uint8_t)persistent;
		p->active = !persistent;
		seq_close(&p->seq);
		return;
	}
	__atomic_fetch_add(&A->dropped, 1, __ATOMIC_RELAXED);
}

static void req_set_active(int i, int active)
{
	seq_open(&A->reqs[i].seq);
	A->reqs[i].active = (uint8_t)active;
	seq_close(&A->reqs[i].seq);
}

static void req_drop(int i)
{
	seq_open(&A->reqs[i].seq);
	A->reqs[i].handle = 0;
	A->reqs[i].active = 0;
	seq_close(&A->reqs[i].seq);
	__atomic_store_n(&A->reqs[i].used, 0, __ATOMIC_RELEASE);
}

/* Before a Wait/Test call: the slots of the requests it is given (into c's list too). */
static void reqs_before(struct psrec_call *c, int n, const MPI_Request *r, int *slots)
{
	for (int i = 0; i < n; i++)
		slots[i] = recording ? req_find(r[i]) : -1;
	if (!c)
		return;
	seq_open(&c->seq);
	c->nreqs = n;
	for (int i = 0; i < PSREC_WAITREQS; i++)
		c->reqs[i] = i < n ? slots[i] : -1;
	seq_close(&c->seq);
}

/* After it: request i completed (now MPI_REQUEST_NULL, or a persistent one made inactive). */
static void req_completed(int slot, MPI_Request now)
{
	if (slot < 0)
		return;
	if (now == MPI_REQUEST_NULL)
		req_drop(slot);
	else if (A->reqs[slot].persistent)
		req_set_active(slot, 0);
}

#define SLOTS_MAX 256

/* ---- point to point --------------------------------------------------------------------- */

#define P2P(fn, FUNC, peer_arg)                                                               \
	int MPI_##fn(const void *buf, int count, MPI_Datatype type, int peer_arg, int tag,      \
		     MPI_Comm comm)                                                             \
	{                                                                                       \
		struct call_args a = { PSREC_##FUNC, comm, peer_arg, tag, -1, 0,                \
				       type_bytes(count, type), CALLER };                       \
		struct psrec_call *c = call_enter(&a);                                          \
		int rc = PMPI_##fn(buf, count, type, peer_arg, tag, comm);                      \
                                                                                                \
		call_leave(c);                                                                  \
		return rc;                                                                      \
	}

EXPORT P2P(Send, SEND, dest)
EXPORT P2P(Ssend, SSEND, dest)
EXPORT P2P(Bsend, BSEND, dest)
EXPORT P2P(Rsend, RSEND, dest)

EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
		    MPI_Status *status)
{
	struct call_args a = { PSREC_RECV, comm, source, tag, -1, 0, type_bytes(count, type), CALLER };
	struct psrec_call *c = call_enter(&a);
	int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	struct call_args a = { PSREC_PROBE, comm, source, tag, -1, 0, 0, CALLER };
	struct psrec_call *c = call_enter(&a);
	int rc = PMPI_Probe(source, tag, comm, status);

	call_leave(c);
	return rc;
}

/* Sendrecv waits for its receive: the peer recorded is the source. */
EXPORT int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
			void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
			MPI_Comm comm, MPI_Status *status)
{
	struct call_args a = { PSREC_SENDRECV, comm, source, rtag, -1, 0, type_bytes(rcount, rtype), CALLER };
	struct psrec_call *c = call_enter(&a);
	int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
			       comm, status);

	call_leave(c);
	return rc;
}

#define NONBLOCKING(fn, FUNC, bufq, peer_arg, persistent)                                     \
	int MPI_##fn(bufq void *buf, int count, MPI_Datatype type, int peer_arg, int tag,       \
		     MPI_Comm comm, MPI_Request *req)                                           \
	{                                                                                       \
		struct call_args a = { PSREC_##FUNC, comm, peer_arg, tag, -1, 0,                \
				       type_bytes(count, type), CALLER };                       \
		int rc = PMPI_##fn(buf, count, type, peer_arg, tag, comm, req);                 \
                                                                                                \
		if (rc == MPI_SUCCESS)                                                          \
			req_add(*req, &a, persistent);                                          \
		return rc;                                                                      \
	}

EXPORT NONBLOCKING(Isend, ISEND, const, dest, 0)
EXPORT NONBLOCKING(Issend, ISSEND, const, dest, 0)
EXPORT NONBLOCKING(Irecv, IRECV, , source, 0)
EXPORT NONBLOCKING(Send_init, SEND_INIT, const, dest, 1)
EXPORT NONBLOCKING(Recv_init, RECV_INIT, , source, 1)

EXPORT int MPI_Start(MPI_Request *req)
{
	int i = recording ? req_find(*req) : -1;
	int rc = PMPI_Start(req);

	if (rc == MPI_SUCCESS && i >= 0)
		req_set_active(i, 1);
	return rc;
}

EXPORT int MPI_Startall(int n, MPI_Request *reqs)
{
	int rc = PMPI_Startall(n, reqs);

	for (int k = 0; recording && rc == MPI_SUCCESS && k < n; k++) {
		int i = req_find(reqs[k]);

		if (i >= 0)
			req_set_active(i, 1);
	}
	return rc;
}

EXPORT int MPI_Request_free(MPI_Request *req)
{
	int i = recording ? req_find(*req) : -1;
	int rc = PMPI_Request_free(req);

	if (i >= 0)
		req_drop(i);
	return rc;
}

/* ---- completion ------------------------------------------------------------------------- */

EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	struct call_args a = { PSREC_WAIT, MPI_COMM_NULL, PSREC_NO_PEER, 0, -1, 0, 0, CALLER };
	struct psrec_call *c = call_enter(&a);
	int slot;

	reqs_before(c, 1, req, &slot);

	int rc = PMPI_Wait(req, status);

	req_completed(slot, *req);
	call_leave(c);
	return rc;
}

/* Waitall/Waitany/Waitsome and the Test family share this: which requests completed is read
 * from the handles (MPI_REQUEST_NULL) and, for Waitany/Waitsome/Test*, the indices returned. */
static void reqs_after(int n, const MPI_Request *r, const int *slots, int all_done,
		       int nidx, const int *idx)
{
	for (int i = 0; i < n && i < SLOTS_MAX; i++)
		if (slots[i] >= 0 && (all_done || r[i] == MPI_REQUEST_NULL))
			req_completed(slots[i], r[i]);
	for (int k = 0; k < nidx; k++)
		if (idx[k] >= 0 && idx[k] < n && idx[k] < SLOTS_MAX)
			req_completed(slots[idx[k]], r[idx[k]]);
}

#define WAIT_BEGIN(FUNC, n, reqs)                                                              \
	struct call_args a = { PSREC_##FUNC, MPI_COMM_NULL, PSREC_NO_PEER, 0, -1, 0, 0, CALLER }; \
	struct psrec_call *c = call_enter(&a);                                                  \
	int slots[SLOTS_MAX];                                                                   \
	reqs_before(c, (n) < SLOTS_MAX ? (n) : SLOTS_MAX, reqs, slots)

EXPORT int MPI_Waitall(int n, MPI_Request *reqs, MPI_Status *statuses)
{
	WAIT_BEGIN(WAITALL, n, reqs);
	int rc = PMPI_Waitall(n, reqs, statuses);

	reqs_after(n, reqs, slots, rc == MPI_SUCCESS, 0, NULL);
	call_leave(c);
	return rc;
}

EXPORT int MPI_Waitany(int n, MPI_Request *reqs, int *index, MPI_Status *status)
{
	WAIT_BEGIN(WAITANY, n, reqs);
	int rc = PMPI_Waitany(n, reqs, index, status);

	reqs_after(n, reqs, slots, 0, rc == MPI_SUCCESS && *index != MPI_UNDEFINED, index);
	call_leave(c);
	return rc;
}

EXPORT int MPI_Waitsome(int n, MPI_Request *reqs, int *outcount, int *indices, MPI_Status *statuses)
{
	WAIT_BEGIN(WAITSOME, n, reqs);
	int rc = PMPI_Waitsome(n, reqs, outcount, indices, statuses);

	reqs_after(n, reqs, slots, 0, rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0,
		   indices);
	call_leave(c);
	return rc;
}

/* The Test family polls: not a call to wait in, only completions to note. */
static void test_slots(int n, const MPI_Request *r, int *slots)
{
	for (int i = 0; i < n && i < SLOTS_MAX; i++)
		slots[i] = recording ? req_find(r[i]) : -1;
}

EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	int slot = recording ? req_find(*req) : -1;
	int rc = PMPI_Test(req, flag, status);

	if (rc == MPI_SUCCESS && *flag)
		req_completed(slot, *req);
	return rc;
}

EXPORT int MPI_Testall(int n, MPI_Request *reqs, int *flag, MPI_Status *statuses)
{
	int slots[SLOTS_MAX];

	test_slots(n, reqs, slots);

	int rc = PMPI_Testall(n, reqs, flag, statuses);

	if (rc == MPI_SUCCESS && *flag)
		reqs_after(n, reqs, slots, 1, 0, NULL);
	return rc;
}

EXPORT int MPI_Testany(int n, MPI_Request *reqs, int *index, int *flag, MPI_Status *status)
{
	int slots[SLOTS_MAX];

	test_slots(n, reqs, slots);

	int rc = PMPI_Testany(n, reqs, index, flag, status);

	if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
		reqs_after(n, reqs, slots, 0, 1, index);
	return rc;
}

EXPORT int MPI_Testsome(int n, MPI_Request *reqs, int *outcount, int *indices, MPI_Status *statuses)
{
	int slots[SLOTS_MAX];

	test_slots(n, reqs, slots);

	int rc = PMPI_Testsome(n, reqs, outcount, indices, statuses);

	if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
		reqs_after(n, reqs, slots, 0, *outcount, indices);
	return rc;
}

/* ---- collectives ------------------------------------------------------------------------ */

#define COLL_ENTER(FUNC, comm, root, bytes)                                                    \
	struct call_args a = { PSREC_##FUNC, comm, PSREC_NO_PEER, 0, root, 1, bytes, CALLER };  \
	struct psrec_call *c = call_enter(&a)

EXPORT int MPI_Barrier(MPI_Comm comm)
{
	COLL_ENTER(BARRIER, comm, -1, 0);
	int rc = PMPI_Barrier(comm);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	COLL_ENTER(BCAST, comm, root, type_bytes(count, type));
	int rc = PMPI_Bcast(buf, count, type, root, comm);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
		      int root, MPI_Comm comm)
{
	COLL_ENTER(REDUCE, comm, root, type_bytes(count, type));
	int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
			 MPI_Comm comm)
{
	COLL_ENTER(ALLREDUCE, comm, -1, type_bytes(count, type));
	int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		      MPI_Datatype rtype, int root, MPI_Comm comm)
{
	COLL_ENTER(GATHER, comm, root, type_bytes(scount, stype));
	int rc = PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		       MPI_Datatype rtype, int root, MPI_Comm comm)
{
	COLL_ENTER(SCATTER, comm, root, type_bytes(rcount, rtype));
	int rc = PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
			 MPI_Datatype rtype, MPI_Comm comm)
{
	COLL_ENTER(ALLGATHER, comm, -1, type_bytes(scount, stype));
	int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
			MPI_Datatype rtype, MPI_Comm comm)
{
	COLL_ENTER(ALLTOALL, comm, -1, type_bytes(scount, stype));
	int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);

	call_leave(c);
	return rc;
}

/* The v-variants: their data sizes differ from rank to rank by design (bytes -1: not compared),
 * except where every rank passes the same counts (Allgatherv's and Reduce_scatter's totals). */
static int64_t counts_bytes(const int *counts, int n, MPI_Datatype t)
{
	int64_t sum = 0, unit = type_bytes(1, t);

	for (int i = 0; counts && i < n; i++)
		sum += counts[i];
	return sum < 0 || unit < 0 ? -1 : sum * unit;
}

static int comm_size_of(MPI_Comm comm)
{
	int n = 0;

	return PMPI_Comm_size(comm, &n) == MPI_SUCCESS ? n : 0;
}

EXPORT int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		       const int *rcounts, const int *displs, MPI_Datatype rtype, int root,
		       MPI_Comm comm)
{
	COLL_ENTER(GATHERV, comm, root, -1);
	int rc = PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype,
			void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	COLL_ENTER(SCATTERV, comm, root, -1);
	int rc = PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
			  const int *rcounts, const int *displs, MPI_Datatype rtype, MPI_Comm comm)
{
	COLL_ENTER(ALLGATHERV, comm, -1, counts_bytes(rcounts, comm_size_of(comm), rtype));
	int rc = PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
			 MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls,
			 MPI_Datatype rtype, MPI_Comm comm)
{
	COLL_ENTER(ALLTOALLV, comm, -1, -1);
	int rc = PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);

	call_leave(c);
	return rc;
}

EXPORT int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype type,
			      MPI_Op op, MPI_Comm comm)
{
	COLL_ENTER(REDUCE_SCATTER, comm, -1, counts_bytes(rcounts, comm_size_of(comm), type));
	int rc = PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm);

	call_leave(c);
	return rc;
}

/* MPI_Reduce_scatter_block, MPI_Scan and MPI_Exscan: (sbuf, rbuf, count, type, op, comm), the
 * same count on every rank. */
#define WRAP_COUNT_REDUCTION(NAME, FUNC)                                                       \
	EXPORT int MPI_##NAME(const void *sbuf, void *rbuf, int count, MPI_Datatype type,     \
			      MPI_Op op, MPI_Comm comm)                                       \
	{                                                                                      \
		COLL_ENTER(FUNC, comm, -1, type_bytes(count, type));                           \
		int rc = PMPI_##NAME(sbuf, rbuf, count, type, op, comm);                       \
                                                                                               \
		call_leave(c);                                                                 \
		return rc;                                                                     \
	}

WRAP_COUNT_REDUCTION(Reduce_scatter_block, REDUCE_SCATTER_BLOCK)
WRAP_COUNT_REDUCTION(Scan, SCAN)
WRAP_COUNT_REDUCTION(Exscan, EXSCAN)

/* Nonblocking collectives take their number at the start; the request is what waits. */
EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
	COLL_ENTER(IBARRIER, comm, -1, 0);
	int rc = PMPI_Ibarrier(comm, req);

	call_leave(c);
	if (rc == MPI_SUCCESS)
		req_add(*req, &a, 0);
	return rc;
}

EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
		      MPI_Request *req)
{
	COLL_ENTER(IBCAST, comm, root, type_bytes(count, type));
	int rc = PMPI_Ibcast(buf, count, type, root, comm, req);

	call_leave(c);
	if (rc == MPI_SUCCESS)
		req_add(*req, &a, 0);
	return rc;
}

EXPORT int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
			  MPI_Comm comm, MPI_Request *req)
{
	COLL_ENTER(IALLREDUCE, comm, -1, type_bytes(count, type));
	int rc = PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);

	call_leave(c);
	if (rc == MPI_SUCCESS)
		req_add(*req, &a, 0);
	return rc;
}

/* ---- communicators made and freed -------------------------------------------------------- */

/* A communicator made collectively from parent: the same id in every member (the parent's id,
 * the parent's collective number of the call, and the members). */
static void comm_made(MPI_Comm parent, uint64_t parent_seq, MPI_Comm made)
{
	int pi = comm_find(parent);

	if (!recording || made == MPI_COMM_NULL)
		return;

	int i = comm_slot(made);

	if (i >= 0 && pi >= 0) {
		seq_open(&A->comms[i].seq);
		A->comms[i].id = mix(mix(A->comms[pi].id, parent_seq), A->comms[i].id);
		seq_close(&A->comms[i].seq);
	}
}

EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
	COLL_ENTER(COMM_DUP, comm, -1, 0);
	int rc = PMPI_Comm_dup(comm, out);

	if (rc == MPI_SUCCESS)
		comm_made(comm, c ? c->coll_seq : 0, *out);
	call_leave(c);
	return rc;
}

EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
	COLL_ENTER(COMM_SPLIT, comm, -1, 0);
	int rc = PMPI_Comm_split(comm, color, key, out);

	if (rc == MPI_SUCCESS)
		comm_made(comm, c ? c->coll_seq : 0, *out);
	call_leave(c);
	return rc;
}

EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
	if (recording)
		comm_forget(*comm);
	return PMPI_Comm_free(comm);
}

/* ---- start and end ---------------------------------------------------------------------- */

/* Does the library the job runs with match the one this layer was built for? (Same MPI
 * family and major version: the handles' layout is what the wrappers rely on.) */
static int library_matches(void)
{
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;

	PMPI_Get_library_version(version, &len);
	snprintf(A->mpi_library, sizeof(A->mpi_library), "%.*s", (int)strcspn(version, ",\n"), version);
#if defined(OPEN_MPI)
	char want[64];

	snprintf(want, sizeof(want), "Open MPI v%d.", OMPI_MAJOR_VERSION);
	return strncmp(version, want, strlen(want)) == 0;
#elif defined(MPICH_VERSION)
	return strstr(version, "MPICH") != NULL;
#else
	return 1;
#endif
}

static void record_start(void)
{
	A->magic = PSREC_MAGIC;
	A->version = PSREC_VERSION;
	A->size = sizeof(*A);
	PMPI_Comm_rank(MPI_COMM_WORLD, &A->world_rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &A->world_size);
	if (!library_matches()) {
		if (A->world_rank == 0)
			fprintf(stderr, "parastack: the recording layer was built for another MPI library "
				"than this job's (%s); the job runs without it\n", A->mpi_library);
		A->magic = 0;
		return;
	}
	recording = 1;
	comm_add(MPI_COMM_WORLD, 1);
	comm_add(MPI_COMM_SELF, mix(2, (uint64_t)A->world_rank));
}

EXPORT int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);

	if (rc == MPI_SUCCESS)
		record_start();
	return rc;
}

EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	if (rc == MPI_SUCCESS)
		record_start();
	return rc;
}

EXPORT int MPI_Finalize(void)
{
	struct call_args a = { PSREC_FINALIZE, MPI_COMM_NULL, PSREC_NO_PEER, 0, -1, 0, 0, CALLER };
	struct psrec_call *c = call_enter(&a);

	A->finalized = 1;
	recording = 0;

	int rc = PMPI_Finalize();

	(void)c; /* stays "in MPI_Finalize": the process is about to end */
	return rc;
}

/* ---- Fortran (mpif.h and `use mpi`: gfortran's mpi_xxx_ names) --------------------------- */
/* Open MPI's Fortran bindings call PMPI_* directly, past the C wrappers above: the layer wraps
 * their entry points too and calls the library's own through its pmpi_xxx_ names (resolved
 * when first used, so a C-only job never loads the Fortran library). */

#include <dlfcn.h>

/* Fortran entry points have no C header to declare them. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

typedef MPI_Fint F; /* a Fortran INTEGER */

#define REAL(name) real_##name
#define FORTRAN_REAL(ret, name, params)                                                        \
	static ret(*REAL(name)) params;                                                         \
	static int resolve_##name(void)                                                         \
	{                                                                                       \
		if (!REAL(name))                                                                \
			*(void **)&REAL(name) = dlsym(RTLD_NEXT, "p" #name);                    \
		return REAL(name) != NULL;                                                      \
	}

FORTRAN_REAL(void, mpi_init_, (F *))
FORTRAN_REAL(void, mpi_init_thread_, (F *, F *, F *))
FORTRAN_REAL(void, mpi_finalize_, (F *))
FORTRAN_REAL(void, mpi_send_, (void *, F *, F *, F *, F *, F *, F *))
FORTRAN_REAL(void, mpi_ssend_, (void *, F *, F *, F *, F *, F *, F *))
FORTRAN_REAL(void, mpi_recv_, (void *, F *, F *, F *, F *, F *, F *, F *))
FORTRAN_REAL(void, mpi_sendrecv_, (void *, F *, F *, F *, F *, void *, F *, F *, F *, F *, F *, F *, F *))
FORTRAN_REAL(void, mpi_isend_, (void *, F *, F *, F *, F *, F *, F *, F *))
FORTRAN_REAL(void, mpi_irecv_, (void *, F *, F *, F *, F *, F *, F *, F *))
FORTRAN_REAL(void, mpi_wait_, (F *, F *, F *))
FORTRAN_REAL(void, mpi_waitall_, (F *, F *, F *, F *))
FORTRAN_REAL(void, mpi_barrier_, (F *, F *))
FORTRAN_REAL(void, mpi_bcast_, (void *, F *, F *, F *, F *, F *))
FORTRAN_REAL(void, mpi_reduce_, (void *, void *, F *, F *, F *, F *, F *, F *))
FORTRAN_REAL(void, mpi_allreduce_, (void *, void *, F *, F *, F *, F *, F *))

/* A wrapper whose real function is missing (no Fortran library): report an error as MPI
 * would rather than jump to NULL. */
#define NEED(name, ierr)                                                                       \
	do {                                                                                    \
		if (!resolve_##name()) {                                                        \
			*(ierr) = MPI_ERR_INTERN;                                               \
			return;                                                                 \
		}                                                                               \
	} while (0)

static struct call_args f_args(enum psrec_func func, F comm, int peer, int tag, int root,
			       int collective, F count, F type, uint64_t caller)
{
	struct call_args a = { func, PMPI_Comm_f2c(comm), peer, tag, root, collective,
			       type_bytes(count, PMPI_Type_f2c(type)), caller };

	return a;
}

EXPORT void mpi_init_(F *ierr)
{
	NEED(mpi_init_, ierr);
	REAL(mpi_init_)(ierr);
	if (*ierr == MPI_SUCCESS)
		record_start();
}

EXPORT void mpi_init_thread_(F *required, F *provided, F *ierr)
{
	NEED(mpi_init_thread_, ierr);
	REAL(mpi_init_thread_)(required, provided, ierr);
	if (*ierr == MPI_SUCCESS)
		record_start();
}

EXPORT void mpi_finalize_(F *ierr)
{
	struct call_args a = { PSREC_FINALIZE, MPI_COMM_NULL, PSREC_NO_PEER, 0, -1, 0, 0, CALLER };

	NEED(mpi_finalize_, ierr);
	call_enter(&a);
	A->finalized = 1;
	recording = 0;
	REAL(mpi_finalize_)(ierr);
}

#define F_SEND(name, FUNC)                                                                     \
	EXPORT void name(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)       \
	{                                                                                       \
		NEED(name, ierr);                                                               \
		struct call_args a = f_args(PSREC_##FUNC, *comm, *dest, *tag, -1, 0, *count,    \
					    *type, CALLER);                                     \
		struct psrec_call *c = call_enter(&a);                                          \
		REAL(name)(buf, count, type, dest, tag, comm, ierr);                            \
		call_leave(c);                                                                  \
	}

F_SEND(mpi_send_, SEND)
F_SEND(mpi_ssend_, SSEND)

EXPORT void mpi_recv_(void *buf, F *count, F *type, F *src, F *tag, F *comm, F *status, F *ierr)
{
	NEED(mpi_recv_, ierr);

	struct call_args a = f_args(PSREC_RECV, *comm, *src, *tag, -1, 0, *count, *type, CALLER);
	struct psrec_call *c = call_enter(&a);

	REAL(mpi_recv_)(buf, count, type, src, tag, comm, status, ierr);
	call_leave(c);
}

EXPORT void mpi_sendrecv_(void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount,
			  F *rtype, F *src, F *rtag, F *comm, F *status, F *ierr)
{
	NEED(mpi_sendrecv_, ierr);

	struct call_args a = f_args(PSREC_SENDRECV, *comm, *src, *rtag, -1, 0, *rcount, *rtype, CALLER);
	struct psrec_call *c = call_enter(&a);

	REAL(mpi_sendrecv_)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
			    status, ierr);
	call_leave(c);
}

#define F_NONBLOCKING(name, FUNC)                                                              \
	EXPORT void name(void *buf, F *count, F *type, F *peer, F *tag, F *comm, F *req, F *ierr) \
	{                                                                                       \
		NEED(name, ierr);                                                               \
		struct call_args a = f_args(PSREC_##FUNC, *comm, *peer, *tag, -1, 0, *count,    \
					    *type, CALLER);                                     \
		REAL(name)(buf, count, type, peer, tag, comm, req, ierr);                       \
		if (*ierr == MPI_SUCCESS)                                                       \
			req_add(PMPI_Request_f2c(*req), &a, 0);                                 \
	}

F_NONBLOCKING(mpi_isend_, ISEND)
F_NONBLOCKING(mpi_irecv_, IRECV)

EXPORT void mpi_wait_(F *req, F *status, F *ierr)
{
	NEED(mpi_wait_, ierr);

	struct call_args a = { PSREC_WAIT, MPI_COMM_NULL, PSREC_NO_PEER, 0, -1, 0, 0, CALLER };
	struct psrec_call *c = call_enter(&a);
	MPI_Request r = PMPI_Request_f2c(*req);
	int slot;

	reqs_before(c, 1, &r, &slot);
	REAL(mpi_wait_)(req, status, ierr);
	req_completed(slot, MPI_REQUEST_NULL);
	call_leave(c);
}

EXPORT void mpi_waitall_(F *n, F *reqs, F *statuses, F *ierr)
{
	NEED(mpi_waitall_, ierr);

	struct call_args a = { PSREC_WAITALL, MPI_COMM_NULL, PSREC_NO_PEER, 0, -1, 0, 0, CALLER };
	struct psrec_call *c = call_enter(&a);
	MPI_Request r[SLOTS_MAX] = { 0 };
	int slots[SLOTS_MAX], k = *n < 0 ? 0 : *n < SLOTS_MAX ? *n : SLOTS_MAX;

	for (int i = 0; i < k; i++)
		r[i] = PMPI_Request_f2c(reqs[i]);
	reqs_before(c, k, r, slots);
	REAL(mpi_waitall_)(n, reqs, statuses, ierr);
	for (int i = 0; *ierr == MPI_SUCCESS && i < k; i++)
		req_completed(slots[i], MPI_REQUEST_NULL);
	call_leave(c);
}

EXPORT void mpi_barrier_(F *comm, F *ierr)
{
	NEED(mpi_barrier_, ierr);

	struct call_args a = f_args(PSREC_BARRIER, *comm, PSREC_NO_PEER, 0, -1, 1, 0, 0, CALLER);
	struct psrec_call *c = call_enter(&a);

	REAL(mpi_barrier_)(comm, ierr);
	call_leave(c);
}

EXPORT void mpi_bcast_(void *buf, F *count, F *type, F *root, F *comm, F *ierr)
{
	NEED(mpi_bcast_, ierr);

	struct call_args a = f_args(PSREC_BCAST, *comm, PSREC_NO_PEER, 0, *root, 1, *count, *type, CALLER);
	struct psrec_call *c = call_enter(&a);

	REAL(mpi_bcast_)(buf, count, type, root, comm, ierr);
	call_leave(c);
}

EXPORT void mpi_reduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm, F *ierr)
{
	NEED(mpi_reduce_, ierr);

	struct call_args a = f_args(PSREC_REDUCE, *comm, PSREC_NO_PEER, 0, *root, 1, *count, *type, CALLER);
	struct psrec_call *c = call_enter(&a);

	REAL(mpi_reduce_)(sbuf, rbuf, count, type, op, root, comm, ierr);
	call_leave(c);
}

EXPORT void mpi_allreduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr)
{
	NEED(mpi_allreduce_, ierr);

	struct call_args a = f_args(PSREC_ALLREDUCE, *comm, PSREC_NO_PEER, 0, -1, 1, *count, *type, CALLER);
	struct psrec_call *c = call_enter(&a);

	REAL(mpi_allreduce_)(sbuf, rbuf, count, type, op, comm, ierr);
	call_leave(c);
}
