/* SPDX-License-Identifier: BSD-3-Clause */
/* watch — the watch loop: the leader's randomized tick, one sampling round of a rank set (asking
 * the monitors that host its ranks), the followers' replies, the model set up per round, and one
 * round from discovery to the end of the job. What it owns of struct monitor is said in
 * monitor.h. */
#include "watch.h"

#include <string.h>
#include "../sample/stop/cores.h"
#include "../../base/exitcodes.h"
#include "../../base/signals.h"
#include "gather.h"
#include "jobmeta.h"
#include "memory.h"
#include "pipeline.h"
#include "proof.h"
#include "stragglers.h"
#include "../job/job.h"
#include "output.h"

/* Sample the local ranks listed in sample round `round`: count OUT_MPI and live ones, and
 * what each shows of progress since its previous sample (when taken in round `since` on);
 * codes (n letters, may be NULL): each rank's progress letter for the trace. */
static void sample_local(struct monitor *m, const int *ranks, int n, long round, long since,
			 struct sample_counts *c, char *codes, signed char *waits)
{
	for (int i = 0; i < n; i++) {
		int k = job_local_index(&m->job, ranks[i]);
		struct rank_sample s;
		enum progress_result r = PROGRESS_UNKNOWN;
		enum progress_part part = PROGRESS_PART_NONE;
		enum progress_outside o = PROGRESS_OUTSIDE_UNKNOWN;

		if (codes)
			codes[i] = '-';
		waits[i] = -1;
		if (k < 0 || m->job.source->sample(&m->job, k, &s) < 0)
			continue;
		/* The straggler model's evidence, in percent of the time waiting: the recording
		 * layer's clock since the rank's previous sample where it has one, else this sample
		 * (waiting in the runtime, 100, or computing, 0); not while starting up or held in
		 * the kernel (stragglers.c). */
		if (!s.in_init && !s.in_kernel)
			waits[i] = (signed char)(s.wait_share >= 0 ? s.wait_share : s.state == RANK_IN_MPI ? 100 : 0);
		c->live++;
		c->out += s.state == RANK_OUT_MPI;
		c->kernel += s.in_kernel;
		c->init += s.in_init;
		/* A rank held in the kernel cannot be unwound: its sample says nothing of progress. */
		if (!s.in_kernel) {
			o = progress_outside_update(&m->job.prog[k], mono_ms(), s.state == RANK_OUT_MPI && !s.in_init,
						    s.fingerprint, &s.activity);
			/* A rank in MPI_Init or torch's rendezvous waits for the job to start, whatever
			 * its runtime says of the frames it waits in (torch's TCPStore retries its
			 * connect outside any collective): judged as a rank waiting in MPI is. */
			r = progress_update(&m->job.prog[k], round, since, s.in_init ? RANK_IN_MPI : s.state,
					    s.fingerprint, &part);
		}
		c->moved += r == PROGRESS_MOVED;
		c->still += r == PROGRESS_STILL;
		c->idle += o == PROGRESS_OUTSIDE_IDLE;
		c->busy += o == PROGRESS_OUTSIDE_BUSY;
		if (codes)
			codes[i] = progress_code(r, part, o, s.in_kernel, s.in_init);
	}
}

static void counts_add(struct sample_counts *sum, const struct sample_counts *c)
{
	sum->out += c->out;
	sum->live += c->live;
	sum->moved += c->moved;
	sum->still += c->still;
	sum->kernel += c->kernel;
	sum->init += c->init;
	sum->idle += c->idle;
	sum->busy += c->busy;
}

/* A monitor's letters (its ranks in set order) into the round's, at its ranks' places. */
static void codes_place(struct monitor *m, const int *owner, int size, int mon, const char *codes,
			const signed char *waits, int n)
{
	for (int i = 0, k = 0; i < size && k < n; i++)
		if (owner[i] == mon) {
			m->waits[i] = waits[k];
			m->codes[i] = codes[k++];
		}
}

/* Leader: one sample round of the given set, asking the monitors that host its ranks. Each
 * rank is looked up once; the requests go out before the leader samples its own ranks, so all
 * nodes sample at the same time. */
