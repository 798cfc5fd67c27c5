/* SPDX-License-Identifier: BSD-3-Clause */
/* waitfor_waiters — the wait-for graph read backwards (waitfor_graph.h's struct waiters): who
 * waits on each rank, so that the waiters of every sink are found through its members, not by a
 * pass over the job per sink; a collective's waiters are taken once per hub. */
#include <stdlib.h>
#include <string.h>

#include "waitfor_graph.h"

/* CSR arrays of n lists from (list, item) pairs given by pairs(): *at of n + 1, *items. */
static bool csr_build(struct graph *g, int n, int **items, int **at,
		      int (*pairs)(struct graph *g, int *list, int *item))
{
	int total = pairs(g, NULL, NULL), *fill;

	*at = calloc((size_t)n + 2, sizeof(int));
	*items = malloc(sizeof(int) * ((size_t)total + 1));
	fill = calloc((size_t)total + 1, sizeof(int) * 2);
	if (!*at || !*items || !fill) {
		free(fill);
		return false;
	}
	pairs(g, fill, fill + total);
	for (int k = 0; k < total; k++)
		(*at)[fill[k] + 1]++;
	for (int i = 0; i < n; i++)
		(*at)[i + 1] += (*at)[i];

	int *pos = calloc((size_t)n + 1, sizeof(int));

	for (int k = 0; pos && k < total; k++)
		(*items)[(*at)[fill[k]] + pos[fill[k]]++] = fill[total + k];
	free(pos);
	free(fill);
	return pos != NULL;
}

/* (waited-on node, waiting node) for every point-to-point wait; their count. */
static int rev_pairs(struct graph *g, int *list, int *item)
{
	int k = 0;

	for (int i = 0; i < g->count; i++)
		for (int w = 0; w < g->n[i].nwaits; w++) {
			int o = wf_index_of(g, g->n[i].waits[w]);

			if (o < 0)
				continue;
			if (list) {
				list[k] = o;
				item[k] = i;
			}
			k++;
		}
	return k;
}

/* (late node, hub) for every hub's late rank. */
static int late_pairs(struct graph *g, int *list, int *item)
{
	int k = 0;

	for (int h = 0; h < g->nhubs; h++)
		for (int m = 0; m < g->hubs[h].nout; m++) {
			int o = wf_index_of(g, g->hubs[h].out[m]);

			if (o < 0)
				continue;
			if (list) {
				list[k] = o;
				item[k] = h;
			}
			k++;
		}
	return k;
}

/* (hub, waiting node) for every rank waiting in a hub. */
static int in_pairs(struct graph *g, int *list, int *item)
{
	int k = 0;

	for (int i = 0; i < g->count; i++)
		if (g->n[i].hub >= 0) {
			if (list) {
				list[k] = g->n[i].hub;
				item[k] = i;
			}
			k++;
		}
	return k;
}

void wf_waiters_free(struct graph *g, struct waiters *wv)
{
	for (int h = 0; wv->hub_text && h < g->nhubs; h++)
		free(wv->hub_text[h]);
	free(wv->hub_text);
	free(wv->hub_seen);
	free(wv->seen);
	free(wv->in_at);
	free(wv->in);
	free(wv->late_at);
	free(wv->late);
	free(wv->rev_at);
	free(wv->rev);
}

bool wf_waiters_build(struct graph *g, struct waiters *wv, int *by, int *start)
{
	*wv = (struct waiters){ .by = by, .start = start };
	wv->seen = calloc((size_t)g->count + 1, sizeof(int));
	wv->hub_seen = calloc((size_t)g->nhubs + 1, sizeof(int));
	wv->hub_text = calloc((size_t)g->nhubs + 1, sizeof(char *));
	if (!wv->seen || !wv->hub_seen || !wv->hub_text || !csr_build(g, g->count, &wv->rev, &wv->rev_at, rev_pairs) ||
	    !csr_build(g, g->count, &wv->late, &wv->late_at, late_pairs) ||
	    !csr_build(g, g->nhubs, &wv->in, &wv->in_at, in_pairs)) {
		wf_waiters_free(g, wv);
		return false;
	}
	return true;
}

/* Every rank waiting in hub h, as ranges (a copy of the text made once per hub). */
static char *hub_waiters_text(struct graph *g, struct waiters *wv, int h)
{
	if (!wv->hub_text[h]) {
		int n = wv->in_at[h + 1] - wv->in_at[h], *r = malloc(sizeof(int) * ((size_t)n + 1));

		for (int k = 0; r && k < n; k++)
			r[k] = g->n[wv->in[wv->in_at[h] + k]].rank;
		wv->hub_text[h] = r ? wf_ranges_of(r, n) : NULL;
		free(r);
	}
	return wv->hub_text[h] ? strdup(wv->hub_text[h]) : NULL;
}

/* The ranks outside component c that wait on one of its members directly, as ranges; whether
 * all of them do so through alternatives only, and whether some through a collective. Read
 * through the reverse edges (struct waiters): the waiters of c's members, not every rank. */
char *wf_waiters_of(struct graph *g, struct waiters *wv, int c, bool *only_alternatives, bool *collective)
{
	int *w = NULL, nw = 0, hub = -1, nhubs = 0;
	int *members = wv->by + wv->start[c], nmembers = wv->start[c + 1] - wv->start[c];

	*only_alternatives = true;
	*collective = false;
	wv->stamp++;
	for (int i = 0; i < nmembers; i++) {
		int m = members[i];

		for (int k = wv->rev_at[m]; k < wv->rev_at[m + 1]; k++) {
			struct node *n = &g->n[wv->rev[k]];

			if (n->comp == c || wv->seen[wv->rev[k]] == wv->stamp)
				continue;
			wv->seen[wv->rev[k]] = wv->stamp;
			wf_push_int(&w, &nw, n->rank);
			*only_alternatives &= n->or_wait || n->maybe_edge;
		}
		for (int k = wv->late_at[m]; k < wv->late_at[m + 1]; k++)
			if (wv->hub_seen[wv->late[k]] != wv->stamp) {
				wv->hub_seen[wv->late[k]] = wv->stamp;
				hub = wv->late[k];
				nhubs++;
			}
	}
	/* Only one hub's waiters, none of them in c (the hub is outside it): its text, made once. */
	if (nhubs == 1 && nw == 0 && g->hubs[hub].comp != c) {
		*only_alternatives = false;
		*collective = true;
		return hub_waiters_text(g, wv, hub);
	}
	for (int i = 0; i < nmembers; i++)
		for (int j = wv->late_at[members[i]]; j < wv->late_at[members[i] + 1]; j++) {
			int h = wv->late[j];

			if (wv->hub_seen[h] != wv->stamp)
				continue;
			wv->hub_seen[h] = 0; /* its waiters taken once */
			for (int k = wv->in_at[h]; k < wv->in_at[h + 1]; k++) {
				struct node *n = &g->n[wv->in[k]];

				if (n->comp == c || wv->seen[wv->in[k]] == wv->stamp)
					continue;
				wv->seen[wv->in[k]] = wv->stamp;
				wf_push_int(&w, &nw, n->rank);
				*only_alternatives = false;
				*collective = true;
			}
		}

	char *r = nw ? wf_ranges_of(w, nw) : NULL;

	free(w);
	return r;
}

