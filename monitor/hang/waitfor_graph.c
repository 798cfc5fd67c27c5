/* SPDX-License-Identifier: BSD-3-Clause */
/* waitfor_graph — the nodes of the wait-for graph and the readers of the records (see
 * waitfor_graph.h). */
#include "waitfor_graph.h"
#include "../sample/record/mpirecord.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/ranges.h"

void wf_say(json_t *diag, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0)
		json_array_append_new(diag, json_string(s));
	va_end(ap);
	free(s);
}

struct node *wf_node_of(struct graph *g, int rank)
{
	int lo = 0, hi = g->count - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (g->n[mid].rank == rank)
			return &g->n[mid];
		if (g->n[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

int wf_index_of(struct graph *g, int rank)
{
	struct node *n = rank == ANY ? NULL : wf_node_of(g, rank);

	return n ? (int)(n - g->n) : -1;
}

/* Room for one more int in v (n of them): the array doubles when n is a power of two, so n
 * pushes cost O(n), not O(n^2) copies. Arrays grown here start NULL and grow only here. */
static bool grow_ints(int **v, int n)
{
	if (n & (n - 1))
		return true; /* n is not a power of two: there is room */

	int *p = realloc(*v, (size_t)(n ? 2 * n : 1) * sizeof(int));

	if (p)
		*v = p;
	return p != NULL;
}

void wf_wait_add(struct node *n, int rank)
{
	/* Waits mostly come in rank order (a wildcard's candidates are a communicator's members,
	 * sorted): then the last is the only one to compare with. */
	bool sorted_after = n->nwaits == 0 || (!n->waits_unsorted && rank > n->waits[n->nwaits - 1]);

	for (int i = 0; !sorted_after && i < n->nwaits; i++)
		if (n->waits[i] == rank)
			return;
	if (!grow_ints(&n->waits, n->nwaits))
		return;
	n->waits_unsorted |= !sorted_after;
	n->waits[n->nwaits++] = rank;
}

void wf_push_int(int **v, int *n, int x)
{
	if (grow_ints(v, *n))
		(*v)[(*n)++] = x;
}

/* "0-3,5" into a malloc'd array; its length in *n. */
int *wf_parse_ranges(const char *s, int *n)
{
	return ranges_parse(s, n, 1 << 24);
}

int wf_compare_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

char *wf_ranges_of(const int *ranks, int n)
{
	size_t len = (size_t)n * 12 + 16;
	char *buf = malloc(len);
	int *sorted = malloc((size_t)(n ? n : 1) * sizeof(int));

	if (buf && sorted) {
		if (n > 0) /* no ranks may come as NULL: memcpy's arguments never may */
			memcpy(sorted, ranks, (size_t)n * sizeof(int));
		qsort(sorted, (size_t)n, sizeof(int), wf_compare_int);
		ranges_format(sorted, n, buf, len);
	}
	free(sorted);
	return buf;
}

/* The communicator id's description: "MPI_COMM_WORLD" or "communicator 8c1f… (ranks 0,2)". */
void wf_comm_name(json_t *comm, const char *id, char *buf, size_t len)
{
	if (is_text(id, WORLD_ID))
		snprintf(buf, len, "MPI_COMM_WORLD");
	else
		snprintf(buf, len, "communicator %.8s (ranks %s)", id ? id : "?",
			 comm && str(comm, "members") ? str(comm, "members") : "?");
}

json_t *wf_comm_of(json_t *rec, const char *id)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(rec, "comms"), i, c)
		if (is_text(str(c, "id"), id))
			return c;
	return NULL;
}

json_t *wf_find(json_t *array, const char *key, long long value)
{
	size_t i;
	json_t *e;

	json_array_foreach(array, i, e)
		if (num(e, key) == value)
			return e;
	return NULL;
}

json_t *wf_history_entry(json_t *comm, long long seq)
{
	return wf_find(json_object_get(comm, "history"), "coll_seq", seq);
}

bool wf_is_collective_call(json_t *call)
{
	return call && num(call, "coll_seq") > 0;
}

/* Blocking point-to-point calls: they wait for their peer (record/mpi.api's roles). */
bool wf_is_p2p_wait(const char *f)
{
	enum psrec_kind k = mpirecord_kind_of(f);

	return k == PSREC_KIND_SEND || k == PSREC_KIND_RECV || k == PSREC_KIND_PROBE ||
	       k == PSREC_KIND_SENDRECV;
}

bool wf_is_send(const char *f)
{
	enum psrec_kind k = mpirecord_kind_of(f);

	return k == PSREC_KIND_SEND || k == PSREC_KIND_ISEND || k == PSREC_KIND_INIT_SEND;
}

const char *wf_site(struct node *n, json_t *call, char *buf, size_t len)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(n ? n->obj : NULL, "frames"), i, f)
		if (is_text(str(f, "lang"), "python") && !json_is_true(json_object_get(f, "library")) &&
		    num(f, "line") > 0) {
			snprintf(buf, len, "%s:%lld (Python, in %s)", str(f, "module") ? str(f, "module") : "?",
				 num(f, "line"), str(f, "func") ? str(f, "func") : "?");
			return buf;
		}
	return str(call, "at") ? str(call, "at") : "?";
}

const char *wf_tag(long long tag, char *buf, size_t len)
{
	if (tag == ANY)
		snprintf(buf, len, "any tag");
	else
		snprintf(buf, len, "tag %lld", tag);
	return buf;
}

