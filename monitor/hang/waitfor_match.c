/* SPDX-License-Identifier: BSD-3-Clause */
/* waitfor_match — which point-to-point waits are really blocked, from the layer's counters
 * (record/channels.c: per envelope, the sends each rank posted and the receives it posted and
 * completed). A receive blocks on its source only if the sends that source posted to it with
 * that envelope are all taken by receives it completed; a wildcard receive only if no member's
 * are left. A send blocks on its destination only if that rank has not posted a receive for it
 * and it did not go out eagerly: a blocking send still inside its call in a hung job did not,
 * whatever its size (one that went out eagerly has returned); a request's send did not when it
 * is synchronous or larger than every eager limit. A Waitall waits on its blocked requests alone; a
 * Waitany/Waitsome is blocked only if all of them are. The counts give bounds, not a replay:
 * where a bound cannot decide (a peer without counters, a wildcard receive that may have taken
 * the message), the wait is "unsure" and no edge is claimed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sample/record/mpirecord.h"
#include "waitfor_graph.h"

/* A send this small went out at once on every transport seen (Open MPI's shared memory
 * eager limit is 4 KiB; TCP's and MPICH's larger). */
#define EAGER_SURE 4096
/* Larger than every default eager limit: such a send waits for its receive. */
#define RENDEZVOUS_SURE 65536

enum verdict { SATISFIED, BLOCKED, UNKNOWN };

/* One pending operation of a rank's call. */
struct op {
	const char *func, *comm, *at;
	int peer;            /* world rank, ANY, or NO_PEER (below ANY: nobody to wait for) */
	long long tag, bytes;
	bool send, probe, sync, request;
	enum verdict v;
	long long sent;      /* receives: what the candidates ever sent on the envelope */
};

#define OPS_MAX 64

/* A peer below ANY: NO_PEER, MPI_PROC_NULL as recorded (a hostile record's other values alike). */
static bool op_to_nobody(long long peer)
{
	return peer < ANY;
}

static bool tag_matches(long long have, long long want)
{
	return want == ANY || have == want;
}

/* Sum of field over rec's channels on comm whose (peer, tag) pass the filter. */
static long long chan_sum(json_t *rec, const char *comm, const char *field,
			  bool (*pass)(long long peer, long long tag, const struct op *o, int self),
			  const struct op *o, int self)
{
	long long sum = 0;
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(rec, "channels"), i, c)
		if (is_text(str(c, "comm"), comm) && pass(num(c, "peer"), num(c, "tag"), o, self))
			sum += num(c, field);
	return sum;
}

/* A sender's channel to the receiving rank self, on a tag the receive takes. */
static bool sent_to(long long peer, long long tag, const struct op *o, int self)
{
	return peer == self && tag_matches(tag, o->tag);
}

/* A receive envelope that takes only messages o takes too. */
static bool subset_of(long long peer, long long tag, const struct op *o, int self)
{
	(void)self;
	return (o->peer == ANY || peer == o->peer) && (o->tag == ANY || tag == o->tag);
}

/* A receive envelope that may take o's messages, without being a subset of o's. */
static bool overlaps_only(long long peer, long long tag, const struct op *o, int self)
{
	bool overlap = (peer == ANY || o->peer == ANY || peer == o->peer) &&
		       (tag == ANY || o->tag == ANY || tag == o->tag);

	return overlap && !subset_of(peer, tag, o, self);
}

/* A receive posted at the destination that can take a send of rank self with o's tag. */
static bool takes_from(long long peer, long long tag, const struct op *o, int self)
{
	return (peer == self || peer == ANY) && (tag == o->tag || tag == ANY);
}

/* A receive of exactly o's envelope, from self. */
static bool takes_exactly(long long peer, long long tag, const struct op *o, int self)
{
	return peer == self && tag == o->tag;
}

/* My sends to o's destination with o's tag. */
static bool my_sends(long long peer, long long tag, const struct op *o, int self)
{
	(void)self;
	return peer == o->peer && tag == o->tag;
}

