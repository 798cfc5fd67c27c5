/* SPDX-License-Identifier: BSD-3-Clause */
/* mpirecord — reading a rank's psrec_area (record/record_format.h) into the report's JSON. */
#include "mpirecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "../../../record/record_format.h"
#include "../addr/demangle.h"
#include "../safe/textsafe.h"
#include "record_check.h"
#include "../../../base/ranges.h"

#define FUNC_NAME(name, text, kind) text,
static const char *const func_names[] = { PSREC_FUNCS(FUNC_NAME) };
#undef FUNC_NAME

static const char *func_name(uint32_t f)
{
	return f < PSREC_NFUNCS ? func_names[f] : "?";
}

#define FUNC_KIND(name, text, kind) PSREC_KIND_##kind,
static const enum psrec_kind func_kinds[] = { PSREC_FUNCS(FUNC_KIND) };
#undef FUNC_KIND

enum psrec_kind mpirecord_kind_of(const char *func)
{
	for (int f = 1; func && f < PSREC_NFUNCS; f++)
		if (!strcmp(func, func_names[f]))
			return func_kinds[f];
	return PSREC_KIND_NONE;
}

/* A counter added to an entry's, saturating (a rank's counters are its own to forge). */
static json_int_t counter_sum(json_t *e, const char *k, uint64_t add)
{
	json_int_t have = json_integer_value(json_object_get(e, k));
	uint64_t cap = (uint64_t)1 << 52;

	add = add > cap ? cap : add;
	return have + (json_int_t)add > (json_int_t)cap ? (json_int_t)cap : have + (json_int_t)add;
}


/* The copy of a rank's area, one per monitor thread and reused: the area is near a megabyte,
 * and a node's ranks are read one after another, each made JSON before the next is read. */
static __thread struct psrec_area *area_copy;

/* Copy the area out of the rank into area_copy; NULL when it is not there or not this
 * version. */
static struct psrec_area *read_area(const struct target *t)
{
	uint64_t addr = target_record_area(t);

	if (!addr)
		return NULL;

	if (!area_copy && !(area_copy = malloc(sizeof(*area_copy))))
		return NULL;

	struct psrec_area *a = area_copy;
	struct iovec local = { a, sizeof(*a) }, remote = { (void *)(uintptr_t)addr, sizeof(*a) };

	if (process_vm_readv(t->pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(*a) || a->magic != PSREC_MAGIC ||
	    a->version != PSREC_VERSION || a->size != sizeof(*a))
		return NULL;
	return a;
}

static json_t *comm_id(const struct psrec_area *a, int i)
{
	char id[24];

	if (i < 0 || i >= PSREC_COMMS || !a->comms[i].used)
		return json_null();
	snprintf(id, sizeof(id), "%016llx", (unsigned long long)a->comms[i].id);
	return json_string(id);
}

/* Where the area came from: call sites are named through site(arg, caller); pid is the rank's
 * (its main thread's id). */
struct area_view {
	const struct psrec_area *a;
	json_t *(*site)(void *arg, uint64_t caller);
	void *arg;
	pid_t pid;
};

struct site_target {
	const struct target *t;
	struct symbolizer *sy;
};

/* "file:line" (or the function, or the address) of a call site in a live rank. */
static json_t *site_json(void *arg, uint64_t caller)
{
	const struct target *t = ((struct site_target *)arg)->t;
	struct symbolizer *sy = ((struct site_target *)arg)->sy;
	struct sym_frame f[8];
	char buf[700];
	int n;

	if (!caller)
		return json_null();
	n = symbolize(sy, &t->maps, caller, true, f, 8);
	/* The outermost logical frame is the function that made the call. */
	if (n > 0 && f[0].file[0]) {
		const char *base = strrchr(f[0].file, '/');

		snprintf(buf, sizeof(buf), "%s:%d", base ? base + 1 : f[0].file, f[0].line);
	} else if (n > 0 && f[0].func[0]) {
		char name[sizeof(f[0].func)];

		snprintf(buf, sizeof(buf), "%s+0x%llx", demangle_name(f[0].func, name, sizeof(name)) ? name : f[0].func,
			 (unsigned long long)f[0].offset);
	} else {
		/* No symbol (a stripped module: mpi4py's extension, say): module+offset, which
		 * addr2line and objdump read. */
		const struct mapping *m = maps_find(&t->maps, caller);
		const char *path = m ? maps_path(&t->maps, m) : NULL;
		const char *base = path ? strrchr(path, '/') : NULL;

		if (path)
			snprintf(buf, sizeof(buf), "%s+0x%llx", base ? base + 1 : path,
				 (unsigned long long)(caller - m->start + m->offset));
		else
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)caller);
	}
	return json_string(buf);
}

