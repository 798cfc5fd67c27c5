/* SPDX-License-Identifier: BSD-3-Clause */
/* waitfor_cause — from the wait-for graph to the culprits. The graph's edges are proven waits
 * only (waitfor_match.c for point to point, the collective numbers for collectives), so the
 * ranks every waiting rank ends up waiting on are the sink components of the graph: a rank
 * that waits on nobody (it left, or is held in MPI where no record explains it), or a set of
 * ranks that wait on each other (a deadlock). A culprit is "certain" when its waiters' records
 * prove the waits and its own state is known; "likely" where the reading needs more than the
 * records: a rank without counters, alternatives (any source, Waitany), or a cycle whose one
 * odd member (a receive its peer never sent on, a rank outside the collective the others wait
 * in) is named instead of the whole cycle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waitfor_graph.h"

#define EDGE_OUTSIDE (-1) /* an edge to nobody in the job (wf_index_of's -1) */
#define EDGES_END (-2)    /* no more edges */

/* The next edge of vertex v (a rank's index below g->count, or count + a hub's index) from
 * *pos on: the vertex it leads to, EDGE_OUTSIDE, or EDGES_END. A rank's edges are its
 * point-to-point waits, then its collective's hub; a hub's, its late ranks. */
static int next_edge(struct graph *g, int v, int *pos)
{
	if (v >= g->count) {
		struct hub *h = &g->hubs[v - g->count];

		return *pos < h->nout ? wf_index_of(g, h->out[(*pos)++]) : EDGES_END;
	}
	struct node *n = &g->n[v];

	if (*pos < n->nwaits)
		return wf_index_of(g, n->waits[(*pos)++]);
	if (*pos == n->nwaits && n->hub >= 0) {
		(*pos)++;
		return g->count + n->hub;
	}
	return EDGES_END;
}

static void set_comp(struct graph *g, int v, int comp)
{
	if (v < g->count)
		g->n[v].comp = comp;
	else
		g->hubs[v - g->count].comp = comp;
}

/* Tarjan's strongly connected components, iteratively (a job has thousands of ranks), over the
 * ranks and the hubs: a hub is a pass-through vertex, so ranks fall in the same components as
 * with an edge from every waiter to every late rank. */
