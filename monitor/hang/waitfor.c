/* SPDX-License-Identifier: BSD-3-Clause */
/* waitfor — the wait-for analysis over the ranks' records (see waitfor.h). */
#include "waitfor.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sample/record/mpirecord.h"
#include "../../base/ranges.h"
#include "waitfor_graph.h"


static void graph_build(struct graph *g, json_t *snap)
{
	size_t i;
	json_t *r;

	g->count = 0;
	g->n = calloc(json_array_size(snap) + 1, sizeof(*g->n));
	if (!g->n)
		return;
	json_array_foreach(snap, i, r) {
		struct node *n = &g->n[g->count++];
		size_t k;
		json_t *c;

		n->rank = (int)num(r, "rank");
		n->hub = -1;
		n->obj = r;
		n->rec = json_object_get(r, "record");
		n->exited = is_text(str(r, "state"), "EXITED");
		json_array_foreach(json_object_get(n->rec, "calls"), k, c)
			if (!n->call || json_is_true(json_object_get(c, "main")))
				n->call = c;
		n->finalizing = (n->call && is_text(str(n->call, "func"), "MPI_Finalize")) ||
				json_is_true(json_object_get(n->rec, "finalized"));
	}
}

/* One side of a collective: the ranks that called it the same way. */
struct side {
	const char *func, *at;
	long long root, bytes;
	int *ranks, n;
};

static void side_add(struct side **sides, int *nsides, json_t *e, int rank)
{
	for (int s = 0; s < *nsides; s++) {
		struct side *x = &(*sides)[s];

		if (is_text(x->func, str(e, "func")) && x->root == num(e, "root") && x->bytes == num(e, "bytes")) {
			wf_push_int(&x->ranks, &x->n, rank);
			return;
		}
	}

	struct side *p = realloc(*sides, (size_t)(*nsides + 1) * sizeof(**sides));

	if (!p)
		return;
	*sides = p;
	p[*nsides] = (struct side){ str(e, "func"), str(e, "at"), num(e, "root"), num(e, "bytes"), NULL, 0 };
	wf_push_int(&p[*nsides].ranks, &p[*nsides].n, rank);
	(*nsides)++;
}

static void side_text(const struct side *s, char *buf, size_t len)
{
	char *r = wf_ranges_of(s->ranks, s->n);
	char root[32] = "";

	char size[40] = "sizes by rank";

	if (s->root >= 0)
		snprintf(root, sizeof(root), "root %lld, ", s->root);
	if (s->bytes >= 0)
		snprintf(size, sizeof(size), "%lld bytes", s->bytes);
	snprintf(buf, len, "rank%s %s call%s %s (%s%s) at %s", s->n > 1 ? "s" : "", r ? r : "?",
		 s->n > 1 ? "" : "s", s->func ? s->func : "?", root, size, s->at ? s->at : "?");
	free(r);
}

/* Collective number seq on communicator id as each rank called it (its current call or its
 * history): the sides that differ, into mismatches and the diagnosis. */
static void check_collective(struct graph *g, const char *id, long long seq, json_t *mismatches)
{
	struct side *sides = NULL;
	int nsides = 0;
	json_t *comm = NULL;

	for (int i = 0; i < g->count; i++) {
		struct node *n = &g->n[i];
		json_t *c = wf_comm_of(n->rec, id), *e = c ? wf_history_entry(c, seq) : NULL;

		if (c && !comm)
			comm = c;
		if (e)
			side_add(&sides, &nsides, e, n->rank);
	}

	if (nsides > 1) {
		char name[128], text[2048] = "";
		json_t *js = json_array();

		wf_comm_name(comm, id, name, sizeof(name));
		for (int s = 0; s < nsides; s++) {
			char one[512];
			char *r = wf_ranges_of(sides[s].ranks, sides[s].n);

			side_text(&sides[s], one, sizeof(one));
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s", s ? "; " : "", one);
			json_array_append_new(js, json_pack("{s:s, s:s, s:I, s:I, s:s}", "ranks", r ? r : "",
							    "call", sides[s].func ? sides[s].func : "?", "root",
							    (json_int_t)sides[s].root, "bytes",
							    (json_int_t)sides[s].bytes, "at", sides[s].at ? sides[s].at : "?"));
			free(r);
		}
		json_array_append_new(mismatches, json_pack("{s:s, s:I, s:o}", "comm", id, "coll_seq",
							    (json_int_t)seq, "sides", js));
		wf_say(g->diag, "collective mismatch on %s, collective #%lld: %s", name, seq, text);
	}
	for (int s = 0; s < nsides; s++)
		free(sides[s].ranks);
	free(sides);
}