static json_t *calls_json(const struct area_view *v)
{
	const struct psrec_area *a = v->a;
	json_t *calls = json_array();
	uint32_t n = a->nthreads < PSREC_THREADS ? a->nthreads : PSREC_THREADS;

	for (uint32_t i = 0; i < n; i++) {
		const struct psrec_call *c = &a->calls[i];

		if (!psrec_settled(c->seq) || c->func == PSREC_NONE)
			continue;

		json_t *reqs = json_array();

		for (int k = 0; k < c->nreqs && k < PSREC_WAITREQS; k++)
			json_array_append_new(reqs, json_integer(c->reqs[k]));
		json_array_append_new(calls, json_pack(
			"{s:i, s:s, s:o, s:i, s:i, s:i, s:I, s:I, s:o, s:i, s:o, s:b, s:I}", "tid", c->tid,
			"func", func_name(c->func), "comm", comm_id(a, c->comm), "peer", c->peer,
			"tag", c->tag, "root", c->root, "bytes", (json_int_t)c->bytes, "coll_seq",
			(json_int_t)c->coll_seq, "at", v->site(v->arg, c->caller), "nreqs", c->nreqs,
			"reqs", reqs, "main", c->tid == v->pid, "step", (json_int_t)c->step));
	}
	return calls;
}

static json_t *requests_json(const struct area_view *v)
{
	const struct psrec_area *a = v->a;
	json_t *reqs = json_array();

	for (int i = 0; i < PSREC_REQS; i++) {
		const struct psrec_req *r = &a->reqs[i];

		if (!r->used || !psrec_settled(r->seq) || !r->active)
			continue;
		json_array_append_new(reqs, json_pack("{s:i, s:s, s:o, s:i, s:i, s:I, s:b, s:o, s:I, s:i}", "slot", i,
						      "func", func_name(r->func), "comm", comm_id(a, r->comm),
						      "peer", r->peer, "tag", r->tag, "bytes", (json_int_t)r->bytes,
						      "persistent", r->persistent, "at", v->site(v->arg, r->caller),
						      "step", (json_int_t)r->step, "tid", r->tid));
	}
	return reqs;
}

/* The latest collectives on a communicator, oldest first. */
static json_t *history_json(const struct area_view *v, const struct psrec_comm *c)
{
	json_t *h = json_array();

	/* The slots, oldest first: at most PSREC_HISTORY steps whatever coll_seq says. */
	for (int k = PSREC_HISTORY - 1; k >= 0; k--) {
		uint64_t n = c->coll_seq - (uint64_t)k;
		const struct psrec_coll *e = &c->history[n % PSREC_HISTORY];

		if (c->coll_seq < (uint64_t)k + 1 || e->coll_seq != n)
			continue;
		json_array_append_new(h, json_pack("{s:I, s:s, s:i, s:I, s:o}", "coll_seq", (json_int_t)n,
						   "func", func_name(e->func), "root", e->root, "bytes",
						   (json_int_t)e->bytes, "at", v->site(v->arg, e->caller)));
	}
	return h;
}

/* A communicator's members as sorted ranges ("0-3,8"): one ascending or descending run of
 * consecutive ranks is said at once (a million-rank MPI_COMM_WORLD); others are expanded. */
static json_t *members_json(const struct psrec_run *runs, int nruns, int size)
{
	char text[40];

	if (nruns == 1 && (runs[0].count == 1 || runs[0].stride == 1 || runs[0].stride == -1)) {
		int lo = runs[0].stride < 0 ? runs[0].start - (runs[0].count - 1) : runs[0].start;

		if (runs[0].count == 1)
			snprintf(text, sizeof(text), "%d", lo);
		else
			snprintf(text, sizeof(text), "%d-%d", lo, lo + runs[0].count - 1);
		return json_string(text);
	}

	int *sorted = malloc((size_t)size * sizeof(int)), n = 0;
	size_t len = (size_t)size * 12 + 16;
	char *ranges = sorted ? malloc(len) : NULL;
	json_t *out = json_null();

	if (ranges) {
		n = record_members_sorted(runs, nruns, sorted, size);
		ranges_format(sorted, n, ranges, len);
		out = json_string(ranges);
	}
	free(ranges);
	free(sorted);
	return out;
}

