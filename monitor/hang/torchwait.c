/* SPDX-License-Identifier: BSD-3-Clause */
/* torchwait — the collective records matched across ranks (torchwait.h). Bounded: at most
 * MAX_RANKS ranks with records are read and MAX_STREAMS (group, kind) pairs matched. */
#include "torchwait.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/ranges.h"
#include "report_util.h"
#include "snapclass.h"
#include "waitfor_graph.h"
#include "../../record/torch_format.h"

#define MAX_RANKS 65536
#define MAX_STREAMS 64
#define MAX_GROUPS 64 /* the job's distinct process groups matched (more: not matched) */
#define KEY_LEN 160

struct call {
	int group;
	const char *kind; /* "collective", "ddp", "p2p" */
	long long seq;
	const char *op, *site;
	int peer;
};

/* A process group is known across ranks by its members and its place among this rank's groups
 * with the same members, not by its slot: a rank that is no member need not create it (torch's
 * use_local_synchronization), so slots may differ from rank to rank. Calls' groups below are
 * these job-wide ids; slot_of maps one back to the rank's own slot. */
struct rank_rec {
	int rank;
	json_t *rec;
	int slot_of[MAX_GROUPS]; /* -1: the rank has no such group */
	bool in;           /* in a call now */
	struct call cur;   /* the latest call (in it when in) */
	bool has_prev;
	struct call prev;  /* the collective before it */
};

struct stream {
	int group;
	const char *kind;
	long long seq;        /* the most waiters' call number */
	const char *op, *site;
	int *waiting, nwaiting;
};

static void call_read(json_t *o, struct call *c)
{
	c->group = (int)json_integer_value(json_object_get(o, "group"));
	c->kind = str(o, "kind");
	c->seq = json_integer_value(json_object_get(o, "seq"));
	c->op = str(o, "op");
	c->site = str(o, "site");
	c->peer = json_object_get(o, "peer") ? (int)json_integer_value(json_object_get(o, "peer")) : -1;
}

static json_t *group_of(const struct rank_rec *r, int group)
{
	if (group < 0 || group >= MAX_GROUPS || r->slot_of[group] < 0)
		return NULL;
	return json_array_get(json_object_get(r->rec, "groups"), (size_t)r->slot_of[group]);
}

static bool member_of(const struct rank_rec *r, int group)
{
	return json_is_true(json_object_get(group_of(r, group), "member"));
}

/* How many calls of kind the rank has entered on group. */
static long long entered(const struct rank_rec *r, int group, const char *kind)
{
	return json_integer_value(json_array_get(json_object_get(group_of(r, group), same(kind, "ddp") ? "ddp" :
									       "collectives"), 0));
}

static const char *file_name(const char *site)
{
	const char *slash = site ? strrchr(site, '/') : NULL;

	return slash ? slash + 1 : site ? site : "?";
}

/* A group's listed members as ranges ("1-3"); how many were listed. */
static int group_members(json_t *g, char *buf, size_t len)
{
	json_t *v;
	int listed[TORCHREC_LISTED], n = 0;
	size_t i;

	json_array_foreach(json_object_get(g, "ranks"), i, v)
		if (n < TORCHREC_LISTED)
			listed[n++] = (int)json_integer_value(v);
	ranges_format(listed, n, buf, len);
	return n;
}

/* "the default group", or "group 2 (ranks 1-3)". */
static void group_name(const struct rank_rec *r, int group, char *buf, size_t len)
{
	json_t *g = group_of(r, group);
	char list[128];

	if (g && r->slot_of[group] == 0) {
		snprintf(buf, len, "the default group");
		return;
	}

	int n = group_members(g, list, sizeof(list));

	snprintf(buf, len, "group %d (ranks %s%s)", g ? r->slot_of[group] : -1, list,
		 json_integer_value(json_object_get(g, "size")) > n ? ", ..." : "");
}

static bool call_same(const struct call *a, const struct call *b)
{
	return a->group == b->group && same(a->kind, b->kind) && a->seq == b->seq;
}

/* The job-wide id of a rank's group in slot, its key added to keys[] (*nkeys of them) when new;
 * -1 when the table is full. */