/* The members of hub p that could not be read, as a clause for the diagnosis ("; rank 15 could
 * not be read (…): whether it entered is unknown"), into buf. */
static void unread_clause(struct graph *g, const int *unread, int nunread, char *buf, size_t len)
{
	char why[700];

	buf[0] = '\0';
	if (nunread == 0)
		return;

	char *r = wf_ranges_of(unread, nunread);

	wf_unread_why(wf_node_of(g, unread[0]), why, sizeof(why));
	if (nunread == 1)
		snprintf(buf, len, "; rank %s could not be read %s: whether it entered is unknown", r ? r : "?", why);
	else
		snprintf(buf, len, "; ranks %s could not be read (rank %d: %s): whether they entered is unknown",
			 r ? r : "?", unread[0], why);
	free(r);
}

/* Collective number seq on id, waited in by n: who entered, who has not (and what they do),
 * described once in pending and the diagnosis. A member that could not be read (wf_unread) is
 * neither: nothing proves it has not entered. Where it is all that is left, the culprit is
 * unknown (wf_unknown_add). */
static void pend_describe(struct graph *g, struct node *n, struct hub *p, json_t *pending)
{
	json_t *c = n->call, *comm = wf_comm_of(n->rec, p->id);
	int nm = 0, *members = wf_parse_ranges(str(comm, "members"), &nm), *in = NULL, nin = 0;
	int *unread = NULL, nunread = 0;

	for (int m = 0; m < nm; m++) {
		struct node *o = wf_node_of(g, members[m]);
		json_t *oc = o ? wf_comm_of(o->rec, p->id) : NULL;

		if (o && o->call && is_text(str(o->call, "comm"), p->id) && num(o->call, "coll_seq") == p->seq)
			wf_push_int(&in, &nin, members[m]);
		else if (!o || wf_unread(o))
			wf_push_int(&unread, &nunread, members[m]);
		else if (wf_gone(o) || !oc || num(oc, "coll_seq") < p->seq)
			wf_push_int(&p->out, &p->nout, members[m]);
	}

	char name[128], *rin = wf_ranges_of(in, nin), unread_text[900];
	const char *at = str(c, "at") ? str(c, "at") : "?";

	wf_comm_name(comm, p->id, name, sizeof(name));
	unread_clause(g, unread, nunread, unread_text, sizeof(unread_text));
	if (p->nout > 0) {
		char *rout = wf_ranges_of(p->out, p->nout), detail[4096] = "";

		for (int m = 0; m < p->nout && m < 8; m++) {
			char what[600];

			wf_doing(wf_node_of(g, p->out[m]), what, sizeof(what));
			snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail), "%srank %d %s",
				 m ? "; " : "", p->out[m], what);
		}
		json_array_append_new(pending, json_pack("{s:s, s:I, s:s, s:s, s:s, s:s}", "comm", p->id,
							 "coll_seq", (json_int_t)p->seq, "call", str(c, "func"),
							 "at", at, "entered", rin ? rin : "", "not_entered", rout ? rout : ""));
		wf_say(g->diag, "rank%s %s wait%s in %s #%lld on %s (at %s), which rank%s %s %s not entered: %s%s",
		    nin > 1 ? "s" : "", rin ? rin : "?", nin > 1 ? "" : "s", str(c, "func"), p->seq, name, at,
		    p->nout > 1 ? "s" : "", rout ? rout : "?", p->nout > 1 ? "have" : "has", detail, unread_text);
		free(rout);
	} else if (nunread > 0) {
		char what[600];

		snprintf(what, sizeof(what), "in %s #%lld on %s (at %s) for", str(c, "func"), p->seq, name, at);
		for (int m = 0; m < nunread; m++)
			wf_unknown_add(g, unread[m], nunread, rin ? rin : "?", what);
	}
	free(rin);
	free(unread);
	free(in);
	free(members);
}

/* Pending collectives: for each (communicator, number) some rank waits in, the members that
 * have not entered it (a hub). They are waited for (late); the waiting ranks point at the hub. */
