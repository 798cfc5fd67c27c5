/* SPDX-License-Identifier: BSD-3-Clause */
/* output — the output of a watch: parastack's lines in the job's output (say, status lines), the
 * report written (JSON and text), the model and cost as the report has them, and the core files
 * of the culprits. What it owns of struct monitor is said in monitor.h. */
#include "output.h"
#include "stragglers.h"
#include "../sample/stop/pagecache.h"

#include <errno.h>

#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include "../sample/stop/cores.h"
#include "jobmeta.h"
#include "outfile.h"
#include "gather.h"

/* "2 h 13 min", "5 min 3 s", "42 s". */
void output_duration_text(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld h %ld min", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, len, "%ld min %ld s", t / 60, t % 60);
	else
		snprintf(buf, len, "%ld s", t);
}

/* One sample round's cost: its duration on the leader and the ranks it stopped. */
void output_tick_add(struct monitor *m, double planned, double taken)
{
	if (m->cost_samples > 0)
		m->gap_ms_sum += taken - m->last_tick_ms;
	m->last_tick_ms = taken;
	if (taken - planned > 0) {
		m->late_ms_sum += taken - planned;
		if (taken - planned > m->late_ms_max)
			m->late_ms_max = taken - planned;
	}
}

void output_cost_add(struct monitor *m, double ms, int stopped)
{
	m->cost_samples++;
	m->cost_stopped += stopped;
	m->cost_ms_sum += ms;
	if (ms > m->cost_ms_max)
		m->cost_ms_max = ms;
}

/* What sampling cost, and the leader's memory: its peak resident set (which counts the ranks'
 * files mapped once per rank by the unwinder: shared pages, not memory used) and its private
 * memory now (it holds every rank's frames at report time: bench/ follows both as jobs grow). */
static json_t *cost_json(const struct monitor *m)
{
	double n = m->cost_samples ? (double)m->cost_samples : 1.0;
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	errno = 0;

	int nice = getpriority(PRIO_PROCESS, 0);
	struct pagecache_stats pc;

	pagecache_stats(&pc);

	json_t *o = json_pack("{s:I, s:i, s:f, s:f, s:f, s:f, s:I, s:I, s:f, s:f, s:f, s:o}", "samples",
			 (json_int_t)m->cost_samples, "monitors", m->comm.size, "mean_ms", m->cost_ms_sum / n,
			 "max_ms", m->cost_ms_max, "messages_per_sample", m->cost_messages / n,
			 "ranks_per_sample", m->cost_stopped / n, "leader_peak_rss_kb",
			 (json_int_t)ru.ru_maxrss, "leader_rss_anon_kb",
			 (json_int_t)procfs_self_rss_anon_kb(), "interval_achieved_ms",
			 m->cost_samples > 1 ? m->gap_ms_sum / (double)(m->cost_samples - 1) : 0.0,
			 "late_ms_mean", m->late_ms_sum / n, "late_ms_max", m->late_ms_max, "nice",
			 errno ? json_null() : json_integer(nice));

	/* The unwind tables' pages this monitor holds for all its ranks (pagecache.h). */
	json_object_set_new(o, "unwind_pages", json_pack("{s:I, s:i, s:I, s:I, s:I}", "held", (json_int_t)pc.pages,
							 "max", PAGECACHE_PAGES, "hits", (json_int_t)pc.hits, "misses",
							 (json_int_t)pc.misses, "evictions", (json_int_t)pc.evictions));
	return o;
}

/* The stall model (stats/stall.h) as the report's model.stall. */
static json_t *stall_json(const struct stall *st)
{
	struct stall_info si;

	stall_get_info(st, &si);
	return json_pack("{s:b, s:f, s:f, s:f, s:i, s:i, s:f, s:f}", "usable", si.usable, "history",
			 si.n, "p_hat", si.p_hat, "q", si.q, "k", si.k, "run_length", si.run, "quiet_s",
			 si.quiet_ms / 1e3, "longest_healthy_s", si.longest_healthy_ms / 1e3);
}

json_t *output_model_json(struct monitor *m)
{
	struct detector_info in;

	detector_get_info(m->det, &in);
	return json_pack("{s:b, s:f, s:I, s:f, s:f, s:f, s:f, s:i, s:f, s:i, s:i, s:o, s:o, s:o}", "usable", in.usable, "interval_ms",
			 in.interval_ms, "samples", (json_int_t)in.samples, "p_hat", in.p_hat, "e",
			 in.e, "q", in.q, "alpha", m->w.opt.model.alpha, "threshold", in.threshold,
			 "model_size", in.model_size, "set_size", m->sets.size, "run_length",
			 in.run_length, "stall", stall_json(&m->stall), "sampling", cost_json(m),
			 /* where the model started from: a remembered healthy run's file, or afresh */
			 "remembered_from", m->memory_recalled ? json_string(m->memory_file) : json_null());
}

/* The status line's part for the stall model. */
static void stall_status_text(const struct stall *st, char *buf, size_t len)
{
	struct stall_info si;

	stall_get_info(st, &si);
	if (!si.usable)
		snprintf(buf, len, "; stall model building");
	else
		snprintf(buf, len, "; nothing moved for %.1f s (stall model: a hang after %d quiet samples "
			 "in a row, and beyond %.1f s)", si.quiet_ms / 1e3, si.k,
			 STALL_GUARD_FACTOR * si.longest_healthy_ms / 1e3);
}