static int group_id(json_t *groups, int slot, char keys[][KEY_LEN], int *nkeys)
{
	json_t *g = json_array_get(groups, (size_t)slot);
	int same_before = 0;
	char list[128], key[KEY_LEN];

	group_members(g, list, sizeof(list));
	/* The n-th group of this rank with these members is the n-th on every member. */
	for (int k = 0; k < slot; k++) {
		json_t *o = json_array_get(groups, (size_t)k);

		same_before += json_equal(json_object_get(o, "ranks"), json_object_get(g, "ranks")) &&
			       json_equal(json_object_get(o, "size"), json_object_get(g, "size"));
	}
	snprintf(key, sizeof(key), "%lld|%s|%d", json_integer_value(json_object_get(g, "size")), list, same_before);
	for (int k = 0; k < *nkeys; k++)
		if (!strcmp(keys[k], key))
			return k;
	if (*nkeys == MAX_GROUPS)
		return -1;
	snprintf(keys[*nkeys], KEY_LEN, "%s", key);
	return (*nkeys)++;
}

/* The rank's slots as job-wide ids, its calls' groups rewritten to them. */
static void rank_groups(struct rank_rec *x, char keys[][KEY_LEN], int *nkeys)
{
	json_t *groups = json_object_get(x->rec, "groups");
	int ids[TORCHREC_GROUPS];
	/* The reader keeps at most TORCHREC_GROUPS; a snapshot from elsewhere is held to it. */
	int n = json_array_size(groups) < TORCHREC_GROUPS ? (int)json_array_size(groups) : TORCHREC_GROUPS;

	for (int k = 0; k < MAX_GROUPS; k++)
		x->slot_of[k] = -1;
	for (int i = 0; i < n; i++)
		if ((ids[i] = group_id(groups, i, keys, nkeys)) >= 0)
			x->slot_of[ids[i]] = i;
	x->cur.group = x->cur.group >= 0 && x->cur.group < n ? ids[x->cur.group] : -1;
	x->prev.group = x->prev.group >= 0 && x->prev.group < n ? ids[x->prev.group] : -1;
	x->in &= x->cur.group >= 0;
	x->has_prev &= x->prev.group >= 0;
}

/* The ranks with records, in rank order. */
static int rank_recs(json_t *snap, struct rank_rec **out)
{
	struct snapview v;
	int n = 0, nkeys = 0;
	static __thread char keys[MAX_GROUPS][KEY_LEN];

	*out = NULL;
	if (snapview_open(&v, snap) < 0)
		return 0;
	*out = calloc((size_t)(v.size < MAX_RANKS ? v.size : MAX_RANKS) + 1, sizeof(**out));
	for (int r = 0; *out && r < v.size && n < MAX_RANKS; r++) {
		json_t *rec = v.at[r] ? json_object_get(v.at[r], "collectives") : NULL;
		struct rank_rec *x = &(*out)[n];

		if (!rec || same(str(v.at[r], "state"), "EXITED"))
			continue;
		x->rank = r;
		x->rec = rec;
		x->in = json_is_true(json_object_get(rec, "in_op")) && json_object_get(rec, "current");
		if (json_object_get(rec, "current"))
			call_read(json_object_get(rec, "current"), &x->cur);
		x->has_prev = json_object_get(rec, "previous") != NULL;
		if (x->has_prev)
			call_read(json_object_get(rec, "previous"), &x->prev);
		rank_groups(x, keys, &nkeys);
		n++;
	}
	snapview_close(&v);
	return n;
}

/* The (group, kind) pairs ranks wait in, each with its waiters and their most common call. */
static int streams_of(struct rank_rec *rr, int n, struct stream *st)
{
	int ns = 0;

	for (int i = 0; i < n; i++) {
		int k = 0;

		if (!rr[i].in || same(rr[i].cur.kind, "p2p"))
			continue;
		while (k < ns && !(st[k].group == rr[i].cur.group && same(st[k].kind, rr[i].cur.kind)))
			k++;
		if (k == ns) {
			if (ns == MAX_STREAMS)
				continue;
			st[ns] = (struct stream){ .group = rr[i].cur.group, .kind = rr[i].cur.kind,
						   .waiting = calloc((size_t)n, sizeof(int)) };
			if (!st[ns].waiting)
				continue;
			ns++;
		}
		st[k].waiting[st[k].nwaiting++] = i;
	}
	/* Each stream's call: the (number, op) most of its waiters are in. */
	for (int k = 0; k < ns; k++) {
		int best = 0;

		for (int a = 0; a < st[k].nwaiting; a++) {
			const struct call *c = &rr[st[k].waiting[a]].cur;
			int votes = 0;

			for (int b = 0; b < st[k].nwaiting; b++)
				votes += rr[st[k].waiting[b]].cur.seq == c->seq && same(rr[st[k].waiting[b]].cur.op, c->op);
			if (votes > best) {
				best = votes;
				st[k].seq = c->seq;
				st[k].op = c->op;
				st[k].site = c->site;
			}
		}
	}
	return ns;
}

