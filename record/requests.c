/* SPDX-License-Identifier: BSD-3-Clause */
/* requests — the live nonblocking and persistent requests (record_format.h's psrec_req) and
 * the calls that complete them: the Wait family (a call to wait in, with the slots it waits on),
 * the Test family (polls: only completions noted), MPI_Start, MPI_Startall, MPI_Request_free.
 * A slot is found by the request's handle; a handle the library shares among many completed
 * requests (Open MPI's ompi_request_empty, MPICH's builtins) stands for all of them. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "layer.h"

/* ---- requests --------------------------------------------------------------------------- */

static unsigned req_hash(MPI_Request r)
{
	return (unsigned)(mix(1, (uint64_t)(uintptr_t)r) >> 32) % PSREC_REQS;
}

int req_find(MPI_Request r)
{
	unsigned h = req_hash(r);

	for (unsigned k = 0; k < REQ_PROBES; k++) {
		struct psrec_req *p = &A->reqs[(h + k) % PSREC_REQS];

		if (p->used && p->handle == (uint64_t)(uintptr_t)r)
			return (int)((h + k) % PSREC_REQS);
	}
	return -1;
}

#if defined(OPEN_MPI)
static const void *ompi_empty_request; /* &ompi_request_empty, found at MPI_Init */
#endif

void reqs_start(void)
{
#if defined(OPEN_MPI)
	ompi_empty_request = dlsym(RTLD_DEFAULT, "ompi_request_empty");
#endif
}

/* Is r a request the library hands out, already complete, to every caller (Open MPI's
 * ompi_request_empty for a small send that went out at once; MPICH's builtin requests)? Many
 * live requests share such a handle: one record stands for them (the latest call's: a send
 * never waited for still shows its peer and tag), and completing one completes them all. */
static inline bool req_shared_complete(MPI_Request r)
{
#if defined(OPEN_MPI)
	return ompi_empty_request && (const void *)r == ompi_empty_request;
#elif defined(MPICH_VERSION)
	return ((unsigned)r >> 30) == 1; /* HANDLE_KIND_BUILTIN */
#else
	(void)r;
	return false;
#endif
}

