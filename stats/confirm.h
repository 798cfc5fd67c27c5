/* SPDX-License-Identifier: BSD-3-Clause */
/* confirm — the second of the three steps after the model (design.md §4): suspect, confirm,
 * act. A suspicion of either model (S's, detector.h; the stall model, stall.h), or - for a
 * hang that began before a model could judge it - half a confirmation window in which no
 * sampled rank got anywhere (two whole windows for any other hang no model suspected), opens a
 * confirmation; any rank waiting in MPI that is seen to move, or samples that
 * show the job computing again, dismiss it; a window with evidence that nothing moves confirms
 * the hang. Pure: it sees only what each sample found (no ptrace, no MPI, no clock). */
#ifndef PARASTACK_CONFIRM_H
#define PARASTACK_CONFIRM_H

#include <stdbool.h>

#include "detector.h"

#define CONFIRM_DEFAULT_S 60.0     /* --confirm: covers a rank pausing 40 s in its own code */
#define CONFIRM_GROWTH 2.0         /* the window is at least this times the longest healthy
				    * suspicion run the job has shown */
#define CONFIRM_INIT_GRACE_S 600.0 /* ranks inside MPI_Init (torch.distributed's
				    * init_process_group) are starting, not hung - unless the ranks
				    * not there yet stand still (confirm.c's start-up rule) */
#define CONFIRM_MOVES 2            /* samples showing movement that dismiss a window: one odd
				    * sample is not enough, a job that moves shows many */

/* What one sample found among the C sampled ranks. */
struct confirm_sample {
	double t_ms;
	enum detector_verdict verdict; /* the model's, for this sample */
	bool hang_ongoing;             /* detector_hang_ongoing(): the model still sees the hang */
	double longest_healthy_ms;     /* the detector's */
	int live;   /* ranks sampled */
	int moved;  /* seen to move since their previous sample (taken since the `since` round) */
	int still;  /* waiting in MPI exactly as in their previous sample */
	int kernel; /* in uninterruptible sleep (D) */
	int init;   /* inside MPI_Init, or torch's rendezvous (modreg.c) */
	int idle;   /* outside MPI (and MPI_Init): stood still, its CPU time and I/O unchanged */
	int busy;   /* outside MPI (and MPI_Init): its stack, CPU time or I/O changed */
	bool model_ready; /* a model could judge a hang beginning now: the stall model has a
			   * history, or S's could reach a verdict within a window (decide.c) */
	bool stall_hang;    /* the stall model's verdict for this sample is a hang (stall.h) */
	bool stall_ongoing; /* stall_hang_ongoing(): it still sees the hang */
};

enum confirm_event {
	CONFIRM_NOTHING,
	CONFIRM_SUSPECTED, /* a confirmation window opens now */
	CONFIRM_MOVED,     /* the suspicion is dismissed: the job moves */
	CONFIRM_HANG,      /* confirmed: report and act */
	CONFIRM_RESOLVED,  /* a hang reported earlier (--on-hang=report) is over: the job moves */
};

enum confirm_basis {
	CONFIRM_BY_MODEL,    /* the model of S suspected; the window confirmed */
	CONFIRM_BY_STALL,    /* the stall model (nothing moved for too long) suspected */
	CONFIRM_BY_EVIDENCE, /* no model verdict: nothing moved for a whole window */
	CONFIRM_BY_RECORDS,  /* the recording layer's records prove it, on two snapshots (issue 68) */
};

struct confirm {
	double window_ms;      /* --confirm */
	enum { WATCHING, CONFIRMING, HUNG } state;
	enum confirm_basis basis;
	double suspected_ms;   /* when the current confirmation opened */
	double deadline_ms;    /* when it confirms, unless something moves (confirm_add's
				* deadline_due: the window's own, or the start-up's) */
	double own_deadline_ms; /* the window's own: suspected_ms + confirm_window_ms, grown */
	double quiet_since_ms; /* no rank seen to move since then */
	long evidence;         /* "still" comparisons in the current stretch */
	int moves;             /* samples with movement since the window opened (or the hang) */
	bool all_in_kernel;    /* some rank in D in every sample of the current stretch... */
	int kernel_samples;    /* ...of which there was at least one */
	bool started;          /* a rank was in MPI_Init (or torch's rendezvous) in a sample
				* since the last that saw a rank move */
	double startup_idle_since_ms; /* started: a rank outside MPI_Init found standing still
				       * since then, and none found busy; -1: not */
	double startup_pause_ms; /* started: the longest such stand-still that ended in a rank
				  * found busy (the start-up's own evidence of a healthy pause) */
	bool model_ready;      /* the latest sample's: the model has a history */
	bool early;            /* the current quiet stretch began before the model had one */
	double last_ms;
	int suspicions, dismissed;
};

void confirm_init(struct confirm *c, double window_s);
/* Feed one sample; what happens now. After CONFIRM_SUSPECTED the caller counts progress only
 * from samples taken from this round on. */
enum confirm_event confirm_add(struct confirm *c, const struct confirm_sample *s);
/* A hang it confirmed was found to move after all (the check after --confirm 0): watching
 * goes on, as after CONFIRM_MOVED. */
void confirm_dismiss(struct confirm *c, double t_ms);
/* The records prove a hang at t_ms (the caller checked them on two snapshots): confirmed now,
 * whatever the window says; the window stays for hangs only the stacks show. */
void confirm_prove(struct confirm *c, double t_ms);
/* Has the current quiet stretch lasted quiet_ms with evidence (ranks still in MPI), nothing
 * moved since? The caller's cue to read the records early. */
bool confirm_quiet_for(const struct confirm *c, double t_ms, double quiet_ms);
/* The window in force now, in ms (grows with the job's longest healthy suspicion run; at
 * start-up, CONFIRM_INIT_GRACE_S, or twice the longest pause the start-up has shown where a
 * rank not yet in MPI_Init stands still). */
double confirm_window_ms(const struct confirm *c, double longest_healthy_ms);
/* At start-up, how long (ms, at t_ms) the ranks not yet in MPI_Init have stood still, none
 * busy (the start-up rule's evidence); -1 when that is not what the window holds. */
double confirm_start_up_still_ms(const struct confirm *c, double t_ms);
/* The report's and replay's word for a basis: "model", "stall model", "progress evidence",
 * "records". */
const char *confirm_basis_name(enum confirm_basis b);
/* The confirmed hang was one of ranks stuck in the kernel (every sample of the window). */
bool confirm_is_io(const struct confirm *c);

#endif
