/* parastack-monitor — the per-node monitor, an MPI program with one rank per node (design.md
 * §2). Every monitor discovers its node's ranks; the leader (monitor 0) gathers the rank table,
 * draws the two rank sets, samples on its randomized tick (asking the monitors that host the
 * sampled ranks), feeds the model, and on a hang verdict runs the slowdown check and the
 * snapshots that name the faulty ranks, then writes the report. Monitors that host no sampled
 * rank wait in a low-CPU loop. */
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "options.h"
#include "sched_slurm.h"
#include "sched_torque.h"
#include "../stats/stats.h"
#include "capture.h"
#include "comm.h"
#include "cores.h"
#include "discover.h"
#include "pidlist.h"
#include "exitcodes.h"
#include "jobstack.h"
#include "mpirecord.h"
#include "outfile.h"
#include "procfs.h"
#include "report.h"
#include "signals.h"
#include "target.h"

#define MAX_RANKS 65536
#define SNAPSHOTS 5            /* snapshots that decide the faulty ranks */
#define SNAPSHOT_GAP_MAX_MS 1000
#define SNAPSHOT_GAP_MIN_MS 200
#define IDLE_POLL_MS 50
#define ACTIVE_POLL_MS 2
#define GRACE_MS 5000   /* end_listed: SIGTERM to SIGKILL */
#define ROUND_AGAIN 100 /* watch_round: discover the job's next MPI run */
#define ROUND_MIN_MS 1000 /* rounds start at most this often */
#define STACK_FIND_MS 10000 /* --stack: how long to wait for a job's ranks to appear */

static volatile int stop_requested;

struct monitor {
	struct comm c;
	struct common_options opt;
	bool no_record; /* --no-record: the report leaves the recording layer's records unread */
	int dismissed_total; /* suspicions dismissed in earlier rounds */
	bool quiet;          /* --quiet: only suspicions, hangs and reports */
	double progress_s;   /* --progress: a status line this often (0: none) */
	double next_progress_ms;
	const char *core_dir; /* --core-dir: core files of the culprits before the job is ended */
	enum pstack_format stack_format; /* --stack: look once, print, exit */
	bool kill_on_hang;
	const char *report_path, *trace_path, *status_path;
	pid_t launcher;
	const char *launcher_host; /* where the launcher runs; NULL: on every monitor's node */
	bool on_launcher_host;
	uint32_t slurm_job;        /* 0, or the Slurm job whose steps hold the ranks */
	const char *pbs_job;       /* NULL, or the Torque job (PBS_JOBID) whose processes hold them */
	const char *pids_path;     /* NULL, or the file of the ranks the user named (attach) */
	struct pid_entry *pids;
	int npids;

	struct table_entry *table;
	int nranks;
	struct target *targets; /* local ranks, parallel to local_rank */
	struct progress *prog;  /* what the previous sample of each local rank showed */
	struct symbolizer_pool syms; /* the ranks' symbolizers, one per executable */
	int *local_rank;
	int nlocal;

	/* sample_set's scratch, sized once per round (every rank; every monitor). */
	int *owner, *batch;
	bool *asked;

	struct rng rng;
	struct ranksets sets;
	struct detector *det;
	struct confirm conf;
	double confirm_s;       /* --confirm */
	long round;             /* sample rounds so far (the leader's) */
	long since;             /* progress counts only against samples of this round or later */
	double suspected_wall;  /* when the current confirmation window opened (Unix time) */
	double last_progress_wall; /* the last sample, before a suspicion, above the threshold (0: none) */
	FILE *trace;
	double t0_ms;
	bool reported;          /* a hang has been reported in this watch */
	/* What sampling cost, over the whole watch (bench/ reads it from the report). */
	long cost_samples, cost_messages, cost_stopped;
	double cost_ms_sum, cost_ms_max;
	json_t *last_model; /* the model of the latest round, for a "none" report */
};

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double wall_s(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static void sleep_ms(double ms)
{
	if (ms <= 0)
		return;

	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6) };

	nanosleep(&ts, NULL);
}

static bool is_leader(const struct monitor *m)
{
	return m->c.me == m->c.leader;
}

/* Where the job's output gets parastack's lines and report: standard error, or standard output
 * when PARASTACK_REPORT_STREAM=stdout (Torque jobs, whose stderr goes to a file of its own
 * that users do not look in). */
static FILE *report_stream(void)
{
	const char *v = getenv("PARASTACK_REPORT_STREAM");

	return v && !strcmp(v, "stdout") ? stdout : stderr;
}

static void say_v(struct monitor *m, const char *fmt, va_list ap)
{
	FILE *out = report_stream();

	if (!is_leader(m))
		return;
	fputs("parastack: ", out);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	fflush(out);
}

static void say(struct monitor *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct monitor *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v(m, fmt, ap);
	va_end(ap);
}