void req_add(MPI_Request r, const struct call_args *a, int persistent)
{
	if (!recording || r == MPI_REQUEST_NULL)
		return;

	unsigned h = req_hash(r);
	int ci = comm_slot(a->comm);
	int ch = req_chan(ci, a, persistent);
	const struct psrec_call *me = my_call();

	for (unsigned k = 0; k < REQ_PROBES; k++) {
		struct psrec_req *p = &A->reqs[(h + k) % PSREC_REQS];
		uint32_t zero = 0;

		/* A handle already recorded is the same request again: Open MPI returns one shared,
		 * already completed request for every small send that went out at once
		 * (ompi_request_empty). One record stands for all of them. */
		if (__atomic_load_n(&p->used, __ATOMIC_ACQUIRE) && p->handle == (uint64_t)(uintptr_t)r) {
			seq_open(&p->seq);
		} else if (!__atomic_compare_exchange_n(&p->used, &zero, 1, false, __ATOMIC_ACQ_REL,
							__ATOMIC_RELAXED)) {
			continue;
		} else {
			seq_open(&p->seq);
		}
		p->handle = (uint64_t)(uintptr_t)r;
		p->func = a->func;
		p->comm = ci;
		p->peer = a->peer == PSREC_NO_PEER ? PSREC_NO_PEER : world_rank_of(ci, a->peer);
		p->tag = tag_of(a->tag);
		p->caller = a->caller;
		p->persistent = (uint8_t)persistent;
		p->active = !persistent;
		p->chan = ch;
		p->bytes = a->bytes;
		p->step = me ? me->step : 0;
		p->tid = me ? me->tid : 0;
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

/* A persistent request started: active, its envelope posted again. */
static void req_start(int i)
{
	req_chan_started(&A->reqs[i]);
	req_set_active(i, 1);
}

void req_drop(int i)
{
	seq_open(&A->reqs[i].seq);
	A->reqs[i].handle = 0;
	A->reqs[i].active = 0;
	seq_close(&A->reqs[i].seq);
	__atomic_store_n(&A->reqs[i].used, 0, __ATOMIC_RELEASE);
}

/* Before a Wait/Test call: the slots of the requests it is given (into c's list too). */
void reqs_before(struct psrec_call *c, int n, const MPI_Request *r, struct req_refs *q)
{
	int *slots = q->slots;

	for (int i = 0; i < n && i < SLOTS_MAX; i++) {
		slots[i] = r[i] == MPI_REQUEST_NULL ? PSREC_REQ_NULL : recording ? req_find(r[i]) : PSREC_REQ_UNRECORDED;
		q->handles[i] = (uint64_t)(uintptr_t)r[i];
	}
	if (!c)
		return;
	seq_open(&c->seq);
	c->nreqs = n;
	for (int i = 0; i < PSREC_WAITREQS; i++)
		c->reqs[i] = i < n ? slots[i] : PSREC_REQ_UNRECORDED;
	seq_close(&c->seq);
}

/* After it: request i completed (now MPI_REQUEST_NULL, or a persistent one made inactive). */
static void req_completed(const struct req_refs *q, int i, MPI_Request now)
{
	int slot = q->slots[i];

	/* A shared completed handle: every record of it goes (two threads may each have added one). */
	if (req_shared_complete((MPI_Request)(uintptr_t)q->handles[i])) {
		for (int k = 0, s; k < REQ_PROBES && (s = req_find((MPI_Request)(uintptr_t)q->handles[i])) >= 0; k++) {
			req_chan_done(&A->reqs[s]);
			req_drop(s);
		}
		return;
	}
	if (slot < 0 || A->reqs[slot].handle != q->handles[i])
		return;
	req_chan_done(&A->reqs[slot]);
	if (now == MPI_REQUEST_NULL)
		req_drop(slot);
	else if (A->reqs[slot].persistent)
		req_set_active(slot, 0);
}

EXPORT int MPI_Start(MPI_Request *req)
{
	int i = recording ? req_find(*req) : -1;
	int rc = PMPI_Start(req);

	if (rc == MPI_SUCCESS && i >= 0)
		req_start(i);
	return rc;
}

/* Persistent requests started: active again (MPI_Startall, and the Fortran twins). */
void reqs_started(int n, const MPI_Request *reqs)
{
	for (int k = 0; recording && k < n; k++) {
		int i = req_find(reqs[k]);

		if (i >= 0)
			req_start(i);
	}
}

EXPORT int MPI_Startall(int n, MPI_Request *reqs)
{
	int rc = PMPI_Startall(n, reqs);

	if (rc == MPI_SUCCESS)
		reqs_started(n, reqs);
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
	struct call_args a = CALL_ARGS_NONE(PSREC_WAIT, CALLER);
	struct psrec_call *c = call_enter(&a);
	struct req_refs q;

	reqs_before(c, 1, req, &q);

	int rc = PMPI_Wait(req, status);

	req_completed(&q, 0, *req);
	call_leave(c);
	return rc;
}

/* Waitall/Waitany/Waitsome and the Test family share this: which requests completed is read
 * from the handles (MPI_REQUEST_NULL) and, for Waitany/Waitsome/Test*, the indices returned. */
void reqs_after(int n, const MPI_Request *r, const struct req_refs *q, int all_done,
		       int nidx, const int *idx)
{
	for (int i = 0; i < n && i < SLOTS_MAX; i++)
		if (all_done || r[i] == MPI_REQUEST_NULL)
			req_completed(q, i, r[i]);
	for (int k = 0; k < nidx; k++)
		if (idx[k] >= 0 && idx[k] < n && idx[k] < SLOTS_MAX)
			req_completed(q, idx[k], r[idx[k]]);
}

#define WAIT_BEGIN(FUNC, n, reqs)                                                              \
	struct call_args a = CALL_ARGS_NONE(PSREC_##FUNC, CALLER);                              \
	struct psrec_call *c = call_enter(&a);                                                  \
	struct req_refs q;                                                                      \
	reqs_before(c, (n) < SLOTS_MAX ? (n) : SLOTS_MAX, reqs, &q)

EXPORT int MPI_Waitall(int n, MPI_Request *reqs, MPI_Status *statuses)
{
	WAIT_BEGIN(WAITALL, n, reqs);
	int rc = PMPI_Waitall(n, reqs, statuses);

	reqs_after(n, reqs, &q, rc == MPI_SUCCESS, 0, NULL);
	call_leave(c);
	return rc;
}

EXPORT int MPI_Waitany(int n, MPI_Request *reqs, int *index, MPI_Status *status)
{
	WAIT_BEGIN(WAITANY, n, reqs);
	int rc = PMPI_Waitany(n, reqs, index, status);

	reqs_after(n, reqs, &q, 0, rc == MPI_SUCCESS && *index != MPI_UNDEFINED, index);
	call_leave(c);
	return rc;
}

EXPORT int MPI_Waitsome(int n, MPI_Request *reqs, int *outcount, int *indices, MPI_Status *statuses)
{
	WAIT_BEGIN(WAITSOME, n, reqs);
	int rc = PMPI_Waitsome(n, reqs, outcount, indices, statuses);

	reqs_after(n, reqs, &q, 0, rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0,
		   indices);
	call_leave(c);
	return rc;
}

/* The Test family polls: not a call to wait in, only completions to note. */

EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	struct req_refs q;

	reqs_before(NULL, 1, req, &q);

	int rc = PMPI_Test(req, flag, status);

	if (rc == MPI_SUCCESS && *flag)
		req_completed(&q, 0, *req);
	return rc;
}

EXPORT int MPI_Testall(int n, MPI_Request *reqs, int *flag, MPI_Status *statuses)
{
	struct req_refs q;

	reqs_before(NULL, n, reqs, &q);

	int rc = PMPI_Testall(n, reqs, flag, statuses);

	if (rc == MPI_SUCCESS && *flag)
		reqs_after(n, reqs, &q, 1, 0, NULL);
	return rc;
}

EXPORT int MPI_Testany(int n, MPI_Request *reqs, int *index, int *flag, MPI_Status *status)
{
	struct req_refs q;

	reqs_before(NULL, n, reqs, &q);

	int rc = PMPI_Testany(n, reqs, index, flag, status);

	if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
		reqs_after(n, reqs, &q, 0, 1, index);
	return rc;
}

EXPORT int MPI_Testsome(int n, MPI_Request *reqs, int *outcount, int *indices, MPI_Status *statuses)
{
	struct req_refs q;

	reqs_before(NULL, n, reqs, &q);

	int rc = PMPI_Testsome(n, reqs, outcount, indices, statuses);

	if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
		reqs_after(n, reqs, &q, 0, *outcount, indices);
	return rc;
}
