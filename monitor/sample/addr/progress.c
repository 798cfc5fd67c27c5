/* SPDX-License-Identifier: BSD-3-Clause */
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

/* The outermost frame inside the MPI library (the MPI call the application made) or, when
 * init_at is further out, the runtime's start-up frame (MPI_Init, torch's TCPStore: its connect
 * retries alternate between a sleep and a connect in frames of its own, none of them progress),
 * or -1. */
static int mpi_entry(const struct maps *mp, const uint64_t *ips, int n, int init_at)
{
	for (int i = n - 1; i > init_at; i--)
		if (maps_kind_at(mp, frame_lookup_pc(ips, i)) == MODULE_MPI)
			return i;
	return init_at;
}

struct progress_print progress_fingerprint(const struct maps *mp, const uint64_t *ips,
					   const uint64_t *fhash, int n, int init_at, struct progress_loops *loops)
{
	bool polling;
	int cut = fingerprint_cut(mp, ips, n, &polling, loops);
	int entry = mpi_entry(mp, ips, n, init_at);
	/* The application's side: every frame outside MPI (all of them when none is in it). */
	int app_end = entry >= 0 ? entry + 1 : (cut > 0 ? cut : 0);
	bool entry_polls = entry >= 0 && maps_in_polling_call(mp, frame_lookup_pc(ips, entry));
	struct progress_print fp = { .app = (uint64_t)(n - app_end) + 1, .inner = 0 };

	for (int i = n - 1; i >= app_end; i--) {
		/* The polling loop's frame: where it calls from is not progress, its state is. */
		if (!(entry_polls && i == entry + 1))
			fp.app = progress_mix(fp.app, ips[i]);
		fp.app = progress_mix(fp.app, fhash[i]);
	}
	for (int i = app_end - 1; i >= cut; i--) {
		if (!(polling && i == cut))
			fp.inner = progress_mix(fp.inner, ips[i]);
		fp.inner = progress_mix(fp.inner, fhash[i]);
	}
	if (fp.app == 0)
		fp.app = 1; /* 0 means "no fingerprint" */
	return fp;
}

bool progress_same_outside(const struct progress *p, int state, struct progress_print fp)
{
	if (state != RANK_OUT_MPI || fp.app == 0)
		return false;
	if (p->base.known)
		return fp.app == p->base_app;
	return p->seq > 0 && p->state == RANK_OUT_MPI && fp.app == p->fp.app;
}

/* More CPU since the base than a blocked rank's share of the samples' stops. */
static bool cpu_busy(const struct progress *p, double t_ms, const struct proc_activity *a)
{
	double used = (double)a->cpu_ms - (double)p->base.cpu_ms;

	return used >= PROGRESS_BUSY_CPU_MS && used >= PROGRESS_BUSY_SHARE * (t_ms - p->base_ms);
}

static void outside_base(struct progress *p, double t_ms, uint64_t app, const struct proc_activity *a)
{
	p->base = *a;
	p->base_app = app;
	p->base_ms = t_ms;
	p->off_base = 0;
}

enum progress_outside progress_outside_update(struct progress *p, double t_ms, bool outside,
					      struct progress_print fp, const struct proc_activity *a)
{
	bool after_out = p->seq > 0 && p->state == RANK_OUT_MPI && p->fp.app != 0;

	if (!outside || fp.app == 0) {
		p->base.known = false;
		return PROGRESS_OUTSIDE_UNKNOWN;
	}
	if (!p->base.known) {
		if (after_out && fp.app != p->fp.app)
			return PROGRESS_OUTSIDE_BUSY; /* computing: another stack at each sample */
		if (after_out && a->known)
			outside_base(p, t_ms, fp.app, a);
		return PROGRESS_OUTSIDE_UNKNOWN;
	}
	/* Off the stack it stood in: one odd capture (caught restarting its system call) is no
	 * move; PROGRESS_OFF_BASE in a row are. */
	if (fp.app != p->base_app) {
		if (++p->off_base < PROGRESS_OFF_BASE)
			return PROGRESS_OUTSIDE_UNKNOWN;
		p->base.known = false;
		return PROGRESS_OUTSIDE_BUSY;
	}
	p->off_base = 0;
	if (!a->known)
		return PROGRESS_OUTSIDE_UNKNOWN;
	if (a->io_bytes != p->base.io_bytes || cpu_busy(p, t_ms, a)) {
		outside_base(p, t_ms, fp.app, a);
		return PROGRESS_OUTSIDE_BUSY;
	}
	return PROGRESS_OUTSIDE_IDLE;
}

char progress_code(enum progress_result r, enum progress_part part, enum progress_outside o, bool in_kernel,
		   bool in_init)
{
	char c = 'u';

	if (in_kernel)
		c = 'k';
	else if (o == PROGRESS_OUTSIDE_IDLE)
		c = 'w';
	else if (o == PROGRESS_OUTSIDE_BUSY)
		c = 'b';
	else if (r == PROGRESS_MOVED)
		c = part == PROGRESS_PART_STATE ? 'm' : 'a';
	else if (r == PROGRESS_STILL)
		c = part == PROGRESS_PART_INNER ? 'i' : 's';
	else if (r == PROGRESS_OUT)
		c = 'o';
	return in_init ? (char)(c - 'a' + 'A') : c;
}

enum progress_result progress_update(struct progress *p, long seq, long since, int state,
				     struct progress_print fp, enum progress_part *part)
{
	enum progress_result r = PROGRESS_UNKNOWN;
	enum progress_part what = PROGRESS_PART_NONE;

	if (part)
		*part = PROGRESS_PART_NONE;
	/* Waiting in MPI with no fingerprint (an unwind cut short): no evidence, and the previous
	 * sample stays the one to compare with. */
	if (state == RANK_IN_MPI && fp.app == 0)
		return PROGRESS_UNKNOWN;
	/* Only a recent sample compares: a rank's set is sampled in turns, and its first sample
	 * after the other set's turn would compare with one from before it - "moved" then says
	 * nothing of the stretch since (a hang's first quiet stretch was ended by it and taught
	 * to the stall model as a healthy 24 s standstill: bench/livesinmpi.sh, the ring). */
	if (p->seq > 0 && p->seq >= since && seq - p->seq <= PROGRESS_MAX_GAP) {
		if (state != p->state) {
			r = PROGRESS_MOVED;
			what = PROGRESS_PART_STATE;
		} else if (state == RANK_OUT_MPI) {
			r = PROGRESS_OUT;
		} else if (fp.app != p->fp.app) {
			r = PROGRESS_MOVED;
			what = PROGRESS_PART_APP;
		} else {
			r = PROGRESS_STILL;
			what = fp.inner != p->fp.inner ? PROGRESS_PART_INNER : PROGRESS_PART_NONE;
		}
	}
	p->seq = seq;
	p->fp = fp;
	p->state = state;
	if (part)
		*part = what;
	return r;
}