void output_write_report(struct monitor *m, json_t *report)
{
	char err[PATH_MAX + 128];

	jobmeta_add(m, report);
	if (m->w.report && outfile_replace_json(m->w.report, report, &m->job.files_owner, err, sizeof(err)) < 0)
		fprintf(stderr, "parastack: %s\n", err);
}

/* The ranks worth a core file: the faulty ones, and the first of each stack group. */
static int core_ranks(json_t *report, int *out, int max)
{
	int n = 0;
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(report, "faulty_ranks"), i, v)
		if (n < max)
			out[n++] = (int)json_integer_value(v);
	json_array_foreach(json_object_get(report, "groups"), i, v) {
		const char *ranks = json_string_value(json_object_get(v, "ranks"));
		int first = ranks ? atoi(ranks) : -1;
		bool have = false;

		for (int k = 0; k < n; k++)
			have |= out[k] == first;
		if (first >= 0 && !have && n < max)
			out[n++] = first;
	}
	return n;
}

/* --core-dir: every monitor writes the cores of its chosen ranks while they still exist; the
 * report lists them, and its next step opens the first faulty rank's. */
void output_write_cores(struct monitor *m, json_t *report)
{
	int ranks[256], n = core_ranks(report, ranks, 256);
	json_t *all;

	log_say("writing core files of rank(s) chosen for the report in %s (gcore)", m->w.core_dir);
	for (int mon = 0; mon < m->comm.size; mon++)
		if (mon != m->comm.me && !m->gone[mon])
			comm_send_cmd(mon, CMD_CORE, ranks, n);
	all = cores_dump(m->job.targets, m->job.nlocal, ranks, n, m->w.core_dir, m->comm.host, &m->job.files_owner);
	gather_replies(m, all, mono_ms() + CORES_REPLY_MS);
	json_object_set_new(report, "cores", all);

	json_t *first = json_array_get(json_object_get(report, "faulty_ranks"), 0);
	size_t i;
	json_t *c;
	char next[8192];

	json_array_foreach(all, i, c)
		if (first && json_integer_value(json_object_get(c, "rank")) == json_integer_value(first) &&
		    json_object_get(c, "core")) {
			const char *exe = NULL;

			for (int t = 0; t < m->job.nlocal && !exe; t++)
				if (m->job.targets[t].rank == (int)json_integer_value(first))
					exe = m->job.targets[t].maps.exe;
			snprintf(next, sizeof(next), "gdb %s %s   (rank %lld's core, written before the job was ended)",
				 exe ? exe : "EXECUTABLE", json_string_value(json_object_get(c, "core")),
				 (long long)json_integer_value(first));
			json_object_set_new(report, "next_step", json_string(next));
			break;
		}
}

/* The status line SIGUSR1 asks for: what the model is doing now. */
void output_say_status(struct monitor *m)
{
	struct detector_info in;
	char watched[32], stall[160], slow[320], now[32];

	wall_clock_text(wall_s(), now, sizeof(now));
	if (!m->det) {
		log_say("status at %s: finding the job's ranks", now);
		return;
	}
	detector_get_info(m->det, &in);
	output_duration_text((mono_ms() - m->t0_ms) / 1e3, watched, sizeof(watched));
	stall_status_text(&m->stall, stall, sizeof(stall));
	stragglers_text(m, slow, sizeof(slow));
	if (in.usable)
		log_say("status at %s: watching %d ranks for %s; %lld samples, I = %.0f ms, suspicion when S <= %d "
		    "(suspicious samples in a row now: %d)%s, %d suspicion(s) dismissed%s%s%s", now, m->job.nranks, watched,
		    (long long)in.samples, in.interval_ms, in.threshold, in.run_length, stall,
		    m->dismissed_total + m->conf.dismissed,
		    m->conf.state == WATCHING ? "" : "; a suspected hang is being confirmed", *slow ? "; " : "", slow);
	else
		log_say("status at %s: watching %d ranks for %s; %lld samples, the model is still building%s, "
		    "%d suspicion(s) dismissed%s%s", now, m->job.nranks, watched, (long long)in.samples, stall,
		    m->dismissed_total + m->conf.dismissed, *slow ? "; " : "", slow);
}

/* With --on-hang=kill and no cores, the process the next step names is about to be ended: say
 * how to keep it. */
void output_next_step_outlived(json_t *report)
{
	const char *next = json_string_value(json_object_get(report, "next_step"));
	char *text = NULL;

	if (next && asprintf(&text, "%s — the job is ended next: --core-dir DIR keeps a core of it, "
			     "--on-hang=report keeps it running", next) >= 0)
		json_object_set_new(report, "next_step", json_string(text));
	free(text);
}

json_t *output_missing_json(const struct monitor *m)
{
	return json_array_size(m->missing) ? json_incref(m->missing) : NULL;
}

json_t *output_report_cost(double started, unsigned long long bytes_to_leader)
{
	struct rusage ru;
	double seconds = (mono_ms() - started) / 1e3;

	getrusage(RUSAGE_SELF, &ru);
	return json_pack("{s:f, s:f, s:I, s:I}", "decided_at", wall_s() - seconds, "seconds", seconds,
			 "bytes_to_leader", (json_int_t)bytes_to_leader, "leader_peak_rss_kb",
			 (json_int_t)ru.ru_maxrss);
}
