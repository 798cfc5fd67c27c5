/* SPDX-License-Identifier: BSD-3-Clause */
/* waitfor_order — the rank out of step in a cycle through collectives. Every rank of an SPMD
 * code calls the same collectives in the same order on each communicator. When ranks wait in
 * collective A for ranks that are in collective B, and B waits for them, each rank's counts say
 * which of the two it put first: a rank in B that has completed A, or a rank that entered A and
 * not B, puts A first; a rank in B that never entered A puts B first (it skipped A, or called the
 * two the other way round). The order most ranks kept is the program's; the ranks that kept the
 * other are out of step, and they are the culprits, not everyone in the cycle. A communicator
 * split in pieces (the rows of a grid) has another id in every piece: a rank outside A's piece
 * counts on its own communicator of the same role (the same size, a collective at A's call
 * site). Equal votes: a symmetric cycle, named with both sides and the order each used.
 * Bounded: at most ORDER_MAX_POS positions per component, one pass over the ranks each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waitfor_graph.h"

#define ORDER_MAX_POS 16

/* A collective some ranks of the component wait in. */
struct position {
	const char *comm, *func, *at;
	long long seq, size;
	json_t *comm_obj;
	struct node *first; /* a rank in it, for its call site in sentences */
	int *ranks, n;
};

/* What one rank's record says of one position: its communicator of that role, how many
 * collectives it entered there, and whether it is in that collective now. */
struct count {
	json_t *comm;
	long long entered;
	bool inside;
};

/* Did the rank make a collective on comm whose field ("at": call site, "func") is value (its
 * history, or its current call)? */
static bool comm_used(struct node *r, json_t *comm, const char *field, const char *value)
{
	size_t i;
	json_t *e;

	if (!value || !strcmp(value, "?"))
		return false;
	json_array_foreach(json_object_get(comm, "history"), i, e)
		if (is_text(str(e, field), value))
			return true;
	return r->call && is_text(str(r->call, "comm"), str(comm, "id")) && is_text(str(r->call, field), value);
}

/* Where the rank stands on comm toward the position: has it entered the position's collective
 * there (2 when it is inside it now, 1 when it completed it, 0 not yet)? */
static int standing(struct node *r, json_t *comm, const struct position *p)
{
	if (wf_is_collective_call(r->call) && is_text(str(r->call, "comm"), str(comm, "id")) &&
	    num(r->call, "coll_seq") == p->seq)
		return 2;
	return num(comm, "coll_seq") >= p->seq;
}

/* The communicator of the position's size where the rank made a collective with the same field:
 * the one, or the first of several that all say the same of the position (the row and the column
 * of a grid, both behind it); NULL when none, or when they disagree. */
static json_t *comm_like(struct node *r, const struct position *p, const char *field, const char *value)
{
	json_t *found = NULL, *c;
	size_t i;

	json_array_foreach(json_object_get(r->rec, "comms"), i, c) {
		if (num(c, "size") != p->size || !comm_used(r, c, field, value))
			continue;
		if (found && standing(r, found, p) != standing(r, c, p))
			return NULL;
		if (!found)
			found = c;
	}
	return found;
}

/* The rank's communicator of the position's role: the same one, else the communicator of the
 * same size where it called at the same site, else (a rank out of step calls from a line of its
 * own) the one of that size where it made the same collective; NULL when none, or when several
 * say different things of the position (comm_like). */
static json_t *role_comm(struct node *r, const struct position *p)
{
	json_t *same = wf_comm_of(r->rec, p->comm), *found;

	if (same)
		return same;
	found = comm_like(r, p, "at", p->at);
	return found ? found : comm_like(r, p, "func", p->func);
}

static struct count count_of(struct node *r, const struct position *p)
{
	struct count k = { NULL, 0, false };

	if (!r->rec || wf_gone(r))
		return k;
	k.comm = role_comm(r, p);
	if (!k.comm)
		return k;
	k.entered = num(k.comm, "coll_seq");
	k.inside = standing(r, k.comm, p) == 2;
	return k;
}

/* +1: the rank put a first, -1: b first, 0: its counts do not say. A collective it is blocked
 * in came after every one it completed. */
static int vote(const struct count *a, long long aseq, const struct count *b, long long bseq)
{
	bool ea, eb;

	if (!a->comm || !b->comm || a->comm == b->comm)
		return 0;
	ea = a->entered >= aseq;
	eb = b->entered >= bseq;
	if (ea != eb)
		return ea ? 1 : -1;
	if (ea && a->inside != b->inside)
		return a->inside ? -1 : 1;
	return 0;
}

