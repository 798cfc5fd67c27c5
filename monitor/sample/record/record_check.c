/* SPDX-License-Identifier: BSD-3-Clause */
/* record_check — a rank's record checked before it is read (see record_check.h). */
#include "record_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static bool refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return false;
}

/* A peer as the layer writes it: a world rank in the job, any source, or none. */
static bool peer_ok(int32_t peer, int job_size)
{
	return peer == PSREC_ANY_SOURCE || peer == PSREC_NO_PEER || (peer >= 0 && peer < job_size);
}

static bool calls_ok(const struct psrec_area *a, int job_size, char *why, size_t len)
{
	uint32_t n = a->nthreads < PSREC_THREADS ? a->nthreads : PSREC_THREADS;

	for (uint32_t i = 0; i < n; i++) {
		const struct psrec_call *c = &a->calls[i];

		if (!psrec_settled(c->seq) || c->func == PSREC_NONE)
			continue;
		if (c->func >= PSREC_NFUNCS || c->comm < -1 || c->comm >= PSREC_COMMS || c->nreqs < 0)
			return refuse(why, len, "call slot %u names function %u, communicator %d, %d requests",
				      i, c->func, c->comm, c->nreqs);
		if (!peer_ok(c->peer, job_size) || c->root < -1 || c->root >= job_size)
			return refuse(why, len, "call slot %u names rank %d (root %d) in a job of %d", i,
				      c->peer, c->root, job_size);
		for (int k = 0; k < c->nreqs && k < PSREC_WAITREQS; k++)
			if (c->reqs[k] < -2 || c->reqs[k] >= PSREC_REQS)
				return refuse(why, len, "call slot %u waits on request slot %d", i, c->reqs[k]);
	}
	return true;
}

static bool requests_ok(const struct psrec_area *a, int job_size, char *why, size_t len)
{
	for (int i = 0; i < PSREC_REQS; i++) {
		const struct psrec_req *r = &a->reqs[i];

		if (!r->used || !psrec_settled(r->seq))
			continue;
		if (r->func >= PSREC_NFUNCS || r->comm < -1 || r->comm >= PSREC_COMMS || r->chan < -1 ||
		    r->chan >= PSREC_CHANS || !peer_ok(r->peer, job_size))
			return refuse(why, len, "request slot %d names function %u, communicator %d, rank %d", i,
				      r->func, r->comm, r->peer);
	}
	return true;
}

static bool channels_ok(const struct psrec_area *a, int job_size, char *why, size_t len)
{
	for (int i = 0; i < PSREC_CHANS; i++) {
		const struct psrec_chan *c = &a->chans[i];

		if (c->used == 2 && !peer_ok(c->peer, job_size))
			return refuse(why, len, "point-to-point counter %d names rank %d in a job of %d", i,
				      c->peer, job_size);
	}
	return true;
}

