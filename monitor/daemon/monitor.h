/* SPDX-License-Identifier: BSD-3-Clause */
/* monitor — the per-node monitor's shared state (struct monitor). parastack-monitor is a
 * pipeline; a sample passes through, in order:
 *   daemon.c  its life: options, start, signals, the rounds, the end (main)
 *   job/job.c finding the job: this node's ranks, every monitor's (the rank table), targets
 *             (struct job, a part of this one)
 *   watch.c   the watch loop: the leader's tick, one sampling round (sample one rank:
 *             target.c, unwind_libunwind.c, classify, progress.c), the model (stats/)
 *   pipeline.c suspect -> confirm (stats/confirm.c) -> act: snapshots, diagnosis (hang/), report
 *   output.c  what the job's output and the report get: lines, JSON, status, cores
 * (monitor/README has the map of the rest, room by room.) Each module touches only the part of struct
 * monitor its comment names; what the loops share is passed as this struct, no globals. */
#ifndef PARASTACK_MONITOR_H
#define PARASTACK_MONITOR_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>

#include <jansson.h>

#include "../../stats/stats.h"
#include "../../base/clock.h"
#include "../../base/options.h"
#include "../job/job.h"
#include "../sample/print/pstack.h"

#define SNAPSHOTS 5            /* snapshots that decide the faulty ranks */
#define SNAPSHOT_GAP_MAX_MS 1000
/* Ranks in MPI_Init for the confirmation window, or this if longer: the job's output says
 * the job is still starting (pipeline.c). */
#define STARTUP_NOTE_MIN_S 10.0
#define SNAPSHOT_GAP_MIN_MS 200
#define IDLE_POLL_MS 50
#define ACTIVE_POLL_MS 2
#define CORES_REPLY_MS 300000 /* gcore of every faulty rank a monitor holds */
#define SAMPLE_REPLY_S 10 /* a monitor that takes longer to answer a sample request is left out */
#define SAMPLE_REPLY_MS (SAMPLE_REPLY_S * 1000)
#define STR_(x) #x
#define STR(x) STR_(x)
#define ROUND_MIN_MS 1000 /* rounds start at most this often */
#define STACK_FIND_MS 10000 /* --stack: how long to wait for a job's ranks to appear */

struct monitor {
	/* daemon.c: set once from the command line; read by every module. */
	struct comm comm;
	volatile int *stop; /* set by SIGTERM/SIGINT: end the watch */
	/* The model and the watch, as run and attach pass them (options.h): --no-record leaves the
	 * recording layer's records unread in the report; --core-dir writes core files of the
	 * culprits before the job is ended; --confirm is the confirmation window. */
	struct watch_options w;
	int dismissed_total; /* suspicions dismissed in earlier rounds */
	double next_progress_ms;
	enum pstack_format stack_format; /* --stack: look once, print, exit */
	const char *status_path;

	/* job.c: the job (its launcher, owner and ranks; struct job says which part is set when;
	 * its ranks are owned per round and watch_round_release frees them). */
	struct job job;

	/* watch.c: the sampling rounds and the model. sample_set's scratch, sized once per round
	 * (every rank; every monitor). */
	int *owner, *batch;
	bool *asked;
	char *codes, *batch_codes; /* the round's progress letters (progress_code), in set order */
	signed char *waits, *batch_waits; /* and whether each rank waited in its runtime (1), computed (0), neither (-1) */
	int *index;                /* the round's ranks' places in the table (-1: not in it), in set order */