/* Each communicator: its members (world ranks, as sorted ranges), and how many collectives
 * this rank has started on it. The members were checked (record_check.h). */
static json_t *comms_json(const struct area_view *v)
{
	const struct psrec_area *a = v->a;

	json_t *comms = json_array();

	for (int i = 0; i < PSREC_COMMS; i++) {
		const struct psrec_comm *c = &a->comms[i];
		json_t *members = json_null();

		if (!c->used || !psrec_settled(c->seq))
			continue;
		if (c->first >= 0) /* runs checked: in the pool, in the job (record_check.c) */
			members = members_json(&a->runs[c->first], c->nruns, c->size);
		json_array_append_new(comms, json_pack("{s:o, s:i, s:I, s:o, s:o, s:b}", "id", comm_id(a, i),
						       "size", c->size, "coll_seq", (json_int_t)c->coll_seq,
						       "members", members, "history", history_json(v, c),
						       "channels_complete", c->chans_lost == 0));
	}
	return comms;
}

/* The point-to-point counters, one entry per envelope (duplicates a race made summed). */
static json_t *channels_json(const struct psrec_area *a)
{
	json_t *chans = json_object();
	char key[96];

	for (int i = 0; i < PSREC_CHANS; i++) {
		const struct psrec_chan *c = &a->chans[i];
		json_t *e;

		if (c->used != 2)
			continue;
		snprintf(key, sizeof(key), "%016llx %d %d", (unsigned long long)c->comm, c->peer, c->tag);
		e = json_object_get(chans, key);
		if (!e) {
			char id[24];

			snprintf(id, sizeof(id), "%016llx", (unsigned long long)c->comm);
			e = json_pack("{s:s, s:i, s:i, s:I, s:I, s:I}", "comm", id, "peer", c->peer, "tag", c->tag,
				      "sent", (json_int_t)0, "posted", (json_int_t)0, "done", (json_int_t)0);
			json_object_set_new(chans, key, e);
		}
		json_object_set_new(e, "sent", json_integer(counter_sum(e, "sent", c->sent)));
		json_object_set_new(e, "posted", json_integer(counter_sum(e, "posted", c->posted)));
		json_object_set_new(e, "done", json_integer(counter_sum(e, "done", c->done)));
	}

	json_t *list = json_array();
	const char *k;
	json_t *v;

	json_object_foreach(chans, k, v)
		json_array_append(list, v);
	json_decref(chans);
	return list;
}

static json_t *area_json(const struct area_view *v)
{
	const struct psrec_area *a = v->a;
	char library[sizeof(a->mpi_library) * 4 + 1];

	text_escape(library, sizeof(library), a->mpi_library, sizeof(a->mpi_library));
	return json_pack("{s:s, s:i, s:b, s:i, s:o, s:o, s:o, s:o, s:b}", "library", library, "world_rank",
			 a->world_rank, "finalized", a->finalized != 0, "dropped", (int)a->dropped, "calls",
			 calls_json(v), "requests", requests_json(v), "comms", comms_json(v), "channels",
			 channels_json(a), "channels_complete", a->chans_lost == 0);
}

/* The area checked, then as JSON; {"unreadable": why} when it fails the check. */
static json_t *checked_json(const struct area_view *v, int job_size, int rank)
{
	char why[200];

	if (!record_check(v->a, job_size, rank, why, sizeof(why)))
		return json_pack("{s:s}", "unreadable", why);
	return area_json(v);
}

/* A forged or test area has no live rank behind it: call sites by address. */
static json_t *site_address(void *arg, uint64_t caller)
{
	char buf[24];

	(void)arg;
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)caller);
	return caller ? json_string(buf) : json_null();
}

json_t *mpirecord_area_json(const struct psrec_area *a, int job_size, int rank)
{
	struct area_view v = { a, site_address, NULL, 0 };

	return checked_json(&v, job_size, rank);
}

json_t *mpirecord_json(const struct target *t, struct symbolizer *sy, int job_size)
{
	struct psrec_area *a = read_area(t);

	if (!a)
		return NULL;

	struct site_target st = { t, sy };
	struct area_view v = { a, site_json, &st, t->pid };
	return checked_json(&v, job_size, t->rank);
}