static void ranks_text(const struct rank_rec *rr, const int *idx, int n, char *buf, size_t len)
{
	int *ranks = calloc((size_t)n + 1, sizeof(int));

	for (int i = 0; ranks && i < n; i++)
		ranks[i] = rr[idx[i]].rank;
	ranges_format(ranks, ranks ? n : 0, buf, len);
	free(ranks);
}

/* What a rank behind is doing instead, for a sentence. */
static void doing(const struct rank_rec *r, char *buf, size_t len)
{
	if (r->in && same(r->cur.kind, "p2p") && r->cur.peer >= 0)
		snprintf(buf, len, "waits in %s %s rank %d at %s", r->cur.op, same(r->cur.op, "recv") ||
			 same(r->cur.op, "irecv") ? "from" : "to", r->cur.peer, file_name(r->cur.site));
	else if (r->in)
		snprintf(buf, len, "waits in %s #%lld at %s", r->cur.op, r->cur.seq, file_name(r->cur.site));
	else
		snprintf(buf, len, "is in no torch.distributed call (its stack says where)");
}

/* Ranks of one stream in another call than most of its waiters. */
static void stream_deviants(struct rank_rec *rr, const struct stream *s, json_t *out)
{
	int odd[64], nodd = 0;
	char group[160], who[128];

	for (int a = 0; a < s->nwaiting && nodd < 64; a++) {
		const struct call *c = &rr[s->waiting[a]].cur;

		if (c->seq != s->seq || !same(c->op, s->op))
			odd[nodd++] = s->waiting[a];
	}
	if (!nodd)
		return;

	int most = s->nwaiting - nodd;
	const char *evidence = most > nodd && most >= 2 ? "certain" : "likely";

	group_name(&rr[s->waiting[0]], s->group, group, sizeof(group));
	for (int a = 0; a < nodd; a++) {
		const struct call *c = &rr[odd[a]].cur;

		wf_culprit(json_object_get(out, "culprits"), rr[odd[a]].rank, evidence,
			   "it is in %s #%lld of %s at %s, where %d other rank%s wait%s in %s #%lld at %s: "
			   "every rank of a group must call its collectives in one order", c->op, c->seq, group,
			   file_name(c->site), most, most == 1 ? "" : "s", most == 1 ? "s" : "", s->op, s->seq,
			   file_name(s->site));
	}
	ranks_text(rr, odd, nodd, who, sizeof(who));
	wf_say(json_object_get(out, "diagnosis"), "%s: rank(s) %s in another call than the others' %s #%lld (%s)",
	       group, who, s->op, s->seq, file_name(s->site));
}

/* Of the members of both streams' groups who came from prev: how many went to s. */
static int went_to(struct rank_rec *rr, const struct stream *s, int other_group, const struct call *prev)
{
	int n = 0;

	for (int a = 0; a < s->nwaiting; a++) {
		const struct rank_rec *w = &rr[s->waiting[a]];

		n += member_of(w, other_group) && w->has_prev && call_same(&w->prev, prev);
	}
	return n;
}

static const struct stream *stream_holding(const struct stream *st, int ns, const struct rank_rec *r)
{
	for (int k = 0; k < ns; k++)
		if (r->in && st[k].group == r->cur.group && same(st[k].kind, r->cur.kind))
			return &st[k];
	return NULL;
}