	struct rng rng;
	struct ranksets sets;
	struct detector *det;
	struct stall stall;     /* the second detector: how long nothing has moved */
	/* pipeline.c: the confirmation step and what it reports. */
	struct confirm conf;
	struct decide decide;   /* the models and the window, as stats/decide.c steps them */
	long round;             /* sample rounds so far (the leader's) */
	long since;             /* progress counts only against samples of this round or later */
	/* The current suspicion's times (Unix time): when its confirmation window opened (the
	 * quiet stretch's start, for progress evidence), when the hang began as far as the samples
	 * tell (that, or the last progress seen before it), when it was raised (its line printed)
	 * and when the hang was confirmed. */
	double window_wall, began_wall, suspected_wall, confirmed_wall;
	double last_progress_wall; /* the last sample, before a suspicion, above the threshold (0: none) */
	double last_move_wall;     /* the last sample in which a rank moved (progress.h; 0: none) */
	double quiet_at_suspicion_s; /* the stall model's quiet stretch when it raised the suspicion */
	char waits_in[64];           /* what the ranks waited in at the suspicion: "MPI", "gloo" */
	FILE *trace;
	double t0_ms;
	bool reported;          /* a hang has been reported in this watch */
	bool said_two_runs;     /* two MPI runs at once was said (round_two_runs) */
	double init_since_ms;   /* a sampled rank inside MPI_Init in every sample since (monotonic; -1: not) */
	bool said_startup;      /* a long start-up was said, in this round (pipeline.c) */
	double start_up_still_s; /* the confirmed hang's: how long the ranks not yet in MPI_Init
				  * stood still (confirm_start_up_still_ms); -1: not a start-up's */
	/* proof.c: reading the records early, for a hang they prove (issue 68). */
	double proof_next_ms, proof_gap_ms; /* the next probe no sooner (decision time), and the gap */
	bool proof_off;                     /* no record to read: never probed again */
#define PROOF_TEXT_MAX 160
	char proof[PROOF_TEXT_MAX];         /* what proved the reported hang */
	/* output.c: what sampling cost, over the whole watch (bench/ reads it from the report). */
	long cost_samples, cost_messages, cost_stopped;
	double cost_ms_sum, cost_ms_max;
	double gap_ms_sum, last_tick_ms, late_ms_sum, late_ms_max; /* the interval achieved */
	json_t *last_model; /* the model of the latest round, for a "none" report */
	/* memory.c: the remembered model of this round's program (memory.h). */
	char memory_file[PATH_MAX]; /* DIR/KEY.prior; "" when nothing is remembered or kept */
	bool memory_recalled;       /* the round's models started from it */
	bool memory_pending;        /* its recall waits for a rank seen to be its program */
	bool job_ended;             /* the round ended by the job's end: its ranks or its launcher gone (watch.c) */
	/* site.c: the counters of --metrics-dir, and what of them is in the textfile already. */
#define SITE_HANG_TYPES 3
	int suspicions_total;            /* raised in this watch (pipeline.c) */
	long site_hangs[SITE_HANG_TYPES]; /* reported, by type: computation, communication, io */
	long site_sent[10];              /* promfile.h's PROM_SERIES, asserted in site.c */
	int stragglers_total;            /* ranks named as stragglers in this watch (stragglers.c) */
	bool site_gauge;                 /* the job's gauge file is written (site.c) */
	bool site_said;                  /* the textfile's trouble said once */
	/* stragglers.c: the rank that holds the job back (issue 69): this round's model and the stragglers of the watch's earlier rounds. */
	struct straggler strag;
	json_t *stragglers;
	/* jobmeta.c: the job as its reports name it, kept from its rounds. */
	json_t *meta_hosts;
	char *meta_command;
	double meta_started_wall;
	int strag_pending;               /* flagged while the hang model was suspicious: not said yet (-1: none) */
	/* gather.c: the monitors' tree (job/tree.h) and who has stopped answering: left out of
	 * sampling and snapshots from then on, each named once in the job's output and in the
	 * report's missing_monitors. */
	bool *gone;       /* comm.size flags */
	int snap;         /* snapshots asked so far */
	json_t *missing;  /* the monitors left out: {"monitor", "host", "ranks"} */
};


static inline bool is_leader(const struct monitor *m)
{
	return m->comm.me == m->comm.leader;
}

#endif