static int compare_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* Member runs of communicators expanded to look for a member twice, per record, at most: a
 * hostile record cannot make the check cost more than a few passes over the job (nor more than
 * 2^24 members whatever the job's size is said to be). */
#define EXPAND_MAX (1 << 24)
static int64_t expand_budget(int job_size)
{
	int64_t b = 4 * (int64_t)job_size + 65536;

	return b < EXPAND_MAX ? b : EXPAND_MAX;
}

/* Communicator i's runs: in member order, each inside the job, their counts its size. */
static bool runs_ok(const struct psrec_area *a, int i, int job_size, char *why, size_t len)
{
	const struct psrec_comm *c = &a->comms[i];
	int64_t at = 0;

	for (int k = 0; k < c->nruns; k++) {
		const struct psrec_run *r = &a->runs[c->first + k];
		int64_t last = (int64_t)r->start + (int64_t)r->stride * (r->count - 1);

		if (r->at != at || r->count < 1 || r->count > c->size || (r->count > 1) != (r->stride != 0))
			return refuse(why, len, "communicator %d's run %d is malformed (at %d, count %d, stride %d)", i, k,
				      r->at, r->count, r->stride);
		if (r->start < 0 || r->start >= job_size || last < 0 || last >= job_size)
			return refuse(why, len, "communicator %d has member %lld in a job of %d", i,
				      (long long)(r->start < 0 || r->start >= job_size ? r->start : last), job_size);
		at += r->count;
	}
	if (at != c->size)
		return refuse(why, len, "communicator %d's runs hold %lld members, not its %d", i, (long long)at, c->size);
	return true;
}

int record_members_sorted(const struct psrec_run *runs, int nruns, int *out, int max)
{
	int n = 0;

	for (int k = 0; k < nruns; k++)
		for (int m = 0; m < runs[k].count && n < max; m++)
			out[n++] = runs[k].start + runs[k].stride * m;
	qsort(out, (size_t)n, sizeof(int), compare_int);
	return n;
}

/* No member twice: one run cannot repeat one (its stride is not 0); several are expanded and
 * sorted, within *budget. */
static bool members_distinct(const struct psrec_area *a, int i, int64_t *budget, char *why, size_t len)
{
	const struct psrec_comm *c = &a->comms[i];
	int n = 0, *scratch;
	bool ok = true;

	if (c->nruns <= 1)
		return true;
	if ((*budget -= c->size) < 0)
		return refuse(why, len, "its communicators' irregular members are too many to check");
	if (!(scratch = malloc((size_t)c->size * sizeof(int))))
		return refuse(why, len, "out of memory checking its communicators");
	n = record_members_sorted(&a->runs[c->first], c->nruns, scratch, c->size);
	for (int k = 1; k < n && ok; k++)
		if (scratch[k] == scratch[k - 1])
			ok = refuse(why, len, "communicator %d has member %d twice", i, scratch[k]);
	free(scratch);
	return ok;
}

struct span {
	int first, size, comm;
};

static int compare_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return (a->first > b->first) - (a->first < b->first);
}

/* One communicator: its size within the job, its runs inside the pool and well formed. */
static bool comm_ok(const struct psrec_area *a, int i, int job_size, char *why, size_t len)
{
	const struct psrec_comm *c = &a->comms[i];

	if (c->size < 1 || c->size > job_size || c->first < -1 || c->first >= PSREC_RUNS ||
	    (c->first >= 0 && (c->nruns < 1 || c->nruns > c->size || c->nruns > PSREC_RUNS - c->first)))
		return refuse(why, len, "communicator %d has %d members in %d runs from %d (pool of %d, job of %d)", i,
			      c->size, c->nruns, c->first, PSREC_RUNS, job_size);
	return c->first < 0 || runs_ok(a, i, job_size, why, len);
}

/* The communicators: each well formed, no member twice, their runs' places in the pool
 * disjoint. */
static bool comms_ok(const struct psrec_area *a, int job_size, char *why, size_t len)
{
	struct span spans[PSREC_COMMS];
	int n = 0;
	int64_t budget = expand_budget(job_size);
	bool ok = true;

	for (int i = 0; i < PSREC_COMMS && ok; i++) {
		const struct psrec_comm *c = &a->comms[i];

		if (!c->used || !psrec_settled(c->seq))
			continue;
		ok = comm_ok(a, i, job_size, why, len) &&
		     (c->first < 0 || members_distinct(a, i, &budget, why, len));
		if (ok && c->first >= 0)
			spans[n++] = (struct span){ c->first, c->nruns, i };
	}
	qsort(spans, (size_t)n, sizeof(spans[0]), compare_span);
	for (int k = 1; k < n && ok; k++)
		if (spans[k - 1].first + spans[k - 1].size > spans[k].first)
			ok = refuse(why, len, "communicators %d and %d share member run %d", spans[k - 1].comm,
				    spans[k].comm, spans[k].first);
	return ok;
}

bool record_check(const struct psrec_area *a, int job_size, int rank, char *why, size_t len)
{
	if (job_size < 1)
		job_size = INT32_MAX;
	if (a->world_rank < 0 || a->world_rank >= job_size || (rank >= 0 && a->world_rank != rank))
		return refuse(why, len, "it says it is rank %d (rank %d of a job of %d)", a->world_rank, rank,
			      job_size);
	return calls_ok(a, job_size, why, len) && requests_ok(a, job_size, why, len) &&
	       channels_ok(a, job_size, why, len) && comms_ok(a, job_size, why, len);
}