static void collective_edges(struct graph *g, json_t *pending)
{
	for (int i = 0; i < g->count; i++) {
		struct node *n = &g->n[i];
		json_t *c = n->call;
		int k;

		if (!wf_is_collective_call(c) || n->finalizing)
			continue;
		/* The last hub first: the ranks of one collective come together. */
		for (k = g->nhubs - 1; k >= 0; k--)
			if (is_text(g->hubs[k].id, str(c, "comm")) && g->hubs[k].seq == num(c, "coll_seq"))
				break;
		if (k < 0) {
			struct hub *q = realloc(g->hubs, (size_t)(g->nhubs + 1) * sizeof(*q));

			if (!q)
				break;
			g->hubs = q;
			k = g->nhubs++;
			g->hubs[k] = (struct hub){ str(c, "comm"), num(c, "coll_seq"), NULL, 0, -1, NULL };
			pend_describe(g, n, &g->hubs[k], pending);
			for (int m = 0; m < g->hubs[k].nout; m++) {
				struct node *o = wf_node_of(g, g->hubs[k].out[m]);

				if (o)
					o->late = true;
			}
		}
		if (g->hubs[k].nout > 0)
			n->hub = k;
	}
}

/* Was the request started as part of the point-to-point exchange the rank waits in now: by
 * the thread of its call, since that thread's previous blocking call (mpi4py's sendrecv is an
 * Isend and a receive; a halo, Isends and then a receive)? Then it is not "started and left".
 * (One left before a collective or a later exchange still is.) */
static bool in_this_step(struct node *n, json_t *req)
{
	json_t *c = n->call;

	return c && wf_is_p2p_wait(str(c, "func")) && num(req, "tid") == num(c, "tid") &&
	       num(c, "step") > 0 && num(req, "step") == num(c, "step") - 1;
}

/* Requests started and never waited for; blocked receives from a given rank on an envelope
 * that rank never sent on (what it did send this rank, if anything, is said). */
static void check_p2p(struct graph *g, json_t *unmatched, json_t *stale)
{
	for (int i = 0; i < g->count; i++) {
		struct node *n = &g->n[i];
		json_t *c = n->call, *req;
		size_t k;

		/* Active requests the rank is not waiting for now: started and left. */
		json_array_foreach(json_object_get(n->rec, "requests"), k, req) {
			bool waited = false;
			size_t q;
			json_t *slot;

			json_array_foreach(json_object_get(c, "reqs"), q, slot)
				waited |= json_integer_value(slot) == num(req, "slot");
			if (waited || json_is_true(json_object_get(req, "persistent")) || in_this_step(n, req))
				continue;
			json_array_append_new(stale, json_pack("{s:i, s:s, s:I, s:I, s:s}", "rank", n->rank, "call",
							       str(req, "func"), "peer", (json_int_t)num(req, "peer"),
							       "tag", (json_int_t)num(req, "tag"), "at",
							       str(req, "at") ? str(req, "at") : "?"));
			wf_say(g->diag, "rank %d started %s %s rank %lld (tag %lld) at %s and has not completed it "
			    "(no MPI_Wait or MPI_Test reached it)", n->rank, str(req, "func"),
			    wf_is_send(str(req, "func")) ? "to" : "from", num(req, "peer"),
			    num(req, "tag"), str(req, "at") ? str(req, "at") : "?");
		}
		if (!c || n->match != MATCH_BLOCKED || !n->fresh || n->or_wait || n->in_cycle || n->np2p != 1 ||
		    mpirecord_kind_of(str(c, "func")) != PSREC_KIND_RECV)
			continue;

		struct node *s = wf_node_of(g, n->waits[0]);
		char offer[700] = "", what[600];

		if (!s || !s->rec)
			continue;
		json_array_foreach(json_object_get(s->rec, "requests"), k, req)
			if (wf_is_send(str(req, "func")) && num(req, "peer") == n->rank)
				snprintf(offer, sizeof(offer), "; its %s to rank %d has tag %lld (at %s)",
					 str(req, "func"), n->rank, num(req, "tag"), str(req, "at") ? str(req, "at") : "?");
		wf_doing(s, what, sizeof(what));
		json_array_append_new(unmatched, json_pack("{s:i, s:I, s:I, s:s}", "rank", n->rank, "from",
							   (json_int_t)s->rank, "tag", (json_int_t)num(c, "tag"),
							   "at", str(c, "at") ? str(c, "at") : "?"));
		wf_say(g->diag, "rank %d waits in MPI_Recv from rank %d with tag %lld at %s, and rank %d has never sent "
		    "it a message with that tag: rank %d %s%s", n->rank, s->rank, num(c, "tag"),
		    str(c, "at") ? str(c, "at") : "?", s->rank, s->rank, what, offer);
	}
}