/* The ranks a receive may come from: its source, or every other member of its communicator. */
static int *candidates(struct node *n, const struct op *o, int *count)
{
	int *c = NULL;

	*count = 0;
	if (o->peer != ANY) {
		wf_push_int(&c, count, o->peer);
		return c;
	}

	int nm = 0, *members = wf_parse_ranges(str(wf_comm_of(n->rec, o->comm), "members"), &nm);

	for (int m = 0; m < nm; m++)
		if (members[m] != n->rank)
			wf_push_int(&c, count, members[m]);
	free(members);
	return c;
}

/* Does the rank's record count every point-to-point call it made on communicator comm? (All of
 * them, or that one's: a full table loses the envelopes of one communicator, not the others'.) */
static bool counted_on(struct node *n, const char *comm)
{
	return n->counted || (n->rec && json_object_get(n->rec, "channels") &&
			      json_is_true(json_object_get(wf_comm_of(n->rec, comm), "channels_complete")));
}

/* Is n's count of one envelope (comm, peer, tag) exact? When every call on comm was counted;
 * else when that envelope is in the table: an entry is claimed at the envelope's first call or
 * never (entries are never freed), so one that is there has counted every call. A wildcard
 * sums envelopes that may be missing. */
static bool envelope_exact(struct node *n, const char *comm, long long peer, long long tag)
{
	size_t i;
	json_t *c;

	if (counted_on(n, comm))
		return true;
	if (!n->rec || peer == ANY || tag == ANY)
		return false;
	json_array_foreach(json_object_get(n->rec, "channels"), i, c)
		if (is_text(str(c, "comm"), comm) && num(c, "peer") == peer && num(c, "tag") == tag)
			return true;
	return false;
}

static void judge_recv(struct graph *g, struct node *n, struct op *o, const struct op *ops, int nops)
{
	int nc = 0, *cand = candidates(n, o, &nc);
	/* Blocked needs the senders' counts exact, not its own: a receive it did not count can
	 * only have taken more, which leaves fewer messages still to take. */
	bool known = nc > 0;
	long long needed = 0;

	o->sent = 0;
	for (int k = 0; k < nc; k++) {
		struct node *p = wf_node_of(g, cand[k]);

		if (p && p->rec && envelope_exact(p, o->comm, n->rank, o->tag))
			o->sent += chan_sum(p->rec, o->comm, "sent", sent_to, o, n->rank);
		else if (!p || !p->exited)
			known = false; /* a peer without counters: it may have sent */
	}
	free(cand);
	if (!known && o->peer >= 0)
		n->maybe = o->peer;
	/* This receive and the others of the call it competes with for the same messages. */
	for (int k = 0; k < nops; k++)
		if (!ops[k].send && !ops[k].probe && subset_of(ops[k].peer, ops[k].tag, o, n->rank))
			needed++;
	if (o->probe)
		needed = 1;

	long long left = o->sent - chan_sum(n->rec, o->comm, "done", subset_of, o, n->rank);
	long long stolen = chan_sum(n->rec, o->comm, "done", overlaps_only, o, n->rank);

	if (known && left < needed)
		o->v = BLOCKED;
	else if (counted_on(n, o->comm) && left >= needed && stolen == 0)
		o->v = SATISFIED;
	else
		o->v = UNKNOWN;
}

static void judge_send(struct graph *g, struct node *n, struct op *o)
{
	struct node *d = wf_node_of(g, o->peer);
	bool small = !o->sync && o->bytes >= 0 && o->bytes <= EAGER_SURE;

	if (o->request && small) {
		o->v = SATISFIED; /* it went out at once: completes without its receive */
		return;
	}
	if (!d || !envelope_exact(n, o->comm, o->peer, o->tag) ||
	    (!d->exited && (!d->rec || !counted_on(d, o->comm)))) {
		o->v = UNKNOWN;
		/* A send that may wait for its receive (large, synchronous, or blocking) whose
		 * receiver's counts cannot tell: it may wait on that rank, as an undecided receive
		 * may on its source - never "on nobody the records show". */
		if (d && !d->exited && !small)
			n->maybe = o->peer;
		return;
	}

	long long mine = chan_sum(n->rec, o->comm, "sent", my_sends, o, n->rank);
	long long exact = d->exited ? 0 : chan_sum(d->rec, o->comm, "posted", takes_exactly, o, n->rank);
	long long posted = d->exited ? 0 : chan_sum(d->rec, o->comm, "posted", takes_from, o, n->rank);

	/* Receives of this very envelope take only these messages; a wildcard receive may have
	 * taken one of them or another rank's (HPCC's RandomAccess posts 100,000 of them): they
	 * can tell "blocked" (too few even with them) but not "satisfied". */
	if (exact >= mine)
		o->v = SATISFIED;
	else if (posted < mine)
		o->v = !o->request || o->sync || o->bytes > RENDEZVOUS_SURE ? BLOCKED : UNKNOWN;
	else {
		o->v = UNKNOWN;
		if (!small && !d->exited)
			n->maybe = o->peer;
	}
}