/* A line of information only (what is watched, status, the summary): not with --quiet. */
static void say_info(struct monitor *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say_info(struct monitor *m, const char *fmt, ...)
{
	va_list ap;

	if (m->quiet)
		return;
	va_start(ap, fmt);
	say_v(m, fmt, ap);
	va_end(ap);
}

/* The launcher can only be seen from its own node; elsewhere it counts as alive. */
static bool launcher_alive(const struct monitor *m)
{
	char st = m->launcher > 0 && m->on_launcher_host ? procfs_state(m->launcher) : 'R';

	return st && st != 'Z';
}

/* ---- options ------------------------------------------------------------------------------ */

static const char monitor_usage[] =
	"usage: parastack-monitor (--launcher-pid PID | --slurm-job JOBID | --pbs-job JOBID |\n"
	"                          --pids-file FILE) [options]\n"
	"The per-node monitor that `parastack run` starts beside a job (one MPI rank per node).\n"
	"\n"
	"  --launcher-pid PID  the job's launcher: its descendants that carry an MPI rank are watched\n"
	"  --launcher-host H   the node the launcher runs on (default: every monitor's own node)\n"
	"  --slurm-job JOBID   watch the ranks in this Slurm job's steps on every monitor's node\n"
	"  --pbs-job JOBID     watch the processes of this Torque job (PBS_JOBID in their environment)\n"
	"                      on every monitor's node\n"
	"  --pids-file FILE    watch exactly these ranks: lines 'host pid [rank]', each monitor those\n"
	"                      of its host, checked before any is touched; on a hang with\n"
	"                      --on-hang=kill, each monitor ends its listed processes\n"
	"  --alpha A, --interval MS, --max-interval MS, --set-size C, --seed N   the model\n"
	"  --on-hang=kill|report  stop after the report (exit status 3), or keep watching (default kill)\n"
	"  --confirm SECONDS   confirmation window after a suspicion (default 60; 0: act at once)\n"
	"  --no-record         leave the recording layer's records unread in the report\n"
	"  --quiet             only suspicions, hangs and the report (no what-is-watched or summary\n"
	"                      lines)\n"
	"  --progress SECONDS  a status line this often\n"
	"  --core-dir DIR      before acting on a hang, write core files of the faulty ranks and\n"
	"                      of one rank per stack group there (gdb's gcore)\n"
	"  --report FILE       write the JSON report there\n"
	"  --trace FILE        record every sample (t_ms S C)\n"
	"  --stack FORMAT      look once instead of watching: monitor 0 prints every found rank's\n"
	"                      stacks (text, json, tree or tree-json) and all exit (`parastack stack`)\n"
	"  --status-file FILE  write the outcome there (\"hang\" or \"none\"; \"-\": a line on standard\n"
	"                      output) and exit 0, for a\n"
	"                      launcher that reads it (an MPI launcher reports non-zero exits loudly)\n"
	"  -h, --help          show this help\n"
	"  --version           print the version and the libraries it was built with\n";

static int parse_options(struct monitor *m, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "launcher-pid", required_argument, NULL, 'L' },
		{ "launcher-host", required_argument, NULL, 'N' },
		{ "slurm-job", required_argument, NULL, 'J' },
		{ "pbs-job", required_argument, NULL, 'P' },
		{ "pids-file", required_argument, NULL, 'F' },
		MODEL_LONGOPTS,
		{ "on-hang", required_argument, NULL, 'H' },
		{ "report", required_argument, NULL, 'R' },
		{ "trace", required_argument, NULL, 'T' },
		{ "status-file", required_argument, NULL, 'S' },
		{ "confirm", required_argument, NULL, 'W' },
		{ "no-record", no_argument, NULL, 'O' },
		{ "core-dir", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "progress", required_argument, NULL, 'G' },
		{ "stack", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx, pid;

	common_options_default(&m->opt);
	opterr = 0; /* our own one-line message below */
	m->kill_on_hang = true;
	m->confirm_s = CONFIRM_DEFAULT_S;
	while ((c = getopt_long(argc, argv, "h", longopts, &idx)) != -1) {
		switch (c) {
		case 0:
			if (common_option_apply("monitor", &m->opt, longopts[idx].name, optarg) < 0)
				return -1;
			break;
		case 'L':
			if (option_int("monitor", "launcher-pid", optarg, 1, 4194304, &pid) < 0)
				return -1;
			m->launcher = pid;
			break;
		case 'H':
			if (option_on_hang("monitor", optarg, &m->kill_on_hang) < 0)
				return -1;
			break;
		case 'W':
			if (option_confirm("monitor", optarg, &m->confirm_s) < 0)
				return -1;
			break;
		case 'N': m->launcher_host = optarg; break;
		case 'O': m->no_record = true; break;
		case 'C': m->core_dir = optarg; break;
		case 'Q': m->quiet = true; break;
		case 'G':
			if (option_progress("monitor", optarg, &m->progress_s) < 0)
				return -1;
			break;
		case 'J':
			if (sched_slurm_parse_jobid(optarg, &m->slurm_job) < 0) {
				cmd_error("monitor", "--slurm-job: '%s' is not a Slurm job id", optarg);
				return -1;
			}
			break;
		case 'P':
			if (!sched_torque_valid_jobid(optarg)) {
				cmd_error("monitor", "--pbs-job: '%s' is not a Torque job id", optarg);
				return -1;
			}
			m->pbs_job = optarg;
			break;
		case 'F': m->pids_path = optarg; break;
		case 'K':
			if ((m->stack_format = pstack_format_parse(optarg)) == PSTACK_NONE) {
				cmd_error("monitor", "--stack: '%s' is none of text, json, tree, tree-json", optarg);
				return -1;
			}
			break;
		case 'R': m->report_path = optarg; break;
		case 'T': m->trace_path = optarg; break;
		case 'S': m->status_path = optarg; break;
		case 'h': fputs(monitor_usage, stdout); exit(0);
		case 'V': print_version("parastack-monitor"); exit(0);
		default:
			cmd_error("monitor", "bad option '%s'; see 'parastack-monitor --help'", argv[optind - 1]);
			return -1;
		}
	}
	if (!m->launcher && !m->slurm_job && !m->pbs_job && !m->pids_path) {
		cmd_error("monitor", "--launcher-pid, --slurm-job, --pbs-job or --pids-file is required");
		return -1;
	}
	return common_options_check("monitor", &m->opt);
}

/* ---- discovery and the rank table ----------------------------------------------------------- */

/* This node's ranks: below the launcher (on its node), in the Slurm job's steps, and among the
 * Torque job's processes. */
static int discover_local(struct monitor *m, struct job_proc *local)
{
	static pid_t roots[MAX_RANKS];
	int nroots = 0;
	char err[512];

	if (m->launcher && m->on_launcher_host)
		roots[nroots++] = m->launcher;
	if (m->slurm_job) {
		const char *node = getenv("SLURMD_NODENAME");
		int n = sched_slurm_step_pids(m->slurm_job, node ? node : m->c.host, roots + nroots,
					      MAX_RANKS - nroots, err, sizeof(err));

		nroots += n > 0 ? n : 0;
	}
	if (m->pbs_job)
		nroots += discover_env_roots("PBS_JOBID", m->pbs_job, roots + nroots, MAX_RANKS - nroots);
	return discover_job(roots, nroots, local, MAX_RANKS);
}

/* The listed ranks of this node, each checked before any is touched. The count, or -1 after
 * naming every entry that failed its check. */
static int pids_local(struct monitor *m, struct job_proc *local)
{
	char err[512];
	int n = 0, bad = 0;

	for (int i = 0; i < m->npids; i++) {
		struct pid_entry *e = &m->pids[i];

		if (!pidlist_same_host(e->host, m->c.host))
			continue;

		bool ok = pidlist_check(e, err, sizeof(err)) == 0;

		if (ok && e->rank < 0 && (e->rank = procfs_rank(e->pid)) < 0) {
			snprintf(err, sizeof(err), "PID %d (line %d) has no MPI rank in its environment; "
				 "give it in a third column", (int)e->pid, e->line);
			ok = false;
		}
		if (!ok) {
			fprintf(stderr, "parastack: %s, line %d (on %s): %s\n", m->pids_path, e->line,
				m->c.host, err);
			bad = 1;
			continue;
		}
		local[n].pid = e->pid;
		local[n].rank = e->rank;
		local[n].world_size = -1;
		n++;
	}
	return bad ? -1 : n;
}

/* --pids-file: every listed rank, found and checked on every node, or -2 (nothing touched). */
static int pids_all(struct monitor *m, struct job_proc *local, int *nlocal)
{
	int n = pids_local(m, local);

	if (comm_max(n < 0))
		return -2;
	long total = comm_sum(n);

	if (total != m->npids) {
		if (m->c.me == 0)
			fprintf(stderr, "parastack: %s lists %d rank(s), but the monitors' hosts hold %ld of "
				"them; start one monitor on each host the file names\n", m->pids_path,
				m->npids, total);
		return -2;
	}
	*nlocal = n;
	return 0;
}

/* Wait until every rank of the job exists (all monitors together). 0, or -1 if the job ended
 * or the monitor was stopped first, -2 if the listed ranks failed their checks. */
static int discover_all(struct monitor *m, struct job_proc *local, int *nlocal)
{
	long last_total = -1;
	int stable = 0;
	double start = mono_ms(), noted = 0;

	if (m->pids)
		return pids_all(m, local, nlocal);
	for (;;) {
		int n = discover_local(m, local), size = -1;

		for (int i = 0; i < n; i++)
			size = local[i].world_size > size ? local[i].world_size : size;

		long total = comm_sum(n), world = comm_max(size);
		long ended = comm_max(!launcher_alive(m) || stop_requested);

		if (ended)
			return -1;
		stable = total == last_total ? stable + 1 : 0;
		last_total = total;
		if (total > 0 && (world > 0 ? total >= world : stable >= 15)) {
			*nlocal = n;
			return 0;
		}
		if (mono_ms() - start > 30000 && mono_ms() - noted > 30000) {
			say_info(m, "waiting for the job's ranks: %ld of %ld found so far", total, world);
			noted = mono_ms();
		}
		sleep_ms(200);
	}
}

static int open_targets(struct monitor *m, const struct job_proc *local, int nlocal)
{
	char err[512];

	m->targets = calloc((size_t)nlocal + 1, sizeof(*m->targets));
	m->local_rank = calloc((size_t)nlocal + 1, sizeof(int));
	m->prog = calloc((size_t)nlocal + 1, sizeof(*m->prog));
	for (int i = 0; i < nlocal; i++) {
		if (target_open(&m->targets[i], local[i].pid, err, sizeof(err)) != TARGET_OK) {
			fprintf(stderr, "parastack: rank %d: %s\n", local[i].rank, err);
			return -1;
		}
		m->targets[i].rank = local[i].rank;
		m->local_rank[i] = local[i].rank;
		m->nlocal = i + 1;
	}
	return 0;
}

/* Index of a local rank in targets, or -1. */
static int local_index(const struct monitor *m, int rank)
{
	for (int i = 0; i < m->nlocal; i++)
		if (m->local_rank[i] == rank)
			return i;
	return -1;
}

static int compare_entry_rank(const void *key, const void *entry)
{
	int rank = *(const int *)key, other = ((const struct table_entry *)entry)->rank;

	return (rank > other) - (rank < other);
}

/* The table is sorted by rank (comm_allgather_table). */
static const struct table_entry *table_find(const struct monitor *m, int rank)
{
	return bsearch(&rank, m->table, (size_t)m->nranks, sizeof(*m->table), compare_entry_rank);
}

/* ---- sampling ------------------------------------------------------------------------------- */

/* Sample the local ranks listed in sample round `round`: count OUT_MPI and live ones, and
 * what each shows of progress since its previous sample (when taken in round `since` on). */
static void sample_local(struct monitor *m, const int *ranks, int n, long round, long since,
			 struct sample_counts *c)
{
	char err[512];

	for (int i = 0; i < n; i++) {
		int k = local_index(m, ranks[i]);
		struct target *t = k < 0 ? NULL : &m->targets[k];
		enum rank_state st;

		if (!t || target_sample(t, &st, NULL, err, sizeof(err)) != TARGET_OK)
			continue;
		c->live++;
		c->out += st == RANK_OUT_MPI;
		c->kernel += t->in_kernel;
		c->init += t->in_init;
		/* A rank held in the kernel cannot be unwound: its sample says nothing of progress. */
		if (t->in_kernel)
			continue;
		switch (progress_update(&m->prog[k], round, since, st, t->fingerprint)) {
		case PROGRESS_MOVED: c->moved++; break;
		case PROGRESS_STILL: c->still++; break;
		default: break;
		}
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
}

/* Leader: one sample round of the given set, asking the monitors that host its ranks. Each
 * rank is looked up once; the requests go out before the leader samples its own ranks, so all
 * nodes sample at the same time. */
static void sample_set(struct monitor *m, const int *set, int size, struct sample_counts *sum)
{
	int nmine = 0, *owner = m->owner, *batch = m->batch;
	bool *asked = m->asked;
	long round = ++m->round;

	memset(asked, 0, (size_t)m->c.size * sizeof(bool));
	memset(sum, 0, sizeof(*sum));
	for (int i = 0; i < size; i++) {
		const struct table_entry *e = table_find(m, set[i]);

		owner[i] = e ? e->monitor : -1;
	}
	for (int i = 0; i < size; i++) {
		int mon = owner[i], n = 0;

		if (mon < 0 || mon == m->c.me || asked[mon])
			continue;
		for (int j = i; j < size; j++)
			if (owner[j] == mon)
				batch[n++] = set[j];
		comm_send_sample(mon, round, m->since, batch, n);
		asked[mon] = true;
		m->cost_messages += 2; /* the command and its reply */
	}
	for (int i = 0; i < size; i++)
		if (owner[i] == m->c.me)
			batch[nmine++] = set[i];
	sample_local(m, batch, nmine, round, m->since, sum);
	for (int mon = 0; mon < m->c.size; mon++) {
		struct sample_counts c;

		if (!asked[mon])
			continue;
		comm_recv_counts(mon, &c);
		counts_add(sum, &c);
	}
}

/* Every local rank as JSON; with_record: and what its recording layer says (unless
 * --no-record), for the report's wait-for analysis. */
static json_t *capture_local(struct monitor *m, bool with_record)
{
	json_t *arr = json_array();

	for (int i = 0; i < m->nlocal; i++) {
		struct symbolizer *sy = symbolizer_pool_get(&m->syms, &m->targets[i].maps);
		json_t *rank = capture_rank(&m->targets[i], sy, m->c.host);
		json_t *rec = with_record && !m->no_record ? mpirecord_json(&m->targets[i], sy) : NULL;

		if (rec)
			json_object_set_new(rank, "record", rec);
		/* Was the layer there at all: a diagnosis from stacks alone is never mistaken for one
		 * with records (a layer the launch line could not place, --no-record). */
		json_object_set_new(rank, "recording_layer",
				    json_boolean(maps_has_module(&m->targets[i].maps, "libparastack-mpi")));
		json_array_append_new(arr, rank);
	}
	return arr;
}

/* Leader: append every other monitor's reply (a JSON array) to all. */
static void gather_replies(struct monitor *m, json_t *all)
{
	for (int mon = 0; mon < m->c.size; mon++) {
		if (mon == m->c.me)
			continue;

		json_t *part = comm_recv_json(mon);

		if (json_is_array(part))
			json_array_extend(all, part);
		json_decref(part);
	}
}

/* Leader: a snapshot of every rank of the job, sorted by rank. The other monitors capture
 * their ranks while the leader captures its own. */
static json_t *snapshot_all(struct monitor *m, bool with_record)
{
	comm_send_to_followers(&m->c, with_record ? CMD_CAPTURE_RECORD : CMD_CAPTURE);

	json_t *all = capture_local(m, with_record);

	gather_replies(m, all);
	report_sort_by_rank(all);
	return all;
}

/* One sample round's cost: its duration on the leader and the ranks it stopped. */
static void cost_add(struct monitor *m, double ms, int stopped)
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
	return json_pack("{s:I, s:i, s:f, s:f, s:f, s:f, s:I, s:I}", "samples", (json_int_t)m->cost_samples,
			 "monitors", m->c.size, "mean_ms", m->cost_ms_sum / n, "max_ms", m->cost_ms_max,
			 "messages_per_sample", m->cost_messages / n, "ranks_per_sample",
			 m->cost_stopped / n, "leader_peak_rss_kb", (json_int_t)ru.ru_maxrss,
			 "leader_rss_anon_kb", (json_int_t)procfs_self_rss_anon_kb());
}

static json_t *model_json(struct monitor *m)
{
	struct detector_info in;

	detector_get_info(m->det, &in);
	return json_pack("{s:b, s:f, s:I, s:f, s:f, s:f, s:f, s:i, s:f, s:i, s:i, s:o}", "usable", in.usable, "interval_ms",
			 in.interval_ms, "samples", (json_int_t)in.samples, "p_hat", in.p_hat, "e",
			 in.e, "q", in.q, "alpha", m->opt.model.alpha, "threshold", in.threshold,
			 "model_size", in.model_size, "set_size", m->sets.size, "run_length",
			 in.run_length, "sampling", cost_json(m));
}

static void write_report(struct monitor *m, json_t *report)
{
	char err[PATH_MAX + 128];

	if (m->report_path && outfile_replace_json(m->report_path, report, err, sizeof(err)) < 0)
		fprintf(stderr, "parastack: %s\n", err);
}

/* Clock time of the Unix time t, "12:03:10 UTC". */
static void clock_text(double t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%H:%M:%S UTC", &tm))
		snprintf(buf, len, "?");
}

/* The snapshot gap: near the sampling interval, within bounds. */
static double snapshot_gap_ms(struct monitor *m)
{
	struct detector_info in;

	detector_get_info(m->det, &in);

	double gap = in.interval_ms;

	return gap > SNAPSHOT_GAP_MAX_MS ? SNAPSHOT_GAP_MAX_MS : gap < SNAPSHOT_GAP_MIN_MS ? SNAPSHOT_GAP_MIN_MS : gap;
}

/* What the JSON report says of the three steps: when each happened and on what basis. */
static json_t *steps_json(const struct monitor *m, double confirmed_at)
{
	json_t *steps = json_pack("{s:f, s:f, s:f, s:s, s:i, s:b}", "suspected_at", m->suspected_wall,
				  "confirmed_at", confirmed_at, "window_s", m->conf.window_ms > 0 ?
				  (confirmed_at - m->suspected_wall) : 0.0, "basis",
				  m->conf.basis == CONFIRM_BY_MODEL ? "model" : "progress evidence",
				  "dismissed_before", m->conf.dismissed, "ranks_in_kernel",
				  confirm_is_io(&m->conf));

	json_object_set_new(steps, "last_progress_at", m->last_progress_wall > 0 ?
			    json_real(m->last_progress_wall) : json_null());
	return steps;
}

static void strip_frames(json_t *snap)
{
	size_t i;
	json_t *r;

	json_array_foreach(snap, i, r)
		json_object_del(r, "frames");
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
static void write_cores(struct monitor *m, json_t *report)
{
	int ranks[256], n = core_ranks(report, ranks, 256);
	json_t *all;

	say(m, "writing core files of rank(s) chosen for the report in %s (gcore)", m->core_dir);
	for (int mon = 0; mon < m->c.size; mon++)
		if (mon != m->c.me)
			comm_send_cmd(mon, CMD_CORE, ranks, n);
	all = cores_dump(m->targets, m->nlocal, ranks, n, m->core_dir, m->c.host);
	gather_replies(m, all);
	json_object_set_new(report, "cores", all);

	json_t *first = json_array_get(json_object_get(report, "faulty_ranks"), 0);
	size_t i;
	json_t *c;
	char next[8192];

	json_array_foreach(all, i, c)
		if (first && json_integer_value(json_object_get(c, "rank")) == json_integer_value(first) &&
		    json_object_get(c, "core")) {
			const char *exe = NULL;

			for (int t = 0; t < m->nlocal && !exe; t++)
				if (m->targets[t].rank == (int)json_integer_value(first))
					exe = m->targets[t].maps.exe;
			snprintf(next, sizeof(next), "gdb %s %s   (rank %lld's core, written before the job was ended)",
				 exe ? exe : "EXECUTABLE", json_string_value(json_object_get(c, "core")),
				 (long long)json_integer_value(first));
			json_object_set_new(report, "next_step", json_string(next));
			break;
		}
}

/* With --on-hang=kill and no cores, the process the next step names is about to be ended: say
 * how to keep it. */
static void next_step_outlived(json_t *report)
{
	const char *next = json_string_value(json_object_get(report, "next_step"));
	char *text = NULL;

	if (next && asprintf(&text, "%s — the job is ended next: --core-dir DIR keeps a core of it, "
			     "--on-hang=report keeps it running", next) >= 0)
		json_object_set_new(report, "next_step", json_string(text));
	free(text);
}

/* A confirmed hang: snapshots of every rank name the faulty ones; report. With --confirm 0 the
 * old transient-slowdown check still runs (any rank moving between snapshots): 1 a hang was
 * reported, 0 it was a slowdown. */
static int diagnose(struct monitor *m)
{
	json_t *snaps[SNAPSHOTS + 1];
	char why[512];
	double gap = snapshot_gap_ms(m);
	bool check_moved = m->conf.window_ms == 0;

	/* Snapshot 0 and 1 are the transient-slowdown check; 1..5 decide the faulty ranks. */
	snaps[0] = snapshot_all(m, false);
	for (int k = 1; k <= SNAPSHOTS; k++) {
		sleep_ms(gap);
		snaps[k] = snapshot_all(m, k == SNAPSHOTS);
		/* Only the last snapshot's frames go into the report: the earlier ones keep each
		 * rank's state, call and path (what the checks compare), so a large job's report
		 * does not hold six copies of every stack. */
		if (k >= 2)
			strip_frames(snaps[k - 2]);
		if (check_moved && report_moved(snaps[k - 1], snaps[k], why, sizeof(why))) {
			say(m, "a suspected hang was a transient slowdown (%s); monitoring continues", why);
			for (int i = 0; i <= k; i++)
				json_decref(snaps[i]);
			detector_dismiss(m->det);
			return 0;
		}
	}

	json_t *faulty = report_faulty(snaps + 1, SNAPSHOTS);
	json_t *report = report_build(snaps[SNAPSHOTS], faulty, m->suspected_wall, model_json(m),
				      m->kill_on_hang ? "ending the job (--on-hang=kill)" :
				      "reported; still watching (--on-hang=report)");

	if (confirm_is_io(&m->conf))
		json_object_set_new(report, "hang_type", json_string("io"));
	json_object_set_new(report, "confirmation", steps_json(m, wall_s()));
	if (m->core_dir)
		write_cores(m, report);
	else if (m->kill_on_hang)
		next_step_outlived(report);
	report_print(report_stream(), report);
	write_report(m, report);
	json_decref(report);
	json_decref(faulty);
	for (int i = 0; i <= SNAPSHOTS; i++)
		json_decref(snaps[i]);
	return 1;
}

/* "2 h 13 min", "5 min 3 s", "42 s". */
static void duration_text(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld h %ld min", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, len, "%ld min %ld s", t / 60, t % 60);
	else
		snprintf(buf, len, "%ld s", t);
}

/* The status line SIGUSR1 asks for: what the model is doing now. */
static void say_status(struct monitor *m)
{
	struct detector_info in;
	char watched[32];

	if (!m->det) {
		say(m, "status: finding the job's ranks");
		return;
	}
	detector_get_info(m->det, &in);
	duration_text((mono_ms() - m->t0_ms) / 1e3, watched, sizeof(watched));
	if (in.usable)
		say(m, "status: watching %d ranks for %s; %lld samples, I = %.0f ms, suspicion when S <= %d "
		    "(suspicious samples in a row now: %d), %d suspicion(s) dismissed%s", m->nranks, watched,
		    (long long)in.samples, in.interval_ms, in.threshold, in.run_length,
		    m->dismissed_total + m->conf.dismissed,
		    m->conf.state == WATCHING ? "" : "; a suspected hang is being confirmed");
	else
		say(m, "status: watching %d ranks for %s; %lld samples, the model is still building, "
		    "%d suspicion(s) dismissed", m->nranks, watched, (long long)in.samples,
		    m->dismissed_total + m->conf.dismissed);
}

/* Sleep until the monotonic time `until`, waking early when asked to stop or when the job ends. */
static bool wait_until(struct monitor *m, double until)
{
	for (;;) {
		double left = until - mono_ms();

		if (status_requests) {
			status_requests = 0;
			say_status(m);
		}
		/* --progress: the first line one period after watching starts, then each period. */
		if (m->progress_s > 0 && mono_ms() >= m->next_progress_ms) {
			if (m->next_progress_ms > 0)
				say_status(m);
			m->next_progress_ms = mono_ms() + m->progress_s * 1e3;
		}
		if (stop_requested || !launcher_alive(m))
			return false;
		if (left <= 0)
			return true;
		snapshot_reap_pending();
		sleep_ms(left < 250 ? left : 250);
	}
}

/* A set whose ranks have all exited: have the others too? (One sample of every rank.) */
static bool all_ranks_gone(struct monitor *m)
{
	int *all = calloc((size_t)m->nranks + 1, sizeof(int));
	struct sample_counts c;

	for (int i = 0; i < m->nranks; i++)
		all[i] = m->table[i].rank;
	sample_set(m, all, m->nranks, &c);
	free(all);
	return c.live == 0;
}

/* Step 1, suspect: one line in the job output now, with what one snapshot shows. */
static void announce_suspicion(struct monitor *m, double window_ms)
{
	json_t *snap = snapshot_all(m, false);
	char what[512], when[32];

	report_summary(snap, what, sizeof(what));
	json_decref(snap);
	clock_text(m->suspected_wall + window_ms / 1e3, when, sizeof(when));
	if (m->conf.basis == CONFIRM_BY_EVIDENCE)
		say(m, "suspected hang — %s; nothing has moved for %.0f s%s — confirming; %s at %s unless "
		    "it moves", what, wall_s() - m->suspected_wall,
		    detector_usable(m->det) ? " (since before the model had a history)" : " (no model yet)",
		    m->kill_on_hang ? "the job is ended" : "it is reported", when);
	else
		say(m, "suspected hang — %s — confirming; %s at %s unless it moves", what,
		    m->kill_on_hang ? "the job is ended" : "it is reported", when);
}

static void trace_event(struct monitor *m, double t, enum trace_event_kind ev)
{
	if (!m->trace)
		return;
	trace_write_event(m->trace, t - m->t0_ms, ev);
	fflush(m->trace);
}

/* What the confirmation step says about this sample, acted on: MONITOR_EXIT_HANG to stop
 * here, else 0 (watching goes on). */
/* A sample taken at t (monotonic ms) above the threshold, while no suspicion is open: the job
 * was seen computing then, and a hang found later began after it. */
static void note_progress(struct monitor *m, double t, int out, const struct detector_info *in)
{
	if (m->conf.state == WATCHING && in->usable && out > in->threshold)
		m->last_progress_wall = wall_s() - (mono_ms() - t) / 1e3;
}

static int confirm_step(struct monitor *m, double t, enum detector_verdict v,
			const struct sample_counts *c)
{
	struct detector_info in;

	detector_get_info(m->det, &in);
	note_progress(m, t, c->out, &in);

	struct confirm_sample cs = { .t_ms = t - m->t0_ms, .verdict = v,
				     .hang_ongoing = detector_hang_ongoing(m->det),
				     .longest_healthy_ms = in.longest_healthy_ms, .live = c->live,
				     .moved = c->moved, .still = c->still, .kernel = c->kernel,
				     .init = c->init, .model_ready = in.usable };

	switch (confirm_add(&m->conf, &cs)) {
	case CONFIRM_SUSPECTED:
		/* Progress counts only between samples taken from now on. */
		m->since = m->round;
		m->suspected_wall = wall_s() - (cs.t_ms - m->conf.suspected_ms) / 1e3;
		trace_event(m, t, TRACE_EVENT_SUSPECT);
		announce_suspicion(m, m->conf.deadline_ms - m->conf.suspected_ms);
		return 0;
	case CONFIRM_MOVED:
		say(m, "the suspected hang moved on (%s); watching goes on",
		    c->moved ? "a rank waiting in MPI got further" : "the sampled ranks compute again");
		/* detector_dismiss below; a run that ended by itself has nothing left to dismiss. */
		m->since = 0;
		detector_dismiss(m->det);
		trace_event(m, t, TRACE_EVENT_SLOWDOWN);
		return 0;
	case CONFIRM_HANG:
		if (m->conf.window_ms == 0)
			m->suspected_wall = wall_s();
		if (!diagnose(m)) {
			confirm_dismiss(&m->conf, cs.t_ms);
			trace_event(m, t, TRACE_EVENT_SLOWDOWN);
			return 0;
		}
		trace_event(m, t, TRACE_EVENT_HANG);
		m->reported = true;
		return m->kill_on_hang ? MONITOR_EXIT_HANG : 0;
	case CONFIRM_RESOLVED:
		say(m, "the hang reported earlier is over: the job moves again; watching goes on");
		m->since = 0;
		detector_dismiss(m->det);
		return 0;
	case CONFIRM_NOTHING:
		break;
	}
	return 0;
}

static int leader_loop(struct monitor *m)
{
	double next = mono_ms();
	long k = 0;

	confirm_init(&m->conf, m->confirm_s);
	for (;; k++) {
		if (!wait_until(m, next))
			return MONITOR_EXIT_NONE;

		double t = mono_ms();
		int set = ranksets_active(&m->sets, k);
		struct sample_counts c;

		sample_set(m, m->sets.set[set], m->sets.size, &c);
		cost_add(m, mono_ms() - t, m->sets.size);

		if (c.live == 0 && all_ranks_gone(m)) {
			say(m, "the job's ranks have all exited");
			return !m->pids && launcher_alive(m) && !stop_requested ? ROUND_AGAIN : MONITOR_EXIT_NONE;
		}
		if (m->trace) {
			trace_write_point(m->trace, t - m->t0_ms, c.out, m->sets.size);
			fflush(m->trace);
		}

		enum detector_verdict v = detector_add(m->det, t - m->t0_ms, c.out);

		if (confirm_step(m, t, v, &c) == MONITOR_EXIT_HANG)
			return MONITOR_EXIT_HANG;
		next = t + detector_next_step_ms(m->det);
	}
}

/* Threads seized but not yet stopped (in the kernel) are detached as soon as they stop. */
static void reap_pending(void)
{
	snapshot_reap_pending();
}

/* Serve the leader until it says stop (0, CMD_STOP) or discover again (CMD_AGAIN). */
static int follower_loop(struct monitor *m)
{
	int *ranks = calloc(MAX_RANKS, sizeof(int)), n;
	bool active = false;

	for (int k = 0; k < m->sets.nsets; k++)
		for (int i = 0; i < m->sets.size; i++)
			active |= local_index(m, m->sets.set[k][i]) >= 0;
	for (;;) {
		int cmd = comm_wait_cmd(ranks, MAX_RANKS, &n, active ? ACTIVE_POLL_MS : IDLE_POLL_MS,
					&stop_requested, reap_pending);
		struct sample_counts c = { 0 };

		if (cmd == CMD_SAMPLE && n >= 2) {
			sample_local(m, ranks + 2, n - 2, ranks[0], ranks[1], &c);
			comm_send_counts(&c);
		} else if (cmd == CMD_CORE) {
			json_t *j = cores_dump(m->targets, m->nlocal, ranks, n, m->core_dir ? m->core_dir : ".",
					       m->c.host);

			comm_send_json(j);
			json_decref(j);
		} else if (cmd == CMD_CAPTURE || cmd == CMD_CAPTURE_RECORD) {
			json_t *j = capture_local(m, cmd == CMD_CAPTURE_RECORD);

			comm_send_json(j);
			json_decref(j);
		} else {
			free(ranks);
			return cmd;
		}
	}
}

static int setup_model(struct monitor *m)
{
	m->last_progress_wall = 0; /* a new MPI run: what the previous one did says nothing */
	rng_seed(&m->rng, m->opt.model.seed);
	if (ranksets_draw(&m->sets, &m->rng, m->nranks, m->opt.model.set_size) < 0)
		return -1;
	/* Sets hold indexes into the table; the table is sorted by rank. */
	for (int k = 0; k < m->sets.nsets; k++)
		for (int i = 0; i < m->sets.size; i++)
			m->sets.set[k][i] = m->table[m->sets.set[k][i]].rank;

	struct detector_config cfg = m->opt.model;

	m->since = 0;

	cfg.set_size = m->sets.size;
	m->det = detector_new(&cfg);
	m->owner = calloc((size_t)m->nranks + 1, sizeof(int));
	m->batch = calloc((size_t)m->nranks + 1, sizeof(int));
	m->asked = calloc((size_t)m->c.size, sizeof(bool));
	return m->det && m->owner && m->batch && m->asked ? 0 : -1;
}

/* Release one round's targets, table and model. */
static void round_release(struct monitor *m)
{
	for (int i = 0; i < m->nlocal; i++)
		target_close(&m->targets[i]);
	symbolizer_pool_free(&m->syms);
	snapshot_reap_pending();
	free(m->targets);
	free(m->prog);
	free(m->local_rank);
	free(m->table);
	ranksets_free(&m->sets);
	detector_free(m->det);
	free(m->owner);
	free(m->batch);
	free(m->asked);
	m->owner = m->batch = NULL;
	m->asked = NULL;
	m->targets = NULL;
	m->prog = NULL;
	m->local_rank = NULL;
	m->table = NULL;
	m->det = NULL;
	m->nlocal = m->nranks = 0;
}

/* Two processes claiming one rank: more than one MPI job among the roots. */
static int check_unique_ranks(struct monitor *m)
{
	for (int i = 1; i < m->nranks; i++)
		if (m->table[i].rank == m->table[i - 1].rank) {
			say(m, "error: rank %d is claimed by pid %d on %s and pid %d on %s: more than one MPI "
			    "job runs at once; parastack watches one job at a time (attach to one by --pids)",
			    m->table[i].rank, m->table[i - 1].pid, m->table[i - 1].host, m->table[i].pid,
			    m->table[i].host);
			return -1;
		}
	return 0;
}

/* One MPI job, from discovery to its end: MONITOR_EXIT_HANG, MONITOR_EXIT_NONE, _ERROR, or
 * ROUND_AGAIN when its ranks are gone but the job (a script running several) goes on. */
static int watch_round(struct monitor *m, int round)
{
	static struct job_proc local[MAX_RANKS];
	int nlocal = 0, status;

	int found = discover_all(m, local, &nlocal);

	if (found < 0)
		return found == -2 ? MONITOR_EXIT_ERROR : MONITOR_EXIT_NONE;
	m->nranks = comm_allgather_table(&m->c, local, nlocal, &m->table);
	if (comm_max(open_targets(m, local, nlocal) < 0 || check_unique_ranks(m) < 0) ||
	    setup_model(m) < 0)
		return MONITOR_EXIT_ERROR;
	if (!is_leader(m)) {
		status = follower_loop(m);
		return status == CMD_AGAIN ? ROUND_AGAIN : MONITOR_EXIT_NONE;
	}
	say_info(m, "watching %d ranks%s on %d node(s); sampling sets of %d, alpha %g, initial interval %.0f ms",
	    m->nranks, round ? " (the job's next MPI run)" : "", m->c.size, m->sets.size,
	    m->opt.model.alpha, m->opt.model.interval_ms);
	if (m->trace)
		fprintf(m->trace, "# round %d: %d ranks\n", round, m->nranks);
	status = leader_loop(m);
	json_decref(m->last_model);
	m->last_model = model_json(m);
	comm_send_to_followers(&m->c, status == ROUND_AGAIN ? CMD_AGAIN : CMD_STOP);
	return status;
}

/* --pids-file: the listed ranks. Monitor 0 reads the file and sends its bytes to the others:
 * on nodes without a shared file system, another node's file of the same name must not decide
 * which processes are watched or ended. */
static int load_pids(struct monitor *m)
{
	char err[600] = "", msg[512];
	char *text = NULL;
	size_t n = 0;
	long len = -1;

	if (m->c.me == 0 && (text = pidlist_load_file(m->pids_path, &n, err, sizeof(err))))
		len = (long)n;
	comm_bcast_bytes(&text, &len);
	m->pids = calloc(PIDLIST_MAX, sizeof(*m->pids));
	m->npids = len < 0 || !m->pids || !text ? -1 :
		   pidlist_parse_text(text, (size_t)len, m->pids, PIDLIST_MAX, msg, sizeof(msg));
	if (m->npids < 0 && len >= 0)
		snprintf(err, sizeof(err), "%s: %s", m->pids_path, m->pids && text ? msg : "out of memory");
	free(text);
	if (m->npids < 0) {
		if (m->c.me == 0)
			cmd_error("monitor", "%s", err);
		return -1;
	}
	return 0;
}

/* Is e a process this monitor checked (only its own host's are: start time recorded) that
 * still runs as that same process? */
static bool still_listed(const struct pid_entry *e)
{
	char st = e->start ? procfs_state(e->pid) : 0;

	return st && st != 'Z' && procfs_start_time(e->pid) == e->start;
}

/* On a hang with --on-hang=kill and a PID list: end exactly this node's listed processes —
 * SIGTERM, then SIGKILL after a grace period to those still there — each only while it is
 * still the process that was checked (same start time), never a reused PID. */
static void end_listed(struct monitor *m)
{
	bool any = false;

	for (int i = 0; i < m->npids; i++)
		if (still_listed(&m->pids[i])) {
			kill(m->pids[i].pid, SIGTERM);
			any = true;
		}
	for (double until = mono_ms() + GRACE_MS; any && mono_ms() < until; sleep_ms(100)) {
		any = false;
		for (int i = 0; i < m->npids; i++)
			any |= still_listed(&m->pids[i]);
	}
	for (int i = 0; i < m->npids; i++)
		if (still_listed(&m->pids[i]))
			kill(m->pids[i].pid, SIGKILL);
}

/* The outcome for the launcher: in the status file, or, for "-", as a line on standard output
 * (the file system of the leader's node may not be the launcher's). */
static void write_status(const struct monitor *m, int status)
{
	const char *word = status == MONITOR_EXIT_HANG ? "hang" : status == MONITOR_EXIT_ERROR ? "error" : "none";

	if (!strcmp(m->status_path, "-")) {
		printf("%s%s\n", MONITOR_STATUS_PREFIX, word);
		fflush(stdout);
		return;
	}

	FILE *f = fopen(m->status_path, "w");

	if (f) {
		fprintf(f, "%s\n", word);
		fclose(f);
	}
}

/* --stack: this job's ranks, once all of them exist (or after STACK_FIND_MS), looked at once and
 * printed by monitor 0. MONITOR_EXIT_NONE, or _ERROR when none was found or some could not be
 * looked at (each said). */
static int stack_job(struct monitor *m)
{
	static struct job_proc local[MAX_RANKS];
	int nlocal = 0;
	long total = 0, world = -1;

	if (m->pids) {
		if (pids_all(m, local, &nlocal) < 0)
			return MONITOR_EXIT_ERROR;
		total = m->npids;
	}
	for (double until = mono_ms() + STACK_FIND_MS; !m->pids; sleep_ms(200)) {
		int size = -1;

		nlocal = discover_local(m, local);
		for (int i = 0; i < nlocal; i++)
			size = local[i].world_size > size ? local[i].world_size : size;
		total = comm_sum(nlocal);
		world = comm_max(size);
		if ((total > 0 && total >= world) || comm_max(mono_ms() >= until || stop_requested))
			break;
	}
	if (total == 0) {
		if (m->c.me == 0)
			cmd_error("stack", "no MPI ranks found in the job's processes (it started no MPI "
				  "program yet, or they carry no MPI rank in their environment)");
		return MONITOR_EXIT_ERROR;
	}
	if (world > total && m->c.me == 0)
		cmd_error("stack", "%ld of the job's %ld ranks found; the others are not running yet or "
			  "on nodes without a monitor", total, world);
	return jobstack_print(&m->c, local, nlocal, m->stack_format) ? MONITOR_EXIT_ERROR : MONITOR_EXIT_NONE;
}

int main(int argc, char **argv)
{
	static struct monitor the_monitor;
	struct monitor *m = &the_monitor;
	int status;

	signals_install(on_signal);
	signals_catch_status();
	if (comm_init(&argc, &argv, &m->c) < 0) {
		fprintf(stderr, "parastack: MPI_Init failed in the monitor\n");
		return MONITOR_EXIT_ERROR;
	}
	if (parse_options(m, argc, argv) < 0) {
		comm_finalize();
		return MONITOR_EXIT_USAGE;
	}
	if (m->pids_path && load_pids(m) < 0) {
		comm_finalize();
		return MONITOR_EXIT_USAGE;
	}
	m->on_launcher_host = !m->launcher_host || !strcmp(m->launcher_host, m->c.host);
	comm_elect_leader(&m->c, m->launcher && m->on_launcher_host && !m->stack_format);
	if (m->stack_format) {
		status = stack_job(m);
		comm_finalize();
		if (!m->status_path)
			return status;
		/* Every monitor agrees on the outcome; the leader says it, none fails for mpirun. */
		if (is_leader(m))
			write_status(m, status);
		return MONITOR_EXIT_NONE;
	}
	if (is_leader(m)) {
		char err[PATH_MAX + 128];

		if (m->trace_path && !(m->trace = outfile_open_stream(m->trace_path, err, sizeof(err))))
			fprintf(stderr, "parastack: the trace: %s\n", err);
		if (m->trace) {
			fprintf(m->trace, "# parastack trace: t_ms S C (alpha %g, seed %llu)\n",
				m->opt.model.alpha, (unsigned long long)m->opt.model.seed);
			trace_write_model(m->trace, m->opt.model.alpha, m->opt.model.interval_ms,
					  m->opt.model.max_interval_ms);
		}
	}
	m->t0_ms = mono_ms();
	if (m->trace)
		fprintf(m->trace, "# t_ms 0 is unix time %.6f\n", wall_s());
	for (int round = 0;; round++) {
		double started = mono_ms();

		status = watch_round(m, round);
		m->dismissed_total += m->conf.dismissed;
		m->conf.dismissed = 0;
		round_release(m);
		if (status != ROUND_AGAIN)
			break;
		/* A job whose ranks keep vanishing at once is not discovered again in a tight loop. */
		if (mono_ms() - started < ROUND_MIN_MS)
			sleep_ms(ROUND_MIN_MS - (mono_ms() - started));
	}
	if (is_leader(m)) {
		if (status == MONITOR_EXIT_NONE && !m->last_model)
			say(m, "no MPI ranks found: nothing was watched (the job started no MPI program, "
			    "or its processes carry no MPI rank in their environment)");
		if (status == MONITOR_EXIT_NONE && m->last_model) {
			char watched[32];

			duration_text((mono_ms() - m->t0_ms) / 1e3, watched, sizeof(watched));
			say_info(m, "watched %s, %ld samples, %d suspicion(s) dismissed, %s", watched,
			    m->cost_samples, m->dismissed_total, m->reported ? "a hang reported" : "no hang");
		}
		if (status == MONITOR_EXIT_NONE && !m->reported && m->report_path) {
			json_t *r = report_none(m->last_model ? json_incref(m->last_model) : json_null(),
						m->last_model != NULL);

			write_report(m, r);
			json_decref(r);
		}
		json_decref(m->last_model);
		if (m->trace)
			fclose(m->trace);
	}
	/* The leader's verdict, for every monitor: with a PID list, each ends its own ranks. */
	if (m->pids && comm_max(status == MONITOR_EXIT_HANG) && m->kill_on_hang)
		end_listed(m);
	comm_finalize();
	if (is_leader(m) && m->status_path) {
		write_status(m, status);
		return status == MONITOR_EXIT_ERROR ? status : MONITOR_EXIT_NONE;
	}
	return status;
}