/* n's collective among the positions; past ORDER_MAX_POS of them, *npos says so (one more). */
static void position_add(struct position *pos, int *npos, struct node *n)
{
	json_t *c = n->call;

	if (*npos > ORDER_MAX_POS)
		return;
	for (int k = 0; k < *npos; k++)
		if (is_text(pos[k].comm, str(c, "comm")) && pos[k].seq == num(c, "coll_seq")) {
			wf_push_int(&pos[k].ranks, &pos[k].n, n->rank);
			return;
		}
	if (*npos >= ORDER_MAX_POS) {
		*npos = ORDER_MAX_POS + 1;
		return;
	}

	json_t *comm = wf_comm_of(n->rec, str(c, "comm"));

	pos[*npos] = (struct position){ str(c, "comm"), str(c, "func"), str(c, "at"), num(c, "coll_seq"),
					num(comm, "size"), comm, n, NULL, 0 };
	wf_push_int(&pos[*npos].ranks, &pos[*npos].n, n->rank);
	(*npos)++;
}

/* "MPI_Alltoall #12 on communicator 94867d5d (ranks 0-15) (at ft.f:123)" */
static void position_text(const struct position *p, char *buf, size_t len)
{
	char name[160], site[400];

	wf_comm_name(p->comm_obj, p->comm, name, sizeof(name));
	snprintf(buf, len, "%s #%lld on %s (at %s)", p->func ? p->func : "?", p->seq, name,
		 wf_site(p->first, p->first->call, site, sizeof(site)));
}

/* The votes of every rank on the order of positions a and b; the ranks of the component that
 * voted each way into ranks_a (a first) and ranks_b. */
static void tally(struct graph *g, int c, struct count *ka, struct count *kb, const struct position *a,
		  const struct position *b, int *va, int *vb, int **ra, int *nra, int **rb, int *nrb)
{
	*va = *vb = 0;
	for (int i = 0; i < g->count; i++) {
		int v = vote(&ka[i], a->seq, &kb[i], b->seq);

		*va += v > 0;
		*vb += v < 0;
		if (v && g->n[i].comp == c)
			wf_push_int(v > 0 ? ra : rb, v > 0 ? nra : nrb, g->n[i].rank);
	}
}

/* Every member of the component has a record to count on. */
static bool all_recorded(struct graph *g, int c)
{
	for (int i = 0; i < g->count; i++)
		if (g->n[i].comp == c && !g->n[i].exited && (!g->n[i].rec || g->n[i].unsure))
			return false;
	return true;
}

/* The culprits of one pair of positions in conflict: the ranks that kept the minority's order. */
static void name_out_of_step(struct graph *g, int c, const struct position *first, const struct position *second,
			     int vfirst, int vsecond, int *odd, int nodd, const struct count *kfirst,
			     json_t *culprits)
{
	char tf[700], ts[700], own[200], where[260];
	char *rf = wf_ranges_of(first->ranks, first->n), *ro = wf_ranges_of(odd, nodd);
	const char *evidence = all_recorded(g, c) && vfirst >= 2 * vsecond ? "certain" : "likely";

	position_text(first, tf, sizeof(tf));
	position_text(second, ts, sizeof(ts));
	for (int k = 0; k < nodd; k++) {
		struct node *x = wf_node_of(g, odd[k]);
		const struct count *kx = &kfirst[x - g->n];

		if (is_text(str(kx->comm, "id"), first->comm)) {
			snprintf(where, sizeof(where), "there");
		} else {
			wf_comm_name(kx->comm, str(kx->comm, "id"), own, sizeof(own));
			snprintf(where, sizeof(where), "on its own %s", own);
		}
		wf_culprit(culprits, x->rank, evidence,
			   "rank %d went on to %s without entering %s, where rank%s %s wait%s for it (it entered %lld "
			   "collective%s %s): %d rank%s call the two in that order, %s %s the other way round — it "
			   "skipped the first, or called the two in the other order",
			   x->rank, ts, tf, first->n > 1 ? "s" : "", rf ? rf : "?", first->n > 1 ? "" : "s", kx->entered,
			   kx->entered == 1 ? "" : "s", where, vfirst, vfirst > 1 ? "s" : "",
			   nodd > 1 ? "ranks" : "rank", ro ? ro : "?");
	}
	free(ro);
	free(rf);
}

/* The sides of a symmetric cycle, each named as likely: the records cannot tell whose order is
 * the program's. */