static void op_from(struct op *o, const char *func, json_t *x, bool request)
{
	enum psrec_kind k = mpirecord_kind_of(func);

	int peer = (int)num(x, "peer");

	*o = (struct op){
		.func = func,
		.comm = str(x, "comm"),
		.at = str(x, "at"),
		.peer = peer,
		.tag = num(x, "tag"),
		.bytes = num(x, "bytes"),
		.send = k == PSREC_KIND_SEND || k == PSREC_KIND_ISEND || k == PSREC_KIND_INIT_SEND,
		.probe = is_text(func, "MPI_Probe"),
		.sync = is_text(func, "MPI_Ssend") || is_text(func, "MPI_Issend") || is_text(func, "MPI_Ssend_init"),
		.request = request,
		/* MPI_PROC_NULL (or a peer no rank has): nothing to wait for. */
		.v = op_to_nobody(peer) ? SATISFIED : UNKNOWN,
		.sent = 0,
	};
}

/* The operations n's call waits for; false when some cannot be known (unrecorded requests, a
 * nonblocking collective's or file request). */
static bool call_ops(struct node *n, struct op *ops, int *nops)
{
	json_t *c = n->call, *slot;
	const char *f = str(c, "func");
	enum psrec_kind k = mpirecord_kind_of(f);
	bool complete = true;
	size_t i;

	*nops = 0;
	if (k == PSREC_KIND_SEND || k == PSREC_KIND_RECV || k == PSREC_KIND_SENDRECV || k == PSREC_KIND_PROBE) {
		op_from(&ops[(*nops)++], f, c, false);
		return true;
	}
	if (k != PSREC_KIND_WAIT && k != PSREC_KIND_WAITALL && k != PSREC_KIND_WAITANY && k != PSREC_KIND_WAITSOME)
		return true;
	complete = num(c, "nreqs") <= (long long)json_array_size(json_object_get(c, "reqs"));
	json_array_foreach(json_object_get(c, "reqs"), i, slot) {
		json_t *r = json_integer_value(slot) >= 0 ? wf_find(json_object_get(n->rec, "requests"), "slot", json_integer_value(slot)) : NULL;
		enum psrec_kind rk = r ? mpirecord_kind_of(str(r, "func")) : PSREC_KIND_NONE;

		if (json_integer_value(slot) == PSREC_REQ_NULL)
			continue; /* MPI_REQUEST_NULL: nothing to wait for */
		if (json_integer_value(slot) < 0) {
			complete = false; /* PSREC_REQ_UNRECORDED: a request the layer did not record */
			continue;
		}
		if (!r || rk == PSREC_KIND_IMRECV)
			continue; /* completed already, or a matched receive: its data is coming */
		if (rk != PSREC_KIND_ISEND && rk != PSREC_KIND_IRECV && rk != PSREC_KIND_INIT_SEND &&
		    rk != PSREC_KIND_INIT_RECV) {
			complete = false; /* a nonblocking collective or file operation */
			continue;
		}
		if (*nops < OPS_MAX)
			op_from(&ops[(*nops)++], str(r, "func"), r, true);
		else
			complete = false;
	}
	return complete;
}

static void describe(const struct op *o, const struct node *n, char *buf, size_t len)
{
	char peer[40];
	const char *wait = str(n->call, "func");
	const char *via = o->request && wait ? wait : NULL;

	if (o->peer == ANY)
		snprintf(peer, sizeof(peer), "any source");
	else
		snprintf(peer, sizeof(peer), "rank %d", o->peer);
	char tag[32];

	wf_tag(o->tag, tag, sizeof(tag));
	if (via)
		snprintf(buf, len, "%s for its %s %s %s (%s) posted at %s", via, o->func, o->send ? "to" : "from",
			 peer, tag, o->at ? o->at : "?");
	else
		snprintf(buf, len, "%s %s %s (%s)", o->func, o->send ? "to" : "from", peer, tag);
}

