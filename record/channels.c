/* SPDX-License-Identifier: BSD-3-Clause */
/* channels — the layer's point-to-point counters (record_format.h's psrec_chan): per envelope
 * (communicator id, peer's world rank, tag), the sends this rank posted and the receives it
 * posted and completed. They let the monitor tell a receive whose message was sent from one
 * whose message never was, and a send whose receive is posted from one whose is not — the
 * matching behind the wait-for graph's edges. Keyed by the communicators' ids (layer.c);
 * lock-free: a claimed entry is published once, counters are atomic adds. */
#include "layer.h"


#define CHAN_PROBES 16

static void chan_lost(void)
{
	__atomic_fetch_add(&A->chans_lost, 1, __ATOMIC_RELAXED);
}

static bool chan_is(const struct psrec_chan *p, uint64_t comm, int32_t peer, int32_t tag)
{
	return __atomic_load_n(&p->used, __ATOMIC_ACQUIRE) == 2 && p->comm == comm && p->peer == peer &&
	       p->tag == tag;
}

/* The counters of envelope (communicator slot ci, world rank peer, tag), claimed on first use;
 * -1 when the call has no peer (MPI_PROC_NULL) or cannot be counted (said in chans_lost). */
static int chan_get(int ci, int32_t peer, int32_t tag)
{
	if (!recording || peer == PSREC_NO_PEER)
		return -1;
	if (ci < 0) {
		chan_lost(); /* an intercommunicator, or the communicators' table full */
		return -1;
	}

	uint64_t comm = A->comms[ci].id;
	unsigned h = (unsigned)(mix(mix(comm, (uint64_t)(uint32_t)peer), (uint64_t)(uint32_t)tag) >> 32) %
		     PSREC_CHANS;

	for (unsigned k = 0; k < CHAN_PROBES; k++) {
		unsigned i = (h + k) % PSREC_CHANS;
		struct psrec_chan *p = &A->chans[i];
		uint32_t zero = 0;

		if (chan_is(p, comm, peer, tag))
			return (int)i;
		if (__atomic_load_n(&p->used, __ATOMIC_ACQUIRE) != 0 ||
		    !__atomic_compare_exchange_n(&p->used, &zero, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		p->comm = comm;
		p->peer = peer;
		p->tag = tag;
		__atomic_store_n(&p->used, 2, __ATOMIC_RELEASE);
		return (int)i;
	}
	/* Said on the communicator too: matching on the others stays exact (mpi4py's collectives
	 * of Python objects use a new tag each time on a communicator of their own). */
	__atomic_fetch_add(&A->comms[ci].chans_lost, 1, __ATOMIC_RELAXED);
	chan_lost();
	return -1;
}

enum chan_count { CHAN_SENT, CHAN_POSTED, CHAN_DONE };

static void chan_add(int ch, enum chan_count what)
{
	struct psrec_chan *p = ch >= 0 ? &A->chans[ch] : NULL;

	if (p)
		__atomic_fetch_add(what == CHAN_SENT ? &p->sent : what == CHAN_POSTED ? &p->posted : &p->done, 1,
				   __ATOMIC_RELAXED);
}



/* A blocking point-to-point call starts: its send counted as posted, its receive as posted
 * (MPI_Mprobe's too: it takes the message off the queue). c is the call as call_enter recorded
 * it (its communicator slot already looked up), or NULL. Returns the receive's
 * counters, for p2p_leave to count it completed; -1 when it has none. */
int p2p_enter(const struct call_args *a, const struct psrec_call *c)
{
	enum psrec_kind kind = kind_of(a->func);

	if (!recording || (kind != PSREC_KIND_SEND && kind != PSREC_KIND_RECV && kind != PSREC_KIND_SENDRECV &&
			   a->func != PSREC_MPROBE))
		return -1;

	int ci = c ? c->comm : a->comm != MPI_COMM_NULL ? comm_slot(a->comm) : -1;
	int ch = chan_get(ci, world_rank_of(ci, a->peer), tag_of(a->tag));

	if (kind == PSREC_KIND_SENDRECV)
		chan_add(chan_get(ci, world_rank_of(ci, a->speer), tag_of(a->stag)), CHAN_SENT);
	chan_add(ch, kind == PSREC_KIND_SEND ? CHAN_SENT : CHAN_POSTED);
	return kind == PSREC_KIND_SEND ? -1 : ch;
}

void p2p_leave(int ch)
{
	chan_add(ch, CHAN_DONE);
}

/* A request's envelope counted: a nonblocking send or receive as it is posted, a persistent
 * one each time it is started (req_chan_started). Returns its counters. */
int req_chan(int ci, const struct call_args *a, int persistent)
{
	enum psrec_kind kind = kind_of(a->func);
	int ch;

	if (kind != PSREC_KIND_ISEND && kind != PSREC_KIND_IRECV && kind != PSREC_KIND_INIT_SEND &&
	    kind != PSREC_KIND_INIT_RECV)
		return -1;
	ch = chan_get(ci, world_rank_of(ci, a->peer), tag_of(a->tag));
	if (!persistent)
		chan_add(ch, kind == PSREC_KIND_ISEND ? CHAN_SENT : CHAN_POSTED);
	return ch;
}

/* A persistent request started: its send or receive posted again. */
void req_chan_started(const struct psrec_req *p)
{
	enum psrec_kind kind = kind_of(p->func);

	if (kind == PSREC_KIND_INIT_SEND || kind == PSREC_KIND_INIT_RECV)
		chan_add(p->chan, kind == PSREC_KIND_INIT_SEND ? CHAN_SENT : CHAN_POSTED);
}

/* A request completed: a receive's envelope counts one more completed. */
void req_chan_done(const struct psrec_req *p)
{
	enum psrec_kind kind = kind_of(p->func);

	if (kind == PSREC_KIND_IRECV || kind == PSREC_KIND_INIT_RECV)
		chan_add(p->chan, CHAN_DONE);
}
