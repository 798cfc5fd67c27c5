/* SPDX-License-Identifier: BSD-3-Clause */
/* layer — the recording layer's record (record_format.h) and the parts of it that are not
 * requests or counters: this thread's call slot, the kinds of calls, the communicators (an id
 * the same in every member, the members, the collective count and history), the call in
 * progress, communicators made and freed. layer.h has the map of the other files. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "layer.h"

EXPORT struct psrec_area parastack_record;
int recording;
static __thread int my_slot = -1;

__thread int call_depth;

struct psrec_call *my_call(void)
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

#define FUNC_KIND(name, text, kind) [PSREC_##name] = PSREC_KIND_##kind,
static const uint8_t func_kind[PSREC_NFUNCS] = { PSREC_FUNCS(FUNC_KIND) };
#undef FUNC_KIND

enum psrec_kind kind_of(uint32_t func)
{
	return func < PSREC_NFUNCS ? (enum psrec_kind)func_kind[func] : PSREC_KIND_NONE;
}

/* ---- communicators ---------------------------------------------------------------------- */

static unsigned comm_hash(MPI_Comm c)
{
	uint64_t h = mix(0, (uint64_t)(uintptr_t)c);

	return (unsigned)(h >> 32) % PSREC_COMMS;
}

int comm_find(MPI_Comm c)
{
	unsigned h = comm_hash(c);

	for (unsigned k = 0; k < 16; k++) {
		struct psrec_comm *p = &A->comms[(h + k) % PSREC_COMMS];

		if (p->used && p->handle == (uint64_t)(uintptr_t)c)
			return (int)((h + k) % PSREC_COMMS);
	}
	return -1;
}

/* Members of c in runs (record_format.h): through `emit` (NULL: only counted). The count. */
static int members_runs(MPI_Comm c, int size, struct psrec_run *emit)
{
	MPI_Group g, world;
	int ranks[256], w[256], n = 0;
	struct psrec_run cur = { 0, 0, 0, 0 };

	PMPI_Comm_group(c, &g);
	PMPI_Comm_group(MPI_COMM_WORLD, &world);
	for (int r = 0; r < size; r += 256) {
		int k = size - r < 256 ? size - r : 256;

		for (int j = 0; j < k; j++)
			ranks[j] = r + j;
		PMPI_Group_translate_ranks(g, k, ranks, world, w);
		for (int j = 0; j < k; j++) {
			if (cur.count && psrec_run_extend(&cur, w[j]))
				continue;
			if (cur.count && emit)
				emit[n - 1] = cur;
			cur = (struct psrec_run){ r + j, w[j], 0, 1 };
			n++;
		}
	}
	if (cur.count && emit)
		emit[n - 1] = cur;
	PMPI_Group_free(&g);
	PMPI_Group_free(&world);
	return n;
}

/* p's members as runs in the pool: counted, room taken, then written (or p->first stays -1 and
 * the record says it dropped something, when the pool is full). */
static void comm_record_members(MPI_Comm c, int size, struct psrec_comm *p)
{
	int n = members_runs(c, size, NULL);
	uint32_t first = __atomic_fetch_add(&A->runs_used, (uint32_t)n, __ATOMIC_RELAXED);

	if (first + (uint32_t)n > PSREC_RUNS) {
		__atomic_fetch_add(&A->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	members_runs(c, size, &A->runs[first]);
	p->nruns = n;
	p->first = (int32_t)first;
}

/* Record c with the given id: its members as world ranks. The slot index, or -1. */
int comm_add(MPI_Comm c, uint64_t id)
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
		p->chans_lost = 0;
		memset(p->history, 0, sizeof(p->history));
		p->first = -1;
		p->nruns = 0;
		comm_record_members(c, size, p);
		seq_close(&p->seq);
		return i;
	}
	__atomic_fetch_add(&A->dropped, 1, __ATOMIC_RELAXED);
	return -1;
}

/* A communicator made by a call the layer does not wrap: named by its members alone. */
int comm_slot(MPI_Comm c)
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

void comm_forget(MPI_Comm c)
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
int32_t world_rank_of(int i, int r)
{
	const struct psrec_comm *p = i >= 0 ? &A->comms[i] : NULL;

	if (r == MPI_ANY_SOURCE)
		return PSREC_ANY_SOURCE;
	if (r == MPI_PROC_NULL || !p || p->first < 0 || r < 0 || r >= p->size)
		return PSREC_NO_PEER;
	return psrec_run_member(&A->runs[p->first], p->nruns, r);
}

/* ---- the call in progress ---------------------------------------------------------------- */

/* Does a call of func start a request (and no blocking wait)? Those stay in the thread's step. */
static bool starts_request(enum psrec_func func)
{
	switch (kind_of(func)) {
	case PSREC_KIND_ISEND: case PSREC_KIND_IRECV: case PSREC_KIND_IMRECV: case PSREC_KIND_INIT_SEND:
	case PSREC_KIND_INIT_RECV: case PSREC_KIND_ICOLL: case PSREC_KIND_ICALL:
		return true;
	default:
		return false;
	}
}

struct psrec_call *call_enter(const struct call_args *a)
{
	struct psrec_call *c = recording ? my_call() : NULL;

	if (!c)
		return NULL;
	if (call_depth++ == 0)
		__atomic_store_n(&c->entered_ns, now_ns(), __ATOMIC_RELEASE);

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
	if (!starts_request(a->func))
		c->step++;
	c->func = a->func;
	c->comm = ci;
	c->peer = a->peer == PSREC_NO_PEER ? PSREC_NO_PEER : world_rank_of(ci, a->peer);
	c->tag = tag_of(a->tag);
	c->root = a->root >= 0 ? world_rank_of(ci, a->root) : -1;
	c->bytes = a->bytes;
	c->coll_seq = cseq;
	c->caller = a->caller;
	c->nreqs = 0;
	seq_close(&c->seq);
	return c;
}

/* The v-variants: their data sizes differ from rank to rank by design (bytes -1: not compared),
 * except where every rank passes the same counts (Allgatherv's and Reduce_scatter's totals). */
int64_t counts_bytes(const int *counts, int n, MPI_Datatype t)
{
	int64_t sum = 0, unit = type_bytes(1, t);

	for (int i = 0; counts && i < n; i++)
		sum += counts[i];
	return sum < 0 || unit < 0 ? -1 : sum * unit;
}

int comm_size_of(MPI_Comm comm)
{
	int n = 0;

	return PMPI_Comm_size(comm, &n) == MPI_SUCCESS ? n : 0;
}

/* ---- communicators made and freed -------------------------------------------------------- */

/* A communicator made collectively from parent: the same id in every member (the parent's id,
 * the parent's collective number of the call, and the members). */
void comm_made(MPI_Comm parent, uint64_t parent_seq, MPI_Comm made)
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

EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
	if (recording)
		comm_forget(*comm);
	return PMPI_Comm_free(comm);
}
