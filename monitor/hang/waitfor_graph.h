/* SPDX-License-Identifier: BSD-3-Clause */
/* waitfor_graph — the wait-for analysis's view of the job (private to monitor/hang/): one node
 * per rank with its record and the call it waits in, and the readers of the records' JSON that
 * waitfor.c's rules share (communicators, histories, what a rank is doing). */
#ifndef PARASTACK_WAITFOR_GRAPH_H
#define PARASTACK_WAITFOR_GRAPH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "report_util.h"
#include "../../record/record_format.h"

#define WORLD_ID "0000000000000001"
/* A peer as the records give it (record_format.h): a world rank, or one of these. */
#define ANY PSREC_ANY_SOURCE  /* any rank of the communicator */
#define NO_PEER PSREC_NO_PEER /* MPI_PROC_NULL, or none at all */

/* What the counters prove of a rank's point-to-point call (waitfor_match.c). */
enum match {
	MATCH_OPEN,      /* nothing proven either way (no such call, or the counts cannot tell) */
	MATCH_BLOCKED,   /* its waits are proven blocked: the first np2p of waits are on whom */
	MATCH_SATISFIED, /* every message it waits for was sent, every send's receive posted */
};

/* One rank as the analysis sees it. */
struct node {
	int rank;
	json_t *obj;   /* its snapshot object */
	json_t *rec;   /* its record, or NULL */
	json_t *call;  /* the call its main thread (or first recorded thread) is in, or NULL */
	bool exited, finalizing;
	int *waits;    /* ranks it waits for (ANY: any rank of the communicator) */
	int nwaits;
	bool waits_unsorted; /* waits not in increasing order (wf_wait_add) */
	int np2p;      /* the first np2p of them are point-to-point waits */
	bool in_cycle;
	/* Point-to-point matching (waitfor_match.c): what the counters say of its call. */
	bool counted;   /* its record counts every point-to-point call it made */
	enum match match;
	bool unsure;    /* the counters cannot tell all (a peer without them, a request unrecorded):
			 * with MATCH_BLOCKED, some of its operations are proven blocked, not all */
	bool or_wait;   /* its point-to-point waits are alternatives (any source, Waitany) */
	bool fresh;     /* it waits for an envelope no candidate ever sent it */
	bool owed;      /* it waits for an envelope its peer sent it before, one message short */
	bool send_new;  /* a blocked send of the first message on its envelope */
	bool send_old;  /* a blocked send on an envelope it sent on before */
	char blocked_on[320]; /* the blocked operation, for sentences */
	int maybe;      /* a peer it may wait on, unproven (counters incomplete, wildcard receives), or NO_PEER */
	bool maybe_edge; /* with no proven wait, its one edge is that unproven one (waitfor_cause.c) */
	bool late;      /* it has not entered a collective that others wait in */
	int hub;        /* the pending collective it waits in (g->hubs), or -1 */
	int comp;       /* its strongly connected component of the wait-for graph */
};

/* A pending collective (communicator, number) some ranks wait in, and its members that have not
 * entered it. Its waiters point at it and it at them: W waiters of K late ranks are W + K edges,
 * not W x K (a class of the wait-for graph, not one edge per pair). */
struct hub {
	const char *id;
	long long seq;
	int *out, nout; /* the late members' ranks */
	int comp;       /* its component (Tarjan's, over ranks and hubs) */
	char *late_text; /* out as ranges, once asked for (malloc'd) */
};

struct graph {
	struct node *n;
	int count;
	struct hub *hubs;
	int nhubs;
	json_t *diag;
	json_t *unknown; /* where the only candidate could not be read: {rank, why} (wf_unknown_add) */
	const char *proof; /* what proves the hang by the records alone (wf_causes), or NULL */
};