/* The members of s's group behind its call. */
static void stream_behind(struct rank_rec *rr, int n, const struct stream *st, int ns, const struct stream *s,
			  json_t *out)
{
	char group[160], waiting[128], what[200];
	int *behind = calloc((size_t)n + 1, sizeof(int)), nb = 0;

	if (!behind)
		return;
	group_name(&rr[s->waiting[0]], s->group, group, sizeof(group));
	ranks_text(rr, s->waiting, s->nwaiting, waiting, sizeof(waiting));
	for (int i = 0; i < n; i++) {
		struct rank_rec *r = &rr[i];
		const struct stream *elsewhere = stream_holding(st, ns, r);
		long long got = entered(r, s->group, s->kind);

		if (!member_of(r, s->group) || elsewhere == s || got >= s->seq)
			continue;
		behind[nb++] = i;
		doing(r, what, sizeof(what));
		if (!elsewhere) {
			wf_culprit(json_object_get(out, "culprits"), r->rank, "certain",
				   "behind on %s: it has entered %lld %s and %s, while rank%s %s wait%s in %s #%lld at %s",
				   group, got, same(s->kind, "ddp") ? "DDP gradient all-reduces" : "collectives", what,
				   s->nwaiting > 1 ? "s" : "", waiting, s->nwaiting > 1 ? "" : "s", s->op, s->seq,
				   file_name(s->site));
			continue;
		}
		if (!r->has_prev)
			continue;

		/* It waits in another group's call: who of both groups' members took which way
		 * after the call they all came from. */
		int here = went_to(rr, s, elsewhere->group, &r->prev);
		int there = went_to(rr, elsewhere, s->group, &r->prev);

		char from[160], other[160];

		group_name(r, r->prev.group, from, sizeof(from));
		group_name(r, elsewhere->group, other, sizeof(other));
		if (there < here)
			wf_culprit(json_object_get(out, "culprits"), r->rank, "certain",
				   "it skipped %s #%lld of %s at %s: after %s #%lld of %s, %d of the ranks in both "
				   "groups went on to it and %d to %s #%lld of %s, where it %s", s->op, s->seq, group,
				   file_name(s->site), same(r->prev.kind, "ddp") ? "DDP gradient all-reduce" : "collective",
				   r->prev.seq, from, here, there, elsewhere->op, elsewhere->seq, other, what);
		else if (there == here)
			wf_culprit(json_object_get(out, "culprits"), r->rank, "likely",
				   "it is not in %s #%lld of %s, and as many of both groups' ranks went each way "
				   "after the same call; it %s", s->op, s->seq, group, what);
	}
	if (nb) {
		char who[128];

		ranks_text(rr, behind, nb, who, sizeof(who));
		wf_say(json_object_get(out, "diagnosis"), "rank%s %s wait%s in %s #%lld of %s at %s; rank%s %s never "
		       "entered it", s->nwaiting > 1 ? "s" : "", waiting, s->nwaiting > 1 ? "" : "s", s->op, s->seq, group,
		       file_name(s->site), nb > 1 ? "s" : "", who);
	}
	json_array_append_new(json_object_get(out, "calls"),
			      json_pack("{s:i, s:s, s:s?, s:I, s:s?, s:s, s:o}", "group",
					rr[s->waiting[0]].slot_of[s->group], "kind", s->kind,
					"op", s->op, "seq", (json_int_t)s->seq, "site", s->site, "waiting", waiting,
					"behind", json_array()));
	json_t *b = json_object_get(json_array_get(json_object_get(out, "calls"),
						   json_array_size(json_object_get(out, "calls")) - 1), "behind");

	for (int i = 0; i < nb; i++)
		json_array_append_new(b, json_integer(rr[behind[i]].rank));
	free(behind);
}

/* A certain culprit makes the likely ones noise. */
static void keep_certain(json_t *culprits)
{
	bool certain = false;
	size_t i;
	json_t *c;

	json_array_foreach(culprits, i, c)
		certain |= same(str(c, "evidence"), "certain");
	for (i = json_array_size(culprits); certain && i-- > 0;)
		if (!same(str(json_array_get(culprits, i), "evidence"), "certain"))
			json_array_remove(culprits, i);
	wf_culprits_unique(culprits);
}

json_t *torchwait_analyze(json_t *snap)
{
	struct rank_rec *rr;
	int n = rank_recs(snap, &rr);
	struct stream st[MAX_STREAMS];

	if (!n) {
		free(rr);
		return NULL;
	}

	int ns = streams_of(rr, n, st);
	json_t *out = json_pack("{s:[], s:[], s:[]}", "culprits", "diagnosis", "calls");

	for (int k = 0; k < ns; k++) {
		stream_deviants(rr, &st[k], out);
		stream_behind(rr, n, st, ns, &st[k], out);
	}
	keep_certain(json_object_get(out, "culprits"));
	for (int k = 0; k < ns; k++)
		free(st[k].waiting);
	free(rr);
	return out;
}

/* The MPI record's wait-for analysis (wf, NULL when no rank has one) with torch.distributed's
 * collective records' (torchwait.h): their culprits where MPI's name none, their sentences
 * after MPI's, their calls under "torch_calls". */
json_t *torchwait_merge(json_t *wf, json_t *snap)
{
	json_t *tw = torchwait_analyze(snap);

	if (!tw)
		return wf;
	if (!wf)
		wf = json_pack("{s:[], s:[]}", "culprits", "diagnosis");
	if (!json_array_size(json_object_get(wf, "culprits")))
		json_object_set(wf, "culprits", json_object_get(tw, "culprits"));
	json_array_extend(json_object_get(wf, "diagnosis"), json_object_get(tw, "diagnosis"));
	json_object_set(wf, "torch_calls", json_object_get(tw, "calls"));
	json_decref(tw);
	return wf;
}

bool torchwait_any_record(json_t *snap)
{
	size_t i;
	json_t *r;

	json_array_foreach(snap, i, r)
		if (json_object_get(r, "collectives"))
			return true;
	return false;
}
