/* monitor — the per-node monitor's shared state (struct monitor) and the clock helpers every
 * step uses. parastack-monitor is a pipeline; a sample passes through, in order:
 *   daemon.c  its life: options, start, signals, the rounds, the end (main)
 *   job.c     finding the job: this node's ranks, every monitor's (the rank table), targets
 *   watch.c   the watch loop: the leader's tick, one sampling round (sample one rank:
 *             target.c, unwind_libunwind.c, classify, progress.c), the model (stats/)
 *   pipeline.c suspect -> confirm (stats/confirm.c) -> act: snapshots, diagnosis (hang/), report
 *   output.c  what the job's output and the report get: lines, JSON, status, cores
 * (monitor/README has the map of the rest, room by room.) Each module touches only the part of struct
 * monitor its comment names; what the loops share is passed as this struct, no globals. */
#ifndef PARASTACK_MONITOR_H
#define PARASTACK_MONITOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>

#include <jansson.h>

#include "../../stats/stats.h"
#include "../sample/capture.h"
#include "../job/comm.h"
#include "options.h"
#include "../job/pidlist.h"
#include "../sample/ownedfile.h"
#include "../sample/pstack.h"
#include "../sample/symbolize.h"
#include "../sample/target.h"

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

struct monitor {
	/* daemon.c: set once from the command line; read by every module. */
	struct comm c;
	volatile int *stop; /* set by SIGTERM/SIGINT: end the watch */
	struct common_options opt;
	bool no_record; /* --no-record: the report leaves the recording layer's records unread */
	int dismissed_total; /* suspicions dismissed in earlier rounds */
	bool quiet;          /* --quiet: only suspicions, hangs and reports */
	double progress_s;   /* --progress: a status line this often (0: none) */
	double next_progress_ms;
	const char *core_dir; /* --core-dir: core files of the culprits before the job is ended */
	/* job.c (job_find_owner, before anything is written): the job's owner, whose processes
	 * alone are its ranks, and whom the files written for it belong to (ownedfile.h). */
	uid_t job_uid;
	gid_t job_gid;
	struct file_owner files_owner;
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

	/* job.c: the job's ranks (owned per round; watch_round_release frees them). */
	struct table_entry *table;
	int nranks;
	struct target *targets; /* local ranks, parallel to local_rank */
	struct progress *prog;  /* what the previous sample of each local rank showed */
	struct symbolizer_pool syms; /* the ranks' symbolizers, one per executable */
	int *local_rank;
	int nlocal;

	/* watch.c: the sampling rounds and the model. sample_set's scratch, sized once per round
	 * (every rank; every monitor). */
	int *owner, *batch;
	bool *asked;
	char *codes, *batch_codes; /* the round's progress letters (progress_code), in set order */

	struct rng rng;
	struct ranksets sets;
	struct detector *det;
	struct stall stall;     /* the second detector: how long nothing has moved */
	/* pipeline.c: the confirmation step and what it reports. */
	struct confirm conf;
	struct decide decide;   /* the models and the window, as stats/decide.c steps them */
	double confirm_s;       /* --confirm */
	long round;             /* sample rounds so far (the leader's) */
	long since;             /* progress counts only against samples of this round or later */
	double suspected_wall;  /* when the current confirmation window opened (Unix time) */
	double last_progress_wall; /* the last sample, before a suspicion, above the threshold (0: none) */
	FILE *trace;
	double t0_ms;
	bool reported;          /* a hang has been reported in this watch */
	/* output.c: what sampling cost, over the whole watch (bench/ reads it from the report). */
	long cost_samples, cost_messages, cost_stopped;
	double cost_ms_sum, cost_ms_max;
	double gap_ms_sum, last_tick_ms, late_ms_sum, late_ms_max; /* the interval achieved */
	json_t *last_model; /* the model of the latest round, for a "none" report */
};


static inline double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline double wall_s(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static inline void sleep_ms(double ms)
{
	if (ms <= 0)
		return;

	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6) };

	nanosleep(&ts, NULL);
}

static inline bool is_leader(const struct monitor *m)
{
	return m->c.me == m->c.leader;
}

#endif
