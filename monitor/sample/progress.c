/* progress — fingerprints and their comparison. */
#include "progress.h"

#include <string.h>

#include "classify.h"

uint64_t progress_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = progress_mix(h, w);
	}
	for (; i < n; i++)
		h = progress_mix(h, b[i]);
	return h;
}

/* Where a waiting rank's fingerprint stops, counting from the outermost frame: before the
 * first polling call (MPI_Test*, MPI_Iprobe); else before the frame that calls the progress
 * engine (opal_progress, ...) or, once the stack has entered MPI, a runtime library (sched_yield,
 * poll): that frame is the wait loop, and a blocked rank is caught now in it, now in what it
 * calls; else before the interrupted frame itself when that is in MPI (the same wait loop,
 * caught between two calls). Below the cut a rank blocked for good still changes at every
 * sample; above it, only a rank that gets somewhere does. *polling: the cut is at a polling
 * call, whose caller may alternate between several of them (Iprobe, Testall) without getting
 * anywhere. */
static bool loop_site_known(const struct progress_loops *lp, uint64_t ip)
{
	for (int k = 0; lp && k < lp->n; k++)
		if (lp->site[k] == ip)
			return true;
	return false;
}

static void loop_site_learn(struct progress_loops *lp, uint64_t ip)
{
	if (!lp || loop_site_known(lp, ip))
		return;
	lp->site[lp->next] = ip;
	lp->next = (lp->next + 1) % PROGRESS_LOOP_SITES;
	if (lp->n < PROGRESS_LOOP_SITES)
		lp->n++;
}

static int fingerprint_cut(const struct maps *mp, const uint64_t *ips, int n, bool *polling,
			   struct progress_loops *lp)
{
	bool in_mpi = false;

	*polling = false;
	for (int i = n - 1; i >= 0; i--) {
		uint64_t pc = frame_lookup_pc(ips, i);
		int kind = maps_kind_at(mp, pc);

		if (maps_in_polling_call(mp, pc)) {
			*polling = true;
			return i + 1;
		}
		/* A call site known to call a wait loop: the loop is the frame below. */
		if (kind == MODULE_MPI && i > 0 && loop_site_known(lp, ips[i]))
			return i;
		if (maps_in_progress_engine(mp, pc) || (in_mpi && kind == MODULE_RUNTIME)) {
			bool loop_in_mpi = i + 1 < n && maps_in_mpi(mp, frame_lookup_pc(ips, i + 1));

			if (loop_in_mpi && i + 2 < n)
				loop_site_learn(lp, ips[i + 2]);
			return loop_in_mpi ? i + 2 : i + 1;
		}
		in_mpi |= kind == MODULE_MPI;
	}
	return in_mpi && n > 0 ? 1 : 0;
}

uint64_t progress_fingerprint(const struct maps *mp, const uint64_t *ips, const uint64_t *fhash,
			      int n, struct progress_loops *loops)
{
	bool polling;
	int cut = fingerprint_cut(mp, ips, n, &polling, loops);
	uint64_t h = (uint64_t)(n - cut);

	for (int i = n - 1; i >= cut; i--) {
		/* The polling loop's frame: where it calls from is not progress, its state is. */
		if (!(polling && i == cut))
			h = progress_mix(h, ips[i]);
		h = progress_mix(h, fhash[i]);
	}
	return h;
}

enum progress_result progress_update(struct progress *p, long seq, long since, int state,
				     uint64_t fp)
{
	enum progress_result r = PROGRESS_UNKNOWN;

	/* Waiting in MPI with no fingerprint (an unwind cut short): no evidence, and the previous
	 * sample stays the one to compare with. */
	if (state == RANK_IN_MPI && fp == 0)
		return PROGRESS_UNKNOWN;
	if (p->seq > 0 && p->seq >= since) {
		if (state != p->state)
			r = PROGRESS_MOVED;
		else if (state == RANK_OUT_MPI)
			r = PROGRESS_OUT;
		else
			r = fp == p->fp ? PROGRESS_STILL : PROGRESS_MOVED;
	}
	p->seq = seq;
	p->fp = fp;
	p->state = state;
	return r;
}