static void name_symmetric(struct graph *g, const struct position *a, const struct position *b, int *ra, int nra,
			   int *rb, int nrb, json_t *culprits)
{
	char ta[700], tb[700];
	char *sa = wf_ranges_of(ra, nra), *sb = wf_ranges_of(rb, nrb);

	position_text(a, ta, sizeof(ta));
	position_text(b, tb, sizeof(tb));
	wf_say(g->diag, "symmetric cycle: ranks %s call %s before %s; ranks %s call them in the other order; "
	       "as many ranks keep each order, so the records cannot tell which side left the program's",
	       sa ? sa : "?", ta, tb, sb ? sb : "?");
	for (int side = 0; side < 2; side++)
		for (int k = 0; k < (side ? nrb : nra); k++)
			wf_culprit(culprits, side ? rb[k] : ra[k], "likely",
				   "a symmetric cycle: ranks %s call %s before %s, ranks %s the other way round, and "
				   "each side waits for the other", sa ? sa : "?", ta, tb, sb ? sb : "?");
	free(sa);
	free(sb);
}

/* The out-of-step ranks of one pair of positions (a, b), or the sides of a symmetric cycle when
 * symmetric is set; true when the pair was in conflict. */
static bool judge_pair(struct graph *g, int c, struct position *a, struct position *b, struct count *ka,
		       struct count *kb, bool symmetric, json_t *culprits)
{
	int va, vb, *ra = NULL, nra = 0, *rb = NULL, nrb = 0;
	bool conflict;

	tally(g, c, ka, kb, a, b, &va, &vb, &ra, &nra, &rb, &nrb);
	conflict = va > 0 && vb > 0 && nra > 0 && nrb > 0;
	if (conflict && va != vb && !symmetric) {
		char tf[700], ts[700];
		bool a_first = va > vb;
		char *odd = wf_ranges_of(a_first ? rb : ra, a_first ? nrb : nra);

		position_text(a_first ? a : b, tf, sizeof(tf));
		position_text(a_first ? b : a, ts, sizeof(ts));
		wf_say(g->diag, "collectives out of order: %d rank%s call %s before %s; rank%s %s entered the second "
		       "without the first: out of step", a_first ? va : vb, (a_first ? va : vb) > 1 ? "s" : "", tf, ts,
		       (a_first ? nrb : nra) > 1 ? "s" : "", odd ? odd : "?");
		free(odd);
		name_out_of_step(g, c, a_first ? a : b, a_first ? b : a, a_first ? va : vb, a_first ? vb : va,
				 a_first ? rb : ra, a_first ? nrb : nra, a_first ? ka : kb, culprits);
	} else if (conflict && va == vb && symmetric) {
		name_symmetric(g, a, b, ra, nra, rb, nrb, culprits);
	}
	free(ra);
	free(rb);
	return conflict;
}

const char *wf_order_cause(struct graph *g, int c, json_t *culprits)
{
	struct position pos[ORDER_MAX_POS + 1];
	struct count *k[ORDER_MAX_POS] = { 0 };
	int npos = 0, pass;
	size_t before = json_array_size(culprits);

	for (int i = 0; i < g->count; i++)
		if (g->n[i].comp == c && g->n[i].rec && !g->n[i].finalizing && wf_is_collective_call(g->n[i].call))
			position_add(pos, &npos, &g->n[i]);
	/* More positions than that: no SPMD order to read, the other rules judge. */
	int used = npos > ORDER_MAX_POS ? ORDER_MAX_POS : npos;

	for (int p = 0; p < used && npos > 1 && npos <= ORDER_MAX_POS; p++) {
		k[p] = calloc((size_t)g->count + 1, sizeof(struct count));
		for (int i = 0; k[p] && i < g->count; i++)
			k[p][i] = count_of(&g->n[i], &pos[p]);
	}
	/* First the pairs with a majority; only where none names anyone, the symmetric ones. */
	for (pass = 0; pass < 2 && json_array_size(culprits) == before; pass++)
		for (int a = 0; a < used && (pass == 0 || json_array_size(culprits) == before); a++)
			for (int b = a + 1; b < used; b++)
				if (k[a] && k[b])
					judge_pair(g, c, &pos[a], &pos[b], k[a], k[b], pass == 1, culprits);
	for (int p = 0; p < used; p++) {
		free(k[p]);
		free(pos[p].ranks);
	}
	if (json_array_size(culprits) == before)
		return NULL;
	/* pass is one past the pass that named them. */
	return pass == 1 ? "the other ranks wait in collectives they have not entered: they skipped them, or "
			   "called them in another order than every other rank" :
			   "two groups of ranks call the same collectives in opposite orders and wait for each other";
}