#define WAITS_LISTED 64 /* a collective's late ranks a waiter lists one by one; past it, as ranges */

/* A hub's late ranks as ranges, made once ("" when out of memory). */
static const char *late_ranges(struct graph *g, int h)
{
	struct hub *p = &g->hubs[h];

	if (!p->late_text)
		p->late_text = wf_ranges_of(p->out, p->nout);
	return p->late_text ? p->late_text : "";
}

static json_t *waits_json(struct graph *g, const bool *listed, json_t *culprits, long *omitted)
{
	bool *named = NULL;

	*omitted = 0;

	/* A listing: the culprits' waits and the listed ranks' (ranks are below count + the highest
	 * named). */
	if (listed && (named = calloc((size_t)g->count + 1, sizeof(bool)))) {
		size_t i;
		json_t *c;

		json_array_foreach(culprits, i, c) {
			struct node *x = wf_node_of(g, (int)num(c, "rank"));

			if (x)
				named[x - g->n] = true;
		}
	}
	json_t *waits = json_array();

	for (int i = 0; i < g->count; i++) {
		struct node *n = &g->n[i];
		char what[600];

		if (!n->call && !n->finalizing)
			continue;
		if (named && !named[i] && !listed[i]) {
			(*omitted)++;
			continue;
		}
		wf_doing(n, what, sizeof(what));

		json_t *to = json_array();

		/* Proven waits only: an unproven one served the cause, not this list. */
		for (int w = 0; w < n->nwaits && !n->maybe_edge; w++)
			json_array_append_new(to, n->waits[w] == ANY ? json_string("any") : json_integer(n->waits[w]));
		/* The collective's late members, one by one when few; else as ranges, once per rank. */
		if (n->hub >= 0 && g->hubs[n->hub].nout <= WAITS_LISTED)
			for (int w = 0; w < g->hubs[n->hub].nout; w++)
				json_array_append_new(to, json_integer(g->hubs[n->hub].out[w]));
		json_t *w = json_pack("{s:i, s:s, s:o, s:s}", "rank", n->rank, "call",
				      n->finalizing ? "MPI_Finalize" : str(n->call, "func"), "waits_for", to, "what", what);

		if (n->hub >= 0 && g->hubs[n->hub].nout > WAITS_LISTED)
			json_object_set_new(w, "waits_for_late", json_string(late_ranges(g, n->hub)));
		json_array_append_new(waits, w);
	}
	free(named);
	return waits;
}

/* Every collective number that the ranks' histories or current calls share, per communicator:
 * the mismatched ones. */
static void check_histories(struct graph *g, json_t *mismatches)
{
	json_t *done = json_object();

	for (int i = 0; i < g->count; i++) {
		size_t k, h;
		json_t *comm, *e;

		json_array_foreach(json_object_get(g->n[i].rec, "comms"), k, comm)
			json_array_foreach(json_object_get(comm, "history"), h, e) {
				char key[64];

				snprintf(key, sizeof(key), "%s#%lld", str(comm, "id"), num(e, "coll_seq"));
				if (json_object_get(done, key))
					continue;
				json_object_set_new(done, key, json_true());
				check_collective(g, str(comm, "id"), num(e, "coll_seq"), mismatches);
			}
	}
	json_decref(done);
}

static int side_size(json_t *side)
{
	int n = 0, *r = wf_parse_ranges(str(side, "ranks"), &n);

	free(r);
	return n;
}

/* A culprit for each rank of a mismatched collective's odd sides: certain where the largest side
 * is larger than every other, likely where two sides are as large (either may be wrong). */