/* How many messages n ever sent on the envelope of its send o (this one included). */
static long long sends_ever(struct node *n, const struct op *o)
{
	return chan_sum(n->rec, o->comm, "sent", my_sends, o, n->rank);
}

/* Is o on a new envelope: a receive no candidate ever sent on, a send of its envelope's first
 * message? */
static bool op_is_new(struct node *n, const struct op *o)
{
	return o->send ? sends_ever(n, o) == 1 : o->sent == 0;
}

/* Edges of n's blocked operations: each one's candidates. */
static void add_edges(struct graph *g, struct node *n, const struct op *ops, int nops)
{
	for (int k = 0; k < nops; k++) {
		if (ops[k].v != BLOCKED)
			continue;
		if (ops[k].send) {
			/* Its envelope: new (this message is the first on it) or one it sent on before. */
			long long ever = sends_ever(n, &ops[k]);

			wf_wait_add(n, ops[k].peer);
			n->send_new |= ever == 1;
			n->send_old |= ever > 1;
			continue;
		}

		int nc = 0, *cand = candidates(n, &ops[k], &nc);

		for (int c = 0; c < nc; c++)
			if (wf_node_of(g, cand[c]))
				wf_wait_add(n, cand[c]);
		free(cand);
		n->or_wait |= ops[k].peer == ANY;
		n->fresh |= ops[k].sent == 0;
		n->owed |= ops[k].sent > 0;
	}
}

static void match_node(struct graph *g, struct node *n)
{
	struct op ops[OPS_MAX];
	int nops = 0, nblocked = 0, nsatisfied = 0, nunknown = 0;
	bool any_of;

	if (!n->call || wf_gone(n))
		return;
	if (!call_ops(n, ops, &nops))
		n->unsure = true;
	for (int k = 0; k < nops; k++) {
		/* One to nobody is satisfied already (op_from); the others are judged. */
		if (!op_to_nobody(ops[k].peer)) {
			if (ops[k].send)
				judge_send(g, n, &ops[k]);
			else
				judge_recv(g, n, &ops[k], ops, nops);
		}
		nblocked += ops[k].v == BLOCKED;
		nsatisfied += ops[k].v == SATISFIED;
		nunknown += ops[k].v == UNKNOWN;
	}
	if (nops == 0)
		return;
	any_of = mpirecord_kind_of(str(n->call, "func")) == PSREC_KIND_WAITANY ||
		 mpirecord_kind_of(str(n->call, "func")) == PSREC_KIND_WAITSOME;
	if (any_of ? (nblocked == nops && !n->unsure) : nblocked > 0) {
		n->match = MATCH_BLOCKED;
		n->or_wait = any_of && nblocked > 1;
		add_edges(g, n, ops, nops);
		/* The operation said: one on a new envelope if there is one (the anomaly), else the
		 * first blocked. */
		int said = -1;

		for (int k = 0; k < nops; k++)
			if (ops[k].v == BLOCKED && (said < 0 || (op_is_new(n, &ops[k]) && !op_is_new(n, &ops[said]))))
				said = k;
		if (said >= 0)
			describe(&ops[said], n, n->blocked_on, sizeof(n->blocked_on));
	} else if (any_of ? nsatisfied > 0 : nunknown == 0 && !n->unsure) {
		n->match = MATCH_SATISFIED;
	}
	n->unsure |= nunknown > 0;
}

void wf_match(struct graph *g)
{
	for (int i = 0; i < g->count; i++) {
		struct node *n = &g->n[i];

		n->match = MATCH_OPEN;
		n->maybe = NO_PEER;
		n->counted = n->rec && json_is_true(json_object_get(n->rec, "channels_complete")) &&
			     json_object_get(n->rec, "channels");
	}
	for (int i = 0; i < g->count; i++) {
		match_node(g, &g->n[i]);
		g->n[i].np2p = g->n[i].nwaits;
	}
}
