/* SPDX-License-Identifier: BSD-3-Clause */
/* snapclass — a snapshot in classes (snapclass.h). */
#include "snapclass.h"

#include <stdlib.h>
#include <string.h>

#include "../../base/ranges.h"
#include "report_util.h"

struct member {
	int rank, pid;
};

/* A class (its body and members), or a host (its name as the body, pids unused). */
struct cls {
	json_t *body;
	struct member *m;
	int n, cap;
};

struct table {
	struct cls *c;
	int n, cap;
	json_t *index; /* the body's text → its place in c */
};

struct snapclass {
	struct table classes, hosts;
	long count;
	bool formed; /* snapclass_form was called: no more adding */
};

struct snapclass *snapclass_new(void)
{
	struct snapclass *s = calloc(1, sizeof(*s));

	if (s && (!(s->classes.index = json_object()) || !(s->hosts.index = json_object()))) {
		snapclass_free(s);
		return NULL;
	}
	return s;
}

static void table_free(struct table *t)
{
	for (int i = 0; i < t->n; i++) {
		json_decref(t->c[i].body);
		free(t->c[i].m);
	}
	free(t->c);
	json_decref(t->index);
}

void snapclass_free(struct snapclass *s)
{
	if (!s)
		return;
	table_free(&s->classes);
	table_free(&s->hosts);
	free(s);
}

long snapclass_count(const struct snapclass *s)
{
	return s->count;
}

/* The entry for key, made (with body, borrowed) when new; NULL when out of memory. */
static struct cls *table_find(struct table *t, const char *key, json_t *body)
{
	json_t *at = json_object_get(t->index, key);

	if (at)
		return &t->c[json_integer_value(at)];
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		struct cls *bigger = realloc(t->c, (size_t)cap * sizeof(*bigger));

		if (!bigger)
			return NULL;
		t->c = bigger;
		t->cap = cap;
	}
	if (json_object_set_new(t->index, key, json_integer(t->n)) < 0)
		return NULL;
	t->c[t->n] = (struct cls){ json_incref(body), NULL, 0, 0 };
	return &t->c[t->n++];
}

static int cls_add(struct cls *c, int rank, int pid)
{
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 4;
		struct member *bigger = realloc(c->m, (size_t)cap * sizeof(*bigger));

		if (!bigger)
			return -1;
		c->m = bigger;
		c->cap = cap;
	}
	c->m[c->n++] = (struct member){ rank, pid };
	return 0;
}

/* Add members to the entry of body (borrowed) in t. */
static int table_add(struct table *t, json_t *body, const struct member *m, int n)
{
	char *key = json_dumps(body, JSON_COMPACT | JSON_ENCODE_ANY);
	struct cls *c = key ? table_find(t, key, body) : NULL;
	int rc = c ? 0 : -1;

	for (int i = 0; c && i < n && rc == 0; i++)
		rc = cls_add(c, m[i].rank, m[i].pid);
	free(key);
	return rc;
}

/* Thread ids made relative to the rank's pid (dir -1) or absolute again (dir +1), in a copy of
 * an array of calls or requests. */
static json_t *tids_shifted(json_t *arr, json_int_t pid, int dir)
{
	json_t *out = json_array(), *e;
	size_t i;

	json_array_foreach(arr, i, e) {
		json_t *tid = json_object_get(e, "tid");

		if (json_is_integer(tid)) {
			json_t *c = json_copy(e);

			json_object_set_new(c, "tid", json_integer(json_integer_value(tid) + dir * pid));
			json_array_append_new(out, c);
		} else {
			json_array_append(out, e);
		}
	}
	return out;
}

/* A record as its class holds it (dir -1: no world_rank, relative thread ids) or as the rank's
 * own (dir +1: world_rank put back after the library's name). */
static json_t *record_shifted(json_t *rec, json_int_t rank, json_int_t pid, int dir)
{
	json_t *out = json_object(), *v;
	const char *k;

	json_object_foreach(rec, k, v) {
		if (!strcmp(k, "world_rank"))
			continue;
		if ((!strcmp(k, "calls") || !strcmp(k, "requests")) && json_is_array(v))
			json_object_set_new(out, k, tids_shifted(v, pid, dir));
		else
			json_object_set(out, k, v);
		if (dir > 0 && !strcmp(k, "library"))
			json_object_set_new(out, "world_rank", json_integer(rank));
	}
	if (dir > 0 && !json_object_get(out, "world_rank"))
		json_object_set_new(out, "world_rank", json_integer(rank));
	return out;
}