static int components(struct graph *g)
{
	int n = g->count + g->nhubs, idx = 0, ncomp = 0, sp = 0, csp = 0;
	int *index = malloc(sizeof(int) * ((size_t)n + 1)), *low = malloc(sizeof(int) * ((size_t)n + 1));
	int *stack = malloc(sizeof(int) * ((size_t)n + 1)), *calls = malloc(sizeof(int) * ((size_t)n + 1));
	int *next = calloc((size_t)n + 1, sizeof(int));
	bool *on = calloc((size_t)n + 1, sizeof(bool));

	for (int v = 0; index && low && stack && calls && next && on && v < n; v++)
		index[v] = -1;
	for (int s = 0; index && low && stack && calls && next && on && s < n; s++) {
		if (index[s] >= 0)
			continue;
		index[s] = low[s] = idx++;
		stack[sp++] = s;
		on[s] = true;
		calls[csp++] = s;
		while (csp > 0) {
			int v = calls[csp - 1], w = next_edge(g, v, &next[v]);

			if (w == EDGE_OUTSIDE)
				continue;
			if (w >= 0) {
				if (index[w] < 0) {
					index[w] = low[w] = idx++;
					stack[sp++] = w;
					on[w] = true;
					calls[csp++] = w;
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			csp--;
			if (csp > 0 && low[v] < low[calls[csp - 1]])
				low[calls[csp - 1]] = low[v];
			if (low[v] == index[v]) {
				do {
					w = stack[--sp];
					on[w] = false;
					set_comp(g, w, ncomp);
				} while (w != v);
				ncomp++;
			}
		}
	}
	free(on);
	free(next);
	free(calls);
	free(stack);
	free(low);
	free(index);
	return ncomp;
}

/* An alternative wait (any source, Waitany) is not held up by ranks that left while another
 * candidate is still there: only those candidates are waited on. */
static void prune_alternatives(struct graph *g)
{
	for (int i = 0; i < g->count; i++) {
		struct node *n = &g->n[i];
		int live = 0, kept = 0;

		if (!n->or_wait)
			continue;
		for (int w = 0; w < n->np2p; w++) {
			struct node *o = wf_node_of(g, n->waits[w]);

			live += o && !wf_gone(o);
		}
		if (!live || live == n->np2p)
			continue;
		for (int w = 0; w < n->nwaits; w++) {
			struct node *o = w < n->np2p ? wf_node_of(g, n->waits[w]) : NULL;

			if (w < n->np2p && !(o && !wf_gone(o)))
				continue;
			n->waits[kept++] = n->waits[w];
		}
		n->np2p = live;
		n->nwaits = kept;
	}
}

/* "s" where ranges name more than one rank ("1,3", "0-2"), "" for one. */
static const char *plural(const char *ranges)
{
	return strchr(ranges, ',') || strchr(ranges, '-') ? "s" : "";
}

/* One rank every waiting rank ends up waiting on. */
static const char *lone_cause(struct graph *g, struct waiters *wv, struct node *x, json_t *culprits)
{
	bool alternatives, collective;
	char *who = wf_waiters_of(g, wv, x->comp, &alternatives, &collective), what[600];
	bool known = x->exited || (x->rec && !x->unsure && x->match != MATCH_SATISFIED);
	const char *evidence = known && !alternatives ? "certain" : "likely", *why;

	if (!who)
		return NULL;
	/* Waited for (an unproven wait leads to it) but not read: no record is no evidence. */
	if (wf_unread(x)) {
		wf_unknown_add(g, x->rank, 1, who, "for");
		free(who);
		return NULL;
	}
	wf_doing(x, what, sizeof(what));
	if (wf_gone(x)) {
		wf_culprit(culprits, x->rank, evidence, "rank %d %s while rank%s %s wait%s for it", x->rank,
			   x->exited ? "exited" : "called MPI_Finalize", plural(who), who, *plural(who) ? "" : "s");
		why = "they left (MPI_Finalize, or exited) while the other ranks wait for them";
	} else if (collective && x->late) {
		wf_culprit(culprits, x->rank, evidence, "rank%s %s wait%s in a collective rank %d has not entered; rank %d %s",
			   plural(who), who, *plural(who) ? "" : "s", x->rank, x->rank, what);
		why = "the other ranks wait in a collective they have not entered";
	} else {
		wf_culprit(culprits, x->rank, evidence, "rank%s %s wait%s for rank %d%s, and rank %d waits on nobody the "
			   "records show: it %s", plural(who), who, *plural(who) ? "" : "s", x->rank,
			   collective ? "" : " (messages it has not sent, or receives it has not posted)", x->rank, what);
		why = "the other ranks wait for them, and they wait on nobody the records show";
	}
	free(who);
	return why;
}

/* Messages rank w's counters show between it and rank m: received from m (field "done" on
 * channels from m; -1 when w took messages from any source too, which may have been m's), or
 * sent to m ("sent"). */
static long long traffic(struct node *w, int m, const char *field)
{
	long long sum = 0;
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(w->rec, "channels"), i, c) {
		if (!strcmp(field, "done") && num(c, "peer") == ANY && num(c, "done") > 0)
			return -1;
		if (num(c, "peer") == m)
			sum += num(c, field);
	}
	return sum;
}

/* In a cycle through an alternative wait (any source) of rank m: the one other member that
 * received more messages from m than it sent back owes m the message m waits for (a worker
 * that took a task and never answered); -1 when not exactly one does. */
static int owing_member(struct graph *g, int c, int *waiter)
{
	int found = -1;

	for (int i = 0; i < g->count; i++) {
		struct node *m = &g->n[i];

		if (m->comp != c || !m->or_wait)
			continue;
		for (int k = 0; k < g->count; k++) {
			struct node *w = &g->n[k];
			long long got = w->comp == c && w != m && w->counted ? traffic(w, m->rank, "done") : -1;

			if (got < 0 || got <= traffic(w, m->rank, "sent"))
				continue;
			if (found >= 0 && found != k)
				return -1;
			found = k;
			*waiter = i;
		}
	}
	return found;
}

/* A cycle through component c along point-to-point waits, from its lowest rank: its ranks in
 * order into cyc; false when no such cycle (some edge in c is a collective's). Each node's place
 * on the walk is remembered, so a cycle of L ranks is found in L steps. */
static bool cycle_walk(struct graph *g, int c, int *cyc, int *len)
{
	int start = -1, cur, *at = calloc((size_t)g->count + 1, sizeof(int)); /* place + 1, 0: not yet */
	bool found = false;

	*len = 0;
	for (int i = 0; i < g->count; i++)
		if (g->n[i].comp == c && (start < 0 || g->n[i].rank < g->n[start].rank))
			start = i;
	cur = at ? start : -1;
	while (cur >= 0 && *len <= g->count) {
		if (at[cur]) {
			int k = at[cur] - 1;

			memmove(cyc, cyc + k, sizeof(int) * (size_t)(*len - k));
			*len -= k;
			found = true;
			break;
		}
		cyc[(*len)++] = cur;
		at[cur] = *len;

		int next = -1;

		for (int w = 0; w < g->n[cur].np2p && next < 0; w++) {
			int o = wf_index_of(g, g->n[cur].waits[w]);

			if (o >= 0 && g->n[o].comp == c)
				next = o;
		}
		cur = next;
	}
	free(at);
	return found;
}

#define CYCLE_SHOWN 12  /* members a cycle's chain names in full; past it, its ends */
#define CYCLE_SITES 6   /* members whose wait is said one by one when they differ */

/* The cycle's chain as text: every member up to CYCLE_SHOWN, else its first four and last two
 * ("0 → 1 → 2 → 3 → … → 498 → 499 → 0"); the sentences around it say how many. */
static void cycle_chain(struct graph *g, const int *cyc, int len, char *text, size_t tlen)
{
	size_t used = 0;

	text[0] = '\0';
	for (int k = 0; k < len && used < tlen; k++) {
		if (len > CYCLE_SHOWN && k == 4) {
			used += (size_t)snprintf(text + used, tlen - used, "… → ");
			k = len - 3;
			continue;
		}
		used += (size_t)snprintf(text + used, tlen - used, "%d → ", g->n[cyc[k]].rank);
	}
	if (used < tlen)
		used += (size_t)snprintf(text + used, tlen - used, "%d", g->n[cyc[0]].rank);
}

/* What member k does, with its next member's number said as "the next rank": the same text for
 * every member of a ring whose ranks all wait alike. */
static void cycle_doing_relative(struct graph *g, const int *cyc, int len, int k, char *buf, size_t blen)
{
	char what[600], next[32], *at;

	wf_doing(&g->n[cyc[k]], what, sizeof(what));
	snprintf(next, sizeof(next), "rank %d ", g->n[cyc[(k + 1) % len]].rank);
	at = strstr(what, next);
	if (at)
		snprintf(buf, blen, "%.*sthe next rank %s", (int)(at - what), what, at + strlen(next));
	else
		snprintf(buf, blen, "%s", what);
}

/* What the members wait in: once for them all when they wait alike ("each waits in MPI_Recv
 * from the next rank (tag 7) at ring.c:58"), else member by member, at most CYCLE_SITES. */
static void cycle_sites(struct graph *g, const int *cyc, int len, char *sites, size_t slen)
{
	char first[600], other[600];
	bool alike = true;
	size_t used = 0;

	cycle_doing_relative(g, cyc, len, 0, first, sizeof(first));
	for (int k = 1; k < len && alike; k++) {
		cycle_doing_relative(g, cyc, len, k, other, sizeof(other));
		alike = !strcmp(first, other);
	}
	if (alike && len > 2) {
		snprintf(sites, slen, "each %s", first);
		return;
	}
	sites[0] = '\0';
	for (int k = 0; k < len && k < CYCLE_SITES && used < slen; k++) {
		wf_doing(&g->n[cyc[k]], other, sizeof(other));
		used += (size_t)snprintf(sites + used, slen - used, "%srank %d %s", k ? "; " : "", g->n[cyc[k]].rank, other);
	}
	if (len > CYCLE_SITES && used < slen)
		snprintf(sites + used, slen - used, "; … and %d more", len - CYCLE_SITES);
}

/* Is n the odd one of a cycle: it waits on a new envelope (a receive its peer never sent on,
 * a send of the first message on its envelope: a tag the peer does not take), where the others
 * wait on envelopes used before? A rank in a Waitall may wait on both: the new one is its
 * anomaly, the old ones wait for ranks the cycle holds up. */
static bool new_envelope(const struct node *n)
{
	return n->fresh || n->send_new;
}

static bool old_envelope(const struct node *n)
{
	/* An unproven wait may be on an old envelope, too. */
	return !new_envelope(n) && (n->owed || n->send_old || n->maybe_edge);
}

/* A deadlock among point-to-point waits: said as a cycle; its one odd member (new_envelope) is
 * named alone, else every member. */
static const char *cycle_cause(struct graph *g, int c, int size, json_t *cycles, json_t *culprits)
{
	int *cyc = malloc(sizeof(int) * ((size_t)g->count + 1)), len = 0, fresh = -1, nfresh = 0, nowed = 0;
	bool alternatives = false, unproven = false;
	char text[4096] = "", sites[4096] = "";

	if (!cyc || !cycle_walk(g, c, cyc, &len)) {
		free(cyc);
		return NULL;
	}

	json_t *js = json_array();

	for (int k = 0; k < len; k++) {
		json_array_append_new(js, json_integer(g->n[cyc[k]].rank));
		g->n[cyc[k]].in_cycle = true;
	}
	cycle_chain(g, cyc, len, text, sizeof(text));
	cycle_sites(g, cyc, len, sites, sizeof(sites));
	for (int i = 0; i < g->count; i++) {
		if (g->n[i].comp != c)
			continue;
		alternatives |= g->n[i].or_wait;
		unproven |= g->n[i].maybe_edge;
		nfresh += new_envelope(&g->n[i]);
		nowed += old_envelope(&g->n[i]);
		if (new_envelope(&g->n[i]))
			fresh = i;
	}
	if (unproven) {
		json_decref(js);
		wf_say(g->diag, "possible deadlock (a wait unproven: counters incomplete, or wildcard receives "
		       "that may have taken the message): ranks %s, each waiting for the next: %s", text, sites);
	} else {
		json_array_append_new(cycles, js);
		wf_say(g->diag, "deadlock: ranks %s%s, each waiting for the next: %s", text, len > CYCLE_SHOWN ?
		       " (the whole cycle is in the JSON report's wait_for.cycles)" : "", sites);
	}
	if (nfresh == 1 && nowed > 0 && g->n[fresh].fresh) {
		struct node *f = &g->n[fresh];

		wf_culprit(culprits, f->rank, "likely", "rank %d waits in %s, which its peer never sent it, while the "
			   "others in the cycle wait for messages their peers sent them before: its receive is the odd one",
			   f->rank, f->blocked_on);
		free(cyc);
		return "its receive waits for a message its peer never sent, and the others wait for it";
	}
	if (nfresh == 1 && nowed > 0) {
		struct node *f = &g->n[fresh];

		wf_culprit(culprits, f->rank, "likely", "rank %d waits in %s, the first message it ever sent with that "
			   "envelope, and its peer has posted no receive for it, while the others in the cycle wait on "
			   "envelopes used before: its send is the odd one", f->rank, f->blocked_on);
		free(cyc);
		return "its send uses an envelope its peer never receives on, and the others wait for it";
	}
	int waiter = -1, owing = alternatives ? owing_member(g, c, &waiter) : -1;

	if (owing >= 0) {
		struct node *w = &g->n[owing], *m = &g->n[waiter];

		wf_culprit(culprits, w->rank, "likely", "rank %d waits for a message from any rank, and rank %d received "
			   "%lld message(s) from it but sent %lld back: the missing answer is rank %d's", m->rank, w->rank,
			   traffic(w, m->rank, "done"), traffic(w, m->rank, "sent"), w->rank);
		free(cyc);
		return "the rank waiting for any source waits for their answer, which they never sent";
	}
	for (int i = 0; i < g->count; i++)
		if (g->n[i].comp == c)
			wf_culprit(culprits, g->n[i].rank, alternatives || unproven ? "likely" : "certain",
				   "ranks %s wait for each other (%d ranks in a cycle): none can go on", text, size);
	free(cyc);
	return "they wait for each other in a cycle (deadlock)";
}

/* Has late rank l gone past the collective? Then a rank inside it has messages from l not yet
 * received (l posted its sends of the next step); a rank that waits for a send skipped by
 * its peer has had all its own sends received. Unknown counts (p's) count as ahead. */
static bool is_ahead(struct graph *g, struct node *l, struct node *p)
{
	size_t i;
	json_t *c;

	if (!p->counted || traffic(p, l->rank, "done") < 0)
		return true;
	/* Only a rank l sent to can hold messages from it: l's channels name them (not a pass over
	 * the job per late rank). */
	json_array_foreach(json_object_get(l->rec, "channels"), i, c) {
		struct node *m = num(c, "sent") > 0 && num(c, "peer") != ANY ? wf_node_of(g, (int)num(c, "peer")) : NULL;
		long long got = m && m != l && !m->late && m->counted && !m->exited ? traffic(m, l->rank, "done") : -1;

		if (got >= 0 && traffic(l, m->rank, "sent") > got)
			return true;
	}
	return false;
}

static bool waits_on_late(struct graph *g, const struct node *l)
{
	for (int w = 0; w < l->np2p; w++) {
		struct node *o = wf_node_of(g, l->waits[w]);

		if (o && o != l && o->late && o->comp == l->comp)
			return true;
	}
	return false;
}

/* A cycle through a collective: ranks that have not entered it wait, point to point, on ranks
 * inside it. The one not in the collective is the odd one out (it skipped the collective and
 * went on: its peer has messages from it not yet received), unless it waits for a message its
 * peer sent it before, one short, without being ahead of that peer: then the peer skipped a
 * send and went on into the collective. */
static const char *mixed_cause(struct graph *g, int c, json_t *culprits)
{
	const char *why = NULL;
	int odd = 0;

	/* A late rank that waits, point to point, on another late rank is held up by it. */
	for (int i = 0; i < g->count; i++)
		odd += g->n[i].comp == c && g->n[i].late && !waits_on_late(g, &g->n[i]);
	for (int i = 0; i < g->count; i++) {
		struct node *l = &g->n[i], *p = NULL;
		char what[600];

		if (l->comp != c || !l->late || (odd && waits_on_late(g, l)))
			continue;
		for (int w = 0; w < l->np2p && !p; w++) {
			struct node *o = wf_node_of(g, l->waits[w]);

			if (o && o->comp == c && !o->late)
				p = o;
		}
		bool ahead = p && is_ahead(g, l, p);

		if (p && l->owed && !l->or_wait && !ahead) {
			wf_doing(p, what, sizeof(what));
			wf_culprit(culprits, p->rank, "likely", "rank %d waits in %s, one more than rank %d has sent it, "
				   "and rank %d went on: it %s (a send skipped?)", l->rank, l->blocked_on, p->rank, p->rank, what);
			why = "a rank waits for a message they did not send before going on";
		} else {
			wf_doing(l, what, sizeof(what));
			wf_culprit(culprits, l->rank, "likely", "the other ranks wait in a collective rank %d has not "
				   "entered: it %s%s", l->rank, what, l->fresh ? ", a message its peer never sent it" : "");
			why = "the other ranks wait in a collective they have not entered";
		}
	}
	return why;
}

/* A culprit that may only be waiting on another culprit (its wait unproven for lack of that
 * rank's counters: a full table) is held up by it, not named beside it. From the last named
 * back, as each one dropped no longer holds anyone up. */
static void drop_held_up(struct graph *g, json_t *culprits)
{
	wf_culprits_unique(culprits);

	size_t n = json_array_size(culprits), left = n, kept = 0;
	bool *named = calloc((size_t)g->count + 1, sizeof(bool)), *drop = calloc(n + 1, sizeof(bool));

	for (size_t i = 0; named && drop && i < n; i++) {
		int x = wf_index_of(g, (int)num(json_array_get(culprits, i), "rank"));

		if (x >= 0)
			named[x] = true;
	}
	for (size_t i = n; named && drop && i-- > 0;) {
		struct node *x = wf_node_of(g, (int)num(json_array_get(culprits, i), "rank"));
		struct node *o = x && x->maybe >= 0 ? wf_node_of(g, x->maybe) : NULL;

		/* Not when they may wait on each other: then neither is known to hold the other. */
		if (o && o != x && named[o - g->n] && o->maybe != x->rank && left > 1) {
			drop[i] = true;
			named[x - g->n] = false;
			left--;
		}
	}
	for (size_t i = 0; named && drop && i < n; i++)
		if (!drop[i])
			json_array_set(culprits, kept++, json_array_get(culprits, i));
	while (named && drop && json_array_size(culprits) > kept)
		json_array_remove(culprits, json_array_size(culprits) - 1);
	free(drop);
	free(named);
}

/* A rank that waits on nobody proven but may wait on a peer (that peer's counters are
 * incomplete) is no sink of its own: its wait, unproven, goes to that peer, and what the peer
 * waits on decides (a cycle through it is read as one, on likely evidence). */
static void add_unproven_waits(struct graph *g)
{
	for (int i = 0; i < g->count; i++) {
		struct node *n = &g->n[i];

		if (n->nwaits || n->hub >= 0 || n->maybe < 0 || wf_gone(n) || !wf_node_of(g, n->maybe))
			continue;
		wf_wait_add(n, n->maybe);
		n->np2p = n->nwaits;
		n->maybe_edge = true;
	}
}

/* The nodes of each component together: by[start[c] .. start[c + 1]) are component c's
 * (a counting sort, so that each component is visited through its own members: one pass over
 * the graph, not one per component). NULL when out of memory. */
static int *by_component(struct graph *g, int ncomp, int **start)
{
	int *by = malloc(sizeof(int) * ((size_t)g->count + 1)), *at = calloc((size_t)ncomp + 2, sizeof(int));

	if (!by || !at) {
		free(by);
		free(at);
		return NULL;
	}
	for (int i = 0; i < g->count; i++)
		at[g->n[i].comp + 2]++;
	for (int c = 0; c < ncomp; c++)
		at[c + 2] += at[c + 1];
	for (int i = 0; i < g->count; i++)
		by[at[g->n[i].comp + 1]++] = i;
	*start = at;
	return by;
}

/* Is component c a sink (no edge leaves it), and are its inner edges all point to point? A hub
 * belongs to one component, so each hub's late ranks are checked once (hub_done). */
static bool is_sink(struct graph *g, const int *by, int from, int to, int c, bool *hub_done, bool *p2p_only)
{
	bool sink = true;

	*p2p_only = true;
	for (int k = from; k < to && sink; k++) {
		struct node *n = &g->n[by[k]];

		for (int w = 0; w < n->nwaits; w++) {
			struct node *o = wf_node_of(g, n->waits[w]);

			sink &= !o || o->comp == c;
		}
		if (n->hub < 0)
			continue;

		struct hub *h = &g->hubs[n->hub];

		*p2p_only = false;
		sink &= h->comp == c;
		for (int m = 0; sink && !hub_done[n->hub] && m < h->nout; m++) {
			struct node *o = wf_node_of(g, h->out[m]);

			sink &= !o || o->comp == c;
		}
		hub_done[n->hub] = true;
	}
	return sink;
}

/* Does sink component c prove the hang by the records alone (issue 68: a proven hang is acted
 * on at once)? A deadlock: each member blocked on another member, every wait proven by complete
 * counters - no wildcard, no unproven edge, no counter missing - or inside a collective the
 * others have not entered; or a rank that left while others are proven to wait for it. A
 * component whose sink is a rank still running (computing, or in a call no record explains)
 * proves nothing: a slow rank would look the same. */
static const char *sink_proof(struct graph *g, const int *by, int from, int to, const char *cause, bool p2p_only)
{
	if (!cause)
		return NULL;
	if (to - from == 1) {
		struct node *x = &g->n[by[from]];

		return wf_gone(x) && (x->exited || (x->rec && !x->unsure)) ?
		       "a rank left while the others wait for it" : NULL;
	}
	for (int k = from; k < to; k++) {
		struct node *n = &g->n[by[k]];

		if (!n->rec || !n->counted || n->unsure || n->or_wait || n->maybe_edge || n->match == MATCH_SATISFIED ||
		    wf_gone(n) || !(n->match == MATCH_BLOCKED || n->hub >= 0))
			return NULL;
	}
	return p2p_only ? "ranks blocked in receives or sends wait for each other in a cycle, every wait proven by the counters" :
	       "ranks wait in a collective that others have not entered, who wait for ranks inside it, every wait proven";
}

const char *wf_causes(struct graph *g, json_t *cycles, json_t *culprits)
{
	const char *why = NULL;
	int *start = NULL, *by;
	struct waiters wv;

	prune_alternatives(g);
	add_unproven_waits(g);

	int ncomp = components(g);

	if (!(by = by_component(g, ncomp, &start)))
		return NULL;
	bool *hub_done = calloc((size_t)g->nhubs + 1, sizeof(bool));

	if (!hub_done || !wf_waiters_build(g, &wv, by, start)) {
		free(hub_done);
		free(by);
		free(start);
		return NULL;
	}
	for (int c = 0; c < ncomp; c++) {
		int size = start[c + 1] - start[c], member = size ? by[start[c]] : -1;
		bool p2p_only = true, sink = member >= 0 && is_sink(g, by, start[c], start[c + 1], c, hub_done, &p2p_only);

		if (!sink)
			continue;

		const char *r = size == 1 ? lone_cause(g, &wv, &g->n[member], culprits) :
				p2p_only ? cycle_cause(g, c, size, cycles, culprits) : NULL;

		/* Through collectives: first the order of collectives each rank kept. */
		if (!r && size > 1 && !p2p_only)
			r = wf_order_cause(g, c, culprits);
		if (!r && size > 1 && !p2p_only)
			r = mixed_cause(g, c, culprits);

		why = why ? why : r;
		if (!g->proof)
			g->proof = sink_proof(g, by, start[c], start[c + 1], r, p2p_only);
	}
	wf_waiters_free(g, &wv);
	free(hub_done);
	free(by);
	free(start);
	drop_held_up(g, culprits);
	return why;
}