/* One sentence appended to the diagnosis. */
void wf_say(json_t *diag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Has the rank left (exited, or in MPI_Finalize)? It will send and receive nothing more. */
static inline bool wf_gone(const struct node *n)
{
	return n->exited || n->finalizing;
}

/* Could the rank not be read: alive, with no record (not sampled, its record unreadable, no
 * layer)? Then nothing proves where it is: "no record" is not "has not entered", so it is never
 * late in a collective nor a culprit on that absence (issue 72). */
static inline bool wf_unread(const struct node *n)
{
	return !n->rec && !wf_gone(n);
}

/* Why rank n could not be read, as a clause: "(not sampled: …)", "(its record was unreadable:
 * …)"; n NULL: a rank not in the snapshot. */
void wf_unread_why(const struct node *n, char *buf, size_t len);

/* The culprit is unknown: the ranks waiters wait (what: "in MPI_Alltoall #12 … for", "for") for
 * rank, the only one that could be the cause (one of alike such ranks), which could not be read.
 * Said once in the diagnosis and kept in g->unknown. */
void wf_unknown_add(struct graph *g, int rank, int alike, const char *waiters, const char *what);

/* The node of a rank, or NULL when the rank is not in the job. */
struct node *wf_node_of(struct graph *g, int rank);
/* Its index in g->n, or -1 (ANY, or not in the job). */
int wf_index_of(struct graph *g, int rank);

/* The wait-for graph read backwards, built once for all its sinks: who waits on each rank point
 * to point, in which hubs each rank is late, who waits in each hub, and each component's members
 * (arrays in CSR form: x[x_at[i] .. x_at[i + 1]) are i's). */
struct waiters {
	int *rev, *rev_at;   /* node indexes whose point-to-point waits include node i */
	int *late, *late_at; /* the hubs node i is late in */
	int *in, *in_at;     /* node indexes waiting in hub h */
	int *by, *start;     /* each component's nodes (by_component) */
	int *seen, *hub_seen, stamp; /* one walk at a time */
	char **hub_text;     /* each hub's waiters as ranges, once asked for */
};

/* Built once the components are known (by, start: each component's nodes, borrowed); false
 * when out of memory. */
bool wf_waiters_build(struct graph *g, struct waiters *wv, int *by, int *start);
void wf_waiters_free(struct graph *g, struct waiters *wv);
/* The ranks outside component c that wait on one of its members directly, as ranges
 * (malloc'd, NULL when none); whether all of them do so through alternatives only, and whether
 * some through a collective. */
char *wf_waiters_of(struct graph *g, struct waiters *wv, int c, bool *only_alternatives, bool *collective);

/* n waits for rank (ANY: any rank of the communicator). */
void wf_wait_add(struct node *n, int rank);

/* Append x to a growing array. */
void wf_push_int(int **v, int *n, int x);

/* "0-3,5" into a malloc'd array; its length in *n. */
int *wf_parse_ranges(const char *s, int *n);

/* qsort's ascending int order. */
int wf_compare_int(const void *x, const void *y);

/* "0-2,4-7" from ranks in any order (malloc'd; NULL when out of memory). */
char *wf_ranges_of(const int *ranks, int n);

/* The communicator id's description: "MPI_COMM_WORLD" or "communicator 8c1f… (ranks 0,2)". */
void wf_comm_name(json_t *comm, const char *id, char *buf, size_t len);

/* The communicator id in a rank's record, or NULL. */
json_t *wf_comm_of(json_t *rec, const char *id);

/* The first object of array whose integer member key is value, or NULL. */
json_t *wf_find(json_t *array, const char *key, long long value);

/* Collective number seq in a communicator's recorded history, or NULL. */
json_t *wf_history_entry(json_t *comm, long long seq);

/* Is the call a collective? (It has a collective number.) */
bool wf_is_collective_call(json_t *call);


/* Blocking point-to-point calls: they wait for their peer. */
bool wf_is_p2p_wait(const char *f);

/* A send of any mode (blocking or not). */
bool wf_is_send(const char *f);

/* Point-to-point edges from matching (waitfor_match.c): for each rank waiting in a receive, a
 * send or a Wait call, whether the ranks' counters prove it blocked, and on whom. */
void wf_match(struct graph *g);

/* The cause (waitfor_cause.c): the ranks every waiting rank waits on, transitively (the sink
 * components of the wait-for graph), refined where a cycle has one odd member; each culprit
 * with its evidence ("certain" or "likely") and why, into culprits; the point-to-point deadlock
 * cycles into cycles. Returns the sentence's reason for the diagnosis, or NULL. */
const char *wf_causes(struct graph *g, json_t *cycles, json_t *culprits);

/* The ranks out of step in sink component c whose waits go through collectives on several
 * communicators (waitfor_order.c): those that entered a collective the others' order puts later
 * without the one the others wait in; or both sides of a symmetric cycle. Returns the reason
 * for the diagnosis, or NULL when the counts say nothing (then the other rules judge). */
const char *wf_order_cause(struct graph *g, int c, json_t *culprits);

/* A culprit: {"rank", "evidence", "why"}, appended; a rank named twice keeps its first entry
 * once the list is made unique (wf_culprits_unique, before the list is read). */
void wf_culprit(json_t *culprits, int rank, const char *evidence, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Each rank's first entry only, in the order they were named: O(C log C), not a scan per name. */
void wf_culprits_unique(json_t *culprits);

/* Where a rank's call was made, for sentences: in a Python rank its innermost frame of the
 * user's own code ("solver.py:52 (Python, in exchange)"), else the record's call site. */
const char *wf_site(struct node *n, json_t *call, char *buf, size_t len);

/* "tag 5", or "any tag" for MPI_ANY_TAG. */
const char *wf_tag(long long tag, char *buf, size_t len);

/* What a rank is doing, for a sentence: "waits in MPI_Recv from rank 3 (tag 5) at a.c:40". */
void wf_doing(struct node *n, char *buf, size_t len);

#endif