int snapclass_add_rank(struct snapclass *s, json_t *rank)
{
	json_t *r = json_object_get(rank, "rank"), *body, *v;
	json_int_t pid = json_integer_value(json_object_get(rank, "pid"));
	const char *k, *host = str(rank, "host");
	int rc;

	if (s->formed || !json_is_integer(r) || json_integer_value(r) < 0 || json_integer_value(r) >= SNAPCLASS_MAX_RANKS ||
	    !(body = json_object()))
		return -1;
	json_object_foreach(rank, k, v) {
		if (!strcmp(k, "rank") || !strcmp(k, "host") || !strcmp(k, "pid"))
			continue;
		if (!strcmp(k, "record") && json_is_object(v))
			json_object_set_new(body, k, record_shifted(v, 0, pid, -1));
		else
			json_object_set(body, k, v);
	}

	struct member m = { (int)json_integer_value(r), (int)pid };
	json_t *h = json_string(host ? host : "");

	rc = table_add(&s->classes, body, &m, 1);
	rc = rc < 0 ? rc : table_add(&s->hosts, h, &m, 1);
	s->count += rc == 0;
	json_decref(h);
	json_decref(body);
	return rc;
}

/* A part's entry (a class or a host): its members, from "ranks" and (if pids) "pids". */
static struct member *entry_members(json_t *e, bool pids, int *n)
{
	int nr = 0, np = 0;
	int *r = ranges_parse(str(e, "ranks"), &nr, SNAPCLASS_MAX_RANKS);
	int *p = pids ? ranges_parse(str(e, "pids"), &np, SNAPCLASS_MAX_RANKS) : NULL;
	struct member *m = r && (!pids || (p && np == nr)) ? calloc((size_t)nr + 1, sizeof(*m)) : NULL;

	for (int i = 0; m && i < nr; i++) {
		if (r[i] >= SNAPCLASS_MAX_RANKS) { /* ranks past the bound: the entry is malformed */
			free(m);
			m = NULL;
			break;
		}
		m[i] = (struct member){ r[i], pids ? p[i] : 0 };
	}
	*n = m ? nr : 0;
	free(p);
	free(r);
	return m;
}

static int add_entries(struct table *t, json_t *entries, const char *body_key, bool pids, long *count)
{
	size_t i;
	json_t *e;
	int rc = 0;

	json_array_foreach(entries, i, e) {
		json_t *body = json_object_get(e, body_key);
		int n = 0;
		struct member *m = body ? entry_members(e, pids, &n) : NULL;

		if (!m || table_add(t, body, m, n) < 0)
			rc = -1;
		else if (count)
			*count += n;
		free(m);
	}
	return rc;
}

int snapclass_add_form(struct snapclass *s, json_t *form)
{
	if (s->formed)
		return -1;
	int a = add_entries(&s->classes, json_object_get(form, "classes"), "body", true, &s->count);
	int b = add_entries(&s->hosts, json_object_get(form, "hosts"), "host", false, NULL);

	return a < 0 || b < 0 ? -1 : 0;
}

static int compare_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int compare_cls(const void *a, const void *b)
{
	const struct cls *x = a, *y = b;
	int rx = x->n ? x->m[0].rank : -1, ry = y->n ? y->m[0].rank : -1;

	return (rx > ry) - (rx < ry);
}

/* The entries of t as the form holds them, each sorted by rank, sorted by their first rank. */
static json_t *table_json(struct table *t, const char *body_key, bool pids)
{
	json_t *out = json_array();

	for (int i = 0; i < t->n; i++)
		if (t->c[i].n > 0)
			qsort(t->c[i].m, (size_t)t->c[i].n, sizeof(struct member), compare_member);
	if (t->n > 0)
		qsort(t->c, (size_t)t->n, sizeof(struct cls), compare_cls);
	json_object_clear(t->index); /* the places moved: nothing is added once the form is made */
	for (int i = 0; i < t->n; i++) {
		struct cls *c = &t->c[i];
		int *v = calloc((size_t)c->n + 1, sizeof(int));
		char *rr = NULL, *pp = NULL;

		for (int k = 0; v && k < c->n; k++)
			v[k] = c->m[k].rank;
		rr = v ? ranges_dup(v, c->n) : NULL;
		for (int k = 0; v && k < c->n; k++)
			v[k] = c->m[k].pid;
		pp = v && pids ? ranges_dup(v, c->n) : NULL;
		if (rr && (!pids || pp))
			json_array_append_new(out, pids ? json_pack("{s:O, s:s, s:s}", body_key, c->body, "ranks", rr,
								    "pids", pp) :
						    json_pack("{s:O, s:s}", body_key, c->body, "ranks", rr));
		free(pp);
		free(rr);
		free(v);
	}
	return out;
}