static void sample_set(struct monitor *m, const int *set, int size, struct sample_counts *sum)
{
	int nmine = 0, *owner = m->owner, *batch = m->batch;
	bool *asked = m->asked;
	long round = ++m->round;

	memset(asked, 0, (size_t)m->comm.size * sizeof(bool));
	memset(sum, 0, sizeof(*sum));
	memset(m->codes, '-', (size_t)size);
	memset(m->waits, -1, (size_t)size);
	m->codes[size] = '\0';
	for (int i = 0; i < size; i++) {
		const struct table_entry *e = job_table_find(&m->job, set[i]);

		owner[i] = e ? e->monitor : -1;
		m->index[i] = e ? (int)(e - m->job.table) : -1;
	}
	for (int i = 0; i < size; i++) {
		int mon = owner[i], n = 0;

		if (mon < 0 || mon == m->comm.me || asked[mon] || m->gone[mon])
			continue;
		for (int j = i; j < size; j++)
			if (owner[j] == mon)
				batch[n++] = set[j];
		comm_send_sample(mon, round, m->since, batch, n);
		asked[mon] = true;
		m->cost_messages += 2; /* the command and its reply */
	}
	for (int i = 0; i < size; i++)
		if (owner[i] == m->comm.me)
			batch[nmine++] = set[i];
	sample_local(m, batch, nmine, round, m->since, sum, m->batch_codes, m->batch_waits);
	codes_place(m, owner, size, m->comm.me, m->batch_codes, m->batch_waits, nmine);

	double deadline = mono_ms() + SAMPLE_REPLY_MS;

	for (int mon = 0; mon < m->comm.size; mon++) {
		struct sample_counts c;
		int n = 0;

		if (!asked[mon])
			continue;
		for (int i = 0; i < size; i++)
			n += owner[i] == mon;
		if (comm_recv_counts(mon, round, deadline, &c, m->batch_codes, m->batch_waits, n) < 0)
			gather_leave_out(m, mon, "a sample request in " STR(SAMPLE_REPLY_S) " s");
		codes_place(m, owner, size, mon, m->batch_codes, m->batch_waits, n);
		counts_add(sum, &c);
	}
}

/* Sleep until the monotonic time `until`, waking early when asked to stop or when the job ends. */
static bool wait_until(struct monitor *m, double until)
{
	for (;;) {
		double left = until - mono_ms();

		if (status_requests) {
			status_requests = 0;
			output_say_status(m);
		}
		/* --progress: the first line one period after watching starts, then each period. */
		if (m->w.progress_s > 0 && mono_ms() >= m->next_progress_ms) {
			if (m->next_progress_ms > 0)
				output_say_status(m);
			m->next_progress_ms = mono_ms() + m->w.progress_s * 1e3;
		}
		if (*m->stop || !job_launcher_alive(&m->job))
			return false;
		if (left <= 0)
			return true;
		snapshot_reap_pending();
		job_note_programs(&m->job);
		sleep_ms(left < 250 ? left : 250);
	}
}

/* A set whose ranks have all exited: have the others too? (One sample of every rank.) */
static bool all_ranks_gone(struct monitor *m)
{
	int *all = calloc((size_t)m->job.nranks + 1, sizeof(int));
	struct sample_counts c;

	for (int i = 0; i < m->job.nranks; i++)
		all[i] = m->job.table[i].rank;
	sample_set(m, all, m->job.nranks, &c);
	free(all);
	return c.live == 0;
}

static enum round_end leader_loop(struct monitor *m)
{
	double next = mono_ms();
	long k = 0;

	confirm_init(&m->conf, m->w.confirm_s);
	m->decide = (struct decide){ m->det, &m->stall, &m->conf, false };
	m->init_since_ms = -1;
	m->said_startup = false;
	m->start_up_still_s = -1;
	proof_init(m);
	for (;; k++) {
		if (!wait_until(m, next)) {
			m->job_ended = !*m->stop; /* the launcher's end, not ours */
			return ROUND_NO_HANG;
		}

		double t = mono_ms();
		int set = ranksets_active(&m->sets, k);
		struct sample_counts c;

		output_tick_add(m, next, t);
		sample_set(m, m->sets.set[set], m->sets.size, &c);
		output_cost_add(m, mono_ms() - t, m->sets.size);

		if (c.live == 0 && all_ranks_gone(m)) {
			log_say("the job's ranks have all exited");
			m->job_ended = true;
			return !m->job.pids && job_launcher_alive(&m->job) && !*m->stop ? ROUND_AGAIN : ROUND_NO_HANG;
		}
		if (m->trace) {
			trace_write_point(m->trace, t - m->t0_ms, c.out, m->sets.size, m->codes);
			trace_write_waits(m->trace, m->sets.set[set], m->waits, m->sets.size);
			fflush(m->trace);
		}
		stragglers_round(m, m->index, m->sets.size, m->waits, c.init > 0);

		if (m->memory_pending)
			memory_recall(m);
		if (pipeline_step(m, t, &c) == MONITOR_EXIT_HANG)
			return ROUND_HANG;
		next = t + detector_next_step_ms(m->det);
	}
}