static void mismatch_culprits(json_t *mismatches, json_t *culprits)
{
	size_t i, k;
	json_t *m, *side;

	json_array_foreach(mismatches, i, m) {
		json_t *sides = json_object_get(m, "sides"), *big = NULL;
		int largest = 0, ties = 0;

		json_array_foreach(sides, k, side) {
			int n = side_size(side);

			ties = n == largest ? ties + 1 : n > largest ? 1 : ties;
			if (n > largest) {
				largest = n;
				big = side;
			}
		}
		json_array_foreach(sides, k, side) {
			int n = 0, *r = wf_parse_ranges(str(side, "ranks"), &n);

			for (int j = 0; (side != big || ties > 1) && j < n; j++)
				wf_culprit(culprits, r[j], ties > 1 ? "likely" : "certain",
					   "at collective #%lld it calls %s (at %s) where rank%s %s call%s %s (at %s)",
					   num(m, "coll_seq"), str(side, "call"), str(side, "at"),
					   side_size(big) > 1 ? "s" : "", str(big, "ranks"), side_size(big) > 1 ? "" : "s",
					   str(big, "call"), str(big, "at"));
			free(r);
		}
	}
}

/* The culprits' ranks in ascending order (wf_culprit names each once), as JSON; as ranges
 * in *ranges (malloc'd). */
static json_t *culprit_ranks(json_t *culprits, char **ranges)
{
	int *v = calloc(json_array_size(culprits) + 1, sizeof(int)), n = 0;
	json_t *a = json_array(), *c;
	size_t i;

	json_array_foreach(culprits, i, c)
		if (v)
			v[n++] = (int)num(c, "rank");
	if (v)
		qsort(v, (size_t)n, sizeof(int), wf_compare_int);
	for (int k = 0; k < n; k++)
		json_array_append_new(a, json_integer(v[k]));
	*ranges = v ? wf_ranges_of(v, n) : NULL;
	free(v);
	return a;
}

json_t *waitfor_analyze(json_t *snap)
{
	return waitfor_analyze_listing(snap, NULL);
}

/* Whether each node's rank is in listed (JSON integers), or NULL for all. */
static bool *listed_nodes(struct graph *g, json_t *listed)
{
	bool *on = listed ? calloc((size_t)g->count + 1, sizeof(bool)) : NULL;
	size_t i;
	json_t *v;

	json_array_foreach(listed, i, v) {
		struct node *x = on ? wf_node_of(g, (int)json_integer_value(v)) : NULL;

		if (x)
			on[x - g->n] = true;
	}
	return on;
}

json_t *waitfor_analyze_listing(json_t *snap, json_t *listed)
{
	struct graph g = { 0 };
	bool any = false;
	size_t i;
	json_t *r;

	json_array_foreach(snap, i, r)
		any |= json_object_get(r, "record") != NULL;
	if (!any)
		return NULL;
	g.diag = json_array();
	graph_build(&g, snap);

	json_t *mismatches = json_array(), *pending = json_array(), *cycles = json_array();
	json_t *unmatched = json_array(), *stale = json_array(), *culprits = json_array();
	check_histories(&g, mismatches);
	wf_match(&g);
	collective_edges(&g, pending);

	const char *why = NULL;

	if (json_array_size(mismatches)) {
		mismatch_culprits(mismatches, culprits);
		wf_culprits_unique(culprits);
		why = "their collective call does not match the other ranks'";
		g.proof = "a collective call that does not match the other ranks'";
	} else {
		why = wf_causes(&g, cycles, culprits);
	}
	check_p2p(&g, unmatched, stale);

	char *rr = NULL;
	bool *on = listed_nodes(&g, listed);
	long omitted;
	json_t *waits = waits_json(&g, on, culprits, &omitted), *faulty = culprit_ranks(culprits, &rr);

	free(on);

	if (why)
		wf_say(g.diag, "faulty rank(s) %s: %s (from the recording layer)", rr ? rr : "?", why);
	free(rr);

	json_t *out = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s?, s:o}", "waits", waits,
				"cycles", cycles, "collectives", pending, "mismatches", mismatches,
				"unmatched", unmatched, "requests", stale, "faulty_ranks", faulty, "culprits",
				culprits, "why", why, "diagnosis", g.diag);

	if (listed)
		json_object_set_new(out, "waits_omitted", json_integer(omitted));
	if (g.unknown)
		json_object_set_new(out, "unknown", g.unknown);
	if (g.proof)
		json_object_set_new(out, "proof", json_string(g.proof));

	for (int k = 0; k < g.count; k++)
		free(g.n[k].waits);
	for (int k = 0; k < g.nhubs; k++) {
		free(g.hubs[k].late_text);
		free(g.hubs[k].out);
	}
	free(g.hubs);
	free(g.n);
	return out;
}