json_t *snapclass_form(struct snapclass *s)
{
	s->formed = true;
	return json_pack("{s:o, s:o}", "classes", table_json(&s->classes, "body", true), "hosts",
			 table_json(&s->hosts, "host", false));
}

bool snapclass_is_form(json_t *snap)
{
	return json_is_object(snap) && json_is_array(json_object_get(snap, "classes"));
}

/* Each rank's host name in a form (borrowed from it), indexed by rank below size. */
static const char **hosts_by_rank(json_t *form, int size)
{
	const char **host = calloc((size_t)size + 1, sizeof(char *));
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(form, "hosts"), i, e) {
		int n = 0;
		struct member *m = host ? entry_members(e, false, &n) : NULL;

		for (int k = 0; k < n; k++)
			if (m[k].rank < size)
				host[m[k].rank] = str(e, "host");
		free(m);
	}
	return host;
}

/* One past the highest rank a form holds. */
static int form_size(json_t *form)
{
	size_t i;
	json_t *e;
	int size = 0;

	json_array_foreach(json_object_get(form, "classes"), i, e) {
		int n = 0;
		struct member *m = entry_members(e, false, &n);

		for (int k = 0; k < n; k++)
			size = m[k].rank >= size ? m[k].rank + 1 : size;
		free(m);
	}
	return size;
}

json_t *snapclass_expand(json_t *form)
{
	int size = form_size(form);
	json_t **at = calloc((size_t)size + 1, sizeof(json_t *)), *out = json_array(), *e;
	const char **host = hosts_by_rank(form, size);
	size_t i;

	json_array_foreach(json_object_get(form, "classes"), i, e) {
		int n = 0;
		struct member *m = at && host ? entry_members(e, true, &n) : NULL;

		for (int k = 0; k < n; k++) {
			json_t *o = json_pack("{s:i, s:s?, s:i}", "rank", m[k].rank, "host", host[m[k].rank], "pid",
					      m[k].pid);

			json_object_update(o, json_object_get(e, "body"));
			json_decref(at[m[k].rank]); /* a rank twice: the later one */
			at[m[k].rank] = o;
		}
		free(m);
	}
	for (int r = 0; at && r < size; r++)
		if (at[r])
			json_array_append_new(out, at[r]);
	free(host);
	free(at);
	return out;
}

void snapclass_restore(json_t *rank)
{
	json_t *rec = json_object_get(rank, "record");

	if (json_is_object(rec) && !json_object_get(rec, "world_rank"))
		json_object_set_new(rank, "record", record_shifted(rec, json_integer_value(json_object_get(rank, "rank")),
								    json_integer_value(json_object_get(rank, "pid")), 1));
}

int snapview_open(struct snapview *v, json_t *snap)
{
	bool form = snapclass_is_form(snap);
	size_t i;
	json_t *e;

	v->size = 0;
	v->at = NULL;
	if (form) {
		v->size = form_size(snap);
	} else {
		json_array_foreach(snap, i, e)
			if (rank_of(e) >= v->size && rank_of(e) < SNAPCLASS_MAX_RANKS)
				v->size = rank_of(e) + 1;
	}
	if (!(v->at = calloc((size_t)v->size + 1, sizeof(json_t *))))
		return -1;
	if (!form) {
		json_array_foreach(snap, i, e)
			if (rank_of(e) >= 0 && rank_of(e) < v->size)
				v->at[rank_of(e)] = e;
		return 0;
	}
	json_array_foreach(json_object_get(snap, "classes"), i, e) {
		int n = 0;
		struct member *m = entry_members(e, false, &n);

		for (int k = 0; k < n; k++)
			v->at[m[k].rank] = json_object_get(e, "body");
		free(m);
	}
	return 0;
}

void snapview_close(struct snapview *v)
{
	free(v->at);
	v->at = NULL;
	v->size = 0;
}
