/* SPDX-License-Identifier: BSD-3-Clause */
/* comm — how monitors talk: MPI-1 point-to-point and a few collectives, nothing else. One
 * monitor leads: the one on the launcher's node when there is one (it alone can see the launcher
 * end), else monitor 0. The leader sends commands; the others wait for them in a low-CPU loop (MPI_Test and
 * a sleep), since Open MPI's blocking calls poll a core at full speed. Replies that carry
 * stacks are JSON text. The only file of the monitor that calls MPI. */
#ifndef PARASTACK_COMM_H
#define PARASTACK_COMM_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "discover.h"
#include "../sample/addr/progress.h"

#define COMM_HOST_MAX 64

enum comm_cmd {
	CMD_SAMPLE = 1, /* payload: round, since-round, ranks to sample; reply: sample_counts */
	CMD_CAPTURE,    /* payload: snapshot number, budget in ms, the monitors left out; reply (to
			 * the sender, TAG_TREE): {"snap", "ranks": rank objects of the subtree,
			 * "missing": monitors of the subtree that did not answer,
			 * "unreached": the monitors below them} */
	CMD_STOP,       /* no reply */
	CMD_AGAIN,      /* the job's ranks are gone, the job is not: discover again; no reply */
	CMD_CAPTURE_RECORD, /* as CMD_CAPTURE, each rank with its recording layer's record */
	CMD_CORE,       /* payload: ranks to write a core file of; reply: JSON array (cores.h) */
};

struct comm {
	int me, size, leader;
	char host[COMM_HOST_MAX];
};

struct table_entry {
	int rank;
	int pid;
	int monitor;
	char host[COMM_HOST_MAX];
};

int comm_init(int *argc, char ***argv, struct comm *c);
void comm_finalize(void);
/* Collective: the lowest monitor with candidate true leads (monitor 0 if none is). */
int comm_elect_leader(struct comm *c, bool candidate);
/* Sum and maximum over monitors (startup only; these block in MPI). */
long comm_sum(long v);
long comm_max(long v);
/* Monitor 0's bytes (*len of them, -1: none) to every monitor: *buf malloc'd on the others. */
void comm_bcast_bytes(char **buf, long *len);
/* Everyone contributes its local processes; everyone gets the whole table, sorted by rank.
 * Returns the number of entries (*all malloc'd). */
int comm_allgather_table(const struct comm *c, const struct job_proc *local, int nlocal,
			 struct table_entry **all);

/* Bytes of JSON this monitor has received from the others (comm_recv_json), since it started:
 * what a report costs the leader (the report's report_cost). */
unsigned long long comm_json_bytes_received(void);

/* Leader side. */
void comm_send_cmd(int to, enum comm_cmd cmd, const int *ranks, int n);
/* The same command, without payload, to every other monitor. */
void comm_send_to_followers(const struct comm *c, enum comm_cmd cmd);
/* Ask a monitor to sample ranks in sample round `round`, comparing each with its previous
 * sample when that was taken in round `since` or later. */
void comm_send_sample(int to, long round, long since, const int *ranks, int n);
/* Wait (low CPU), until deadline_ms (mono_ms), for a monitor's reply to sample round `round`:
 * its counts, and the progress letters of the n ranks it was asked for and whether each was
 * found waiting in its runtime (1), computing (0) or neither (-1), in the order asked
 * (progress_code; '-' and -1 where it sent none). 0, or -1 when none came in time (counts zero,
 * letters '-'); a late reply to an earlier round is dropped when it comes. */
int comm_recv_counts(int from, long round, double deadline_ms, struct sample_counts *c, char *codes,
		     signed char *waits, int n);
/* Wait, until deadline_ms (mono_ms), for a JSON reply from a monitor; NULL when none came in
 * time (json null when it does not parse). */
json_t *comm_recv_json(int from, double deadline_ms);

/* Follower side: wait for the next command (checking every poll_ms, and calling idle(idle_arg),
 * when not NULL, each time); for CMD_SAMPLE, ranks holds the round, the since-round, then the n - 2
 * ranks. Returns the command, or 0 when stop_flag became set while waiting. */
int comm_wait_cmd(int *ranks, int max, int *n, int poll_ms, volatile int *stop_flag,
		  void (*idle)(void *), void *idle_arg);
/* The monitor the last command came from (the leader, or a parent in the tree). */
int comm_last_cmd_source(void);
void comm_send_counts(long round, const struct sample_counts *c, const char *codes, const signed char *waits,
		      int n);
void comm_send_json(json_t *j);

/* The tree (tree.h): ask monitor `to` for snapshot `snap` of its subtree (cmd CMD_CAPTURE or
 * CMD_CAPTURE_RECORD) within budget_ms, leaving out the ngone monitors listed. */
void comm_send_capture(int to, enum comm_cmd cmd, int snap, int budget_ms, const int *gone, int ngone);
/* A subtree's answer, to the monitor that asked. */
void comm_send_tree_reply(int to, json_t *j);
/* Wait until deadline_ms (mono_ms) for an answer from one of the n monitors in from: the JSON
 * (json null when it did not parse) and *who; NULL when none came in time. Answers from
 * monitors not in from (given up on earlier) are dropped. */
json_t *comm_recv_tree_reply(const int *from, int n, double deadline_ms, int *who);

#endif