/* What a rank is doing, for a sentence: "waits in MPI_Recv from rank 3 (tag 5) at a.c:40". */
void wf_doing(struct node *n, char *buf, size_t len)
{
	json_t *c = n ? n->call : NULL;
	char site[400], tag[32];

	if (!n || n->exited)
		snprintf(buf, len, "has exited");
	else if (n->finalizing)
		snprintf(buf, len, "is in MPI_Finalize");
	else if (!c && is_text(str(n->obj, "state"), "OUT_MPI"))
		snprintf(buf, len, "is in application code");
	else if (!c)
		/* In MPI with no record of the call: name the call from the stack, and why. */
		snprintf(buf, len, "is in %s, %s", str(n->obj, "mpi_call") ? str(n->obj, "mpi_call") : "MPI",
			 json_is_false(json_object_get(n->obj, "recording_layer")) ?
				 "without the recording layer (its stack alone says so)" :
			 json_object_get(n->obj, "record_unreadable") ?
				 "its record unreadable (its stack alone says so)" :
				 "which the recording layer does not record");
	else if (wf_is_p2p_wait(str(c, "func")) && num(c, "peer") >= 0)
		snprintf(buf, len, "waits in %s %s rank %lld (%s) at %s", str(c, "func"),
			 wf_is_send(str(c, "func")) ? "to" : "from", num(c, "peer"),
			 wf_tag(num(c, "tag"), tag, sizeof(tag)), wf_site(n, c, site, sizeof(site)));
	else if (wf_is_p2p_wait(str(c, "func")) && num(c, "peer") == ANY)
		snprintf(buf, len, "waits in %s from any source at %s", str(c, "func"),
			 wf_site(n, c, site, sizeof(site)));
	else if (wf_is_collective_call(c))
		snprintf(buf, len, "waits in %s #%lld at %s", str(c, "func"), num(c, "coll_seq"),
			 wf_site(n, c, site, sizeof(site)));
	else
		snprintf(buf, len, "waits in %s at %s", str(c, "func"), wf_site(n, c, site, sizeof(site)));
}

void wf_unread_why(const struct node *n, char *buf, size_t len)
{
	const char *path = n ? str(n->obj, "path") : NULL;
	json_t *unreadable = n ? json_object_get(n->obj, "record_unreadable") : NULL;

	if (!n)
		snprintf(buf, len, "(it is not in the snapshot: its monitor did not answer)");
	else if (is_text(str(n->obj, "state"), "UNKNOWN") && path && path[0] == '(')
		snprintf(buf, len, "%s", path);
	else if (unreadable)
		snprintf(buf, len, "(its record was unreadable: %s)",
			 json_is_string(unreadable) ? json_string_value(unreadable) : "it failed its check");
	else if (json_is_false(json_object_get(n->obj, "recording_layer")))
		snprintf(buf, len, "(it runs without the recording layer)");
	else
		snprintf(buf, len, "(it has no record)");
}

void wf_unknown_add(struct graph *g, int rank, int alike, const char *waiters, const char *what)
{
	bool many = strchr(waiters, ',') || strchr(waiters, '-');
	char why[1600], unread[700], which[80] = "the only rank that could be the cause";

	if (!g->unknown)
		g->unknown = json_array();
	if (wf_find(g->unknown, "rank", rank))
		return;
	wf_unread_why(wf_node_of(g, rank), unread, sizeof(unread));

	if (alike > 1)
		snprintf(which, sizeof(which), "one of %d ranks that could be the cause", alike);
	snprintf(why, sizeof(why), "rank%s %s wait%s %s rank %d, %s, but rank %d could not be read %s: the records "
		 "cannot name the culprit", many ? "s" : "", waiters, many ? "" : "s", what, rank, which, rank, unread);
	json_array_append_new(g->unknown, json_pack("{s:i, s:s}", "rank", rank, "why", why));
	wf_say(g->diag, "%s", why);
}

void wf_culprit(json_t *culprits, int rank, const char *evidence, const char *fmt, ...)
{
	char why[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	json_array_append_new(culprits, json_pack("{s:i, s:s, s:s}", "rank", rank, "evidence", evidence, "why", why));
}

/* A culprit's place in its list, for the stable de-duplication. */
struct named {
	int rank;
	size_t at;
};

static int compare_named(const void *x, const void *y)
{
	const struct named *a = x, *b = y;

	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return (a->at > b->at) - (a->at < b->at);
}

void wf_culprits_unique(json_t *culprits)
{
	size_t n = json_array_size(culprits), i, kept = 0;
	struct named *v = n > 1 ? calloc(n, sizeof(*v)) : NULL;
	bool *drop = v ? calloc(n, sizeof(bool)) : NULL;
	json_t *c;

	json_array_foreach(culprits, i, c)
		if (drop)
			v[i] = (struct named){ (int)num(c, "rank"), i };
	if (drop) {
		qsort(v, n, sizeof(*v), compare_named);
		for (i = 1; i < n; i++)
			drop[v[i].at] = v[i].rank == v[i - 1].rank;
		/* Compacted in place, in the order they were named. */
		for (i = 0; i < n; i++)
			if (!drop[i])
				json_array_set(culprits, kept++, json_array_get(culprits, i));
		while (json_array_size(culprits) > kept)
			json_array_remove(culprits, json_array_size(culprits) - 1);
	}
	free(drop);
	free(v);
}