/* Threads seized but not yet stopped (in the kernel) are detached as soon as they stop; ranks
 * that have become their program since are noted (job is the follower's). */
static void reap_pending(void *job)
{
	snapshot_reap_pending();
	job_note_programs(job);
}

/* Serve the leader until it says stop (0, CMD_STOP) or discover again (CMD_AGAIN). */
static int follower_loop(struct monitor *m)
{
	int *ranks = calloc(MAX_RANKS, sizeof(int)), n;
	bool active = false;

	for (int k = 0; k < m->sets.nsets; k++)
		for (int i = 0; i < m->sets.size; i++)
			active |= job_local_index(&m->job, m->sets.set[k][i]) >= 0;
	for (;;) {
		int cmd = comm_wait_cmd(ranks, MAX_RANKS, &n, active ? ACTIVE_POLL_MS : IDLE_POLL_MS,
					m->stop, reap_pending, &m->job);
		struct sample_counts c = { 0 };

		if (cmd == CMD_SAMPLE && n >= 2) {
			sample_local(m, ranks + 2, n - 2, ranks[0], ranks[1], &c, m->batch_codes, m->batch_waits);
			comm_send_counts(ranks[0], &c, m->batch_codes, m->batch_waits, n - 2);
		} else if (cmd == CMD_CORE) {
			json_t *j = cores_dump(m->job.targets, m->job.nlocal, ranks, n, m->w.core_dir ? m->w.core_dir : ".",
					       m->comm.host, &m->job.files_owner);

			comm_send_json(j);
			json_decref(j);
		} else if (cmd == CMD_CAPTURE || cmd == CMD_CAPTURE_RECORD) {
			gather_answer(m, cmd, ranks, n, comm_last_cmd_source());
		} else {
			free(ranks);
			return cmd;
		}
	}
}

static int setup_model(struct monitor *m)
{
	m->last_progress_wall = 0; /* a new MPI run: what the previous one did says nothing */
	m->last_move_wall = 0;
	rng_seed(&m->rng, m->w.opt.model.seed);
	if (ranksets_draw(&m->sets, &m->rng, m->job.nranks, m->w.opt.model.set_size) < 0)
		return -1;
	if (m->trace)
		trace_write_watch(m->trace, m->sets.nsets, m->w.confirm_s);
	/* Sets hold indexes into the table; the table is sorted by rank. */
	for (int k = 0; k < m->sets.nsets; k++)
		for (int i = 0; i < m->sets.size; i++)
			m->sets.set[k][i] = m->job.table[m->sets.set[k][i]].rank;

	struct detector_config cfg = m->w.opt.model;

	m->since = 0;

	cfg.set_size = m->sets.size;
	cfg.nsets = m->sets.nsets;
	m->det = detector_new(&cfg);
	stall_init(&m->stall, cfg.alpha);
	m->owner = calloc((size_t)m->job.nranks + 1, sizeof(int));
	m->batch = calloc((size_t)m->job.nranks + 1, sizeof(int));
	m->asked = calloc((size_t)m->comm.size, sizeof(bool));
	m->codes = calloc((size_t)m->job.nranks + 2, 1);
	m->batch_codes = calloc((size_t)(m->job.nranks > MAX_RANKS ? m->job.nranks : MAX_RANKS) + 2, 1);
	m->waits = calloc((size_t)m->job.nranks + 2, 1);
	m->index = calloc((size_t)m->job.nranks + 2, sizeof(int));
	m->batch_waits = calloc((size_t)(m->job.nranks > MAX_RANKS ? m->job.nranks : MAX_RANKS) + 2, 1);
	if (!m->det || !m->owner || !m->batch || !m->asked || !m->codes || !m->batch_codes || !m->waits ||
	    !m->batch_waits || !m->index)
		return -1;
	if (is_leader(m))
		jobmeta_note_round(m);
	return is_leader(m) ? stragglers_setup(m) : 0;
}

/* Release one round's targets, table and model. */
void watch_round_release(struct monitor *m)
{
	/* First: its entries name ranks through the table freed below. */
	stragglers_round_end(m);
	if (m->job.targets)
		m->job.source->close_targets(&m->job);
	free(m->job.targets);
	free(m->job.prog);
	free(m->job.local_rank);
	free(m->job.table);
	ranksets_free(&m->sets);
	detector_free(m->det);
	free(m->owner);
	free(m->batch);
	free(m->asked);
	free(m->codes);
	free(m->batch_codes);
	free(m->waits);
	free(m->batch_waits);
	free(m->index);
	m->index = NULL;
	m->owner = m->batch = NULL;
	m->asked = NULL;
	m->codes = m->batch_codes = NULL;
	m->waits = m->batch_waits = NULL;
	m->job.targets = NULL;
	m->job.prog = NULL;
	m->job.local_rank = NULL;
	m->job.table = NULL;
	m->det = NULL;
	m->job.nlocal = m->job.nranks = 0;
}

/* One rank claimed by two processes: two MPI runs at once. Under a watch of the whole job (a
 * script's concurrent steps, or the last rank of one run still exiting as the next starts)
 * nothing is wrong with the job: the round ends and discovery looks again each second until one
 * run remains (said once). Ranks the user listed (attach --pids) are a list to correct. */
static enum round_end round_two_runs(struct monitor *m, const struct table_entry *b)
{
	const struct table_entry *a = b - 1;

	if (m->job.pids) {
		if (is_leader(m))
			log_say("error: rank %d is claimed by pid %d on %s and pid %d on %s: the listed "
				"processes belong to more than one MPI job; list the ranks of one",
				b->rank, a->pid, a->host, b->pid, b->host);
		return ROUND_ERROR;
	}
	if (is_leader(m) && !m->said_two_runs)
		log_info("rank %d is claimed by pid %d on %s and pid %d on %s: two MPI runs at once in the "
			 "job; parastack watches one at a time and looks again until one remains",
			 b->rank, a->pid, a->host, b->pid, b->host);
	m->said_two_runs = true;
	return ROUND_AGAIN;
}

/* The highest TORCHELASTIC_RESTART_COUNT of this node's ranks: how often torchrun's agent has
 * started the workers again after a failure (-1: no torchrun workers). */
static int restart_count(const struct job_proc *local, int nlocal)
{
	int most = -1;

	for (int i = 0; i < nlocal; i++)
		most = local[i].restart > most ? local[i].restart : most;
	return most;
}

enum round_end watch_round(struct monitor *m, int round)
{
	static struct job_proc local[MAX_RANKS];
	int nlocal = 0;
	enum round_end end;

	int found = job_discover_all(&m->job, local, &nlocal);

	if (found < 0)
		return found == -2 ? ROUND_ERROR : ROUND_NO_HANG;
	m->job.nranks = comm_allgather_table(&m->comm, local, nlocal, &m->job.table);
	/* Every monitor holds the same table: all of them end the round the same way. */
	const struct table_entry *twice = job_rank_claimed_twice(&m->job);

	if (twice)
		return round_two_runs(m, twice);

	int opened = m->job.source->open_targets(&m->job, local, nlocal);

	/* A rank gone between its discovery and its opening: the MPI run was short (a script's
	 * pre-processing step) and has ended; no error, the job's next run is waited for. */
	if (comm_max(opened == -2)) {
		if (is_leader(m))
			log_info("the job's %d ranks ended before they could be watched (a short MPI run); waiting "
				 "for its next", m->job.nranks);
		return ROUND_AGAIN;
	}
	if (comm_max(opened < 0) || setup_model(m) < 0)
		return ROUND_ERROR;
	m->said_two_runs = false;

	long restart = comm_max(restart_count(local, nlocal));

	if (!is_leader(m))
		return follower_loop(m) == CMD_AGAIN ? ROUND_AGAIN : ROUND_NO_HANG;

	char which[64] = "";

	if (restart > 0)
		snprintf(which, sizeof(which), " (torchrun's restart %ld of the workers)", restart);
	else if (round)
		snprintf(which, sizeof(which), " (the job's next MPI run)");
	log_info("watching %d ranks%s on %d node(s); sampling sets of %d, alpha %g, initial interval %.0f ms",
	    m->job.nranks, which, m->comm.size, m->sets.size, m->w.opt.model.alpha,
	    m->w.opt.model.interval_ms);
	if (m->trace)
		fprintf(m->trace, "# round %d: %d ranks\n", round, m->job.nranks);
	m->job_ended = false;
	memory_round_start(m);
	end = leader_loop(m);
	if (m->job_ended && end != ROUND_HANG)
		memory_keep(m);
	json_decref(m->last_model);
	m->last_model = output_model_json(m);
	comm_send_to_followers(&m->comm, end == ROUND_AGAIN ? CMD_AGAIN : CMD_STOP);
	return end;
}
