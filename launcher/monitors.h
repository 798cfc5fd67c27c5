/* SPDX-License-Identifier: BSD-3-Clause */
/* monitors — starting parastack-monitor as an MPI job of its own over a running job's nodes,
 * for `attach` (to watch) and `stack` (one look): one monitor on this machine, one per host of
 * a PID file, or one per node of a Slurm job's allocation, where mpirun, told the allocation
 * through the SLURM_* variables, starts them with `srun --overlap` so they share the nodes'
 * CPUs with the job's steps. */
#ifndef PARASTACK_MONITORS_H
#define PARASTACK_MONITORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../base/pidlist.h"
#include "../sched/lookup/lookup_slurm.h"

/* Where and on what the monitors run: a Slurm allocation to start them in (or NULL), the hosts
 * for mpirun (empty: one per node of the allocation, or one here), and the option naming the
 * job for the monitor ("--slurm-job" / "--pids-file" and its value). */
struct placement {
	const struct slurm_job_info *alloc;
	char *hosts; /* malloc'd, or NULL: none named */
	const char *what, *value;
};

/* Is host (from a PID list) this machine? */
bool monitors_is_this_machine(const char *host);

/* The distinct hosts of the entries, comma-separated in the order they first appear, into pl
 * (however many; sorted once, not compared pairwise): 1; 0 when all are this machine; -1 out of
 * memory. */
int monitors_spans_hosts(const struct pid_entry *e, int n, struct placement *pl);

/* Slurm job id, which must be running (else one line, from cmd, ending in why_it_matters).
 * 0 or -1. */
int monitors_running_job(const char *cmd, uint32_t id, struct slurm_job_info *job,
			 const char *why_it_matters);

/* Where the monitors run: one here, or one on each node of the job. */
struct monitor_spread {
	const char *hosts;    /* one on each of these ("n1,n2"), or NULL */
	const char *hostfile; /* one on each host of this file (each named once: Torque's), or NULL */
	int nodes;            /* the allocation's node count when known (Slurm), else 0 */
	bool per_node;        /* one per node (of hosts, hostfile or the allocation), else one here */
	bool oversubscribe;   /* beside the job's own ranks on their cores (Open MPI asks for it) */
	char count[16];       /* the monitors' count, for hydra's -n: storage for the words */
};

/* The head of the monitors' launch line, for the launcher the build was configured with
 * (install_mpirun): Open MPI's `mpirun [--host H | --hostfile F] (--map-by ppr:1:node | -np 1)
 * --bind-to none [--oversubscribe]`, or hydra's `mpiexec [-hosts H | -f F] [-ppn 1] -n COUNT -bind-to none`. The
 * words written (at most MONITORS_ARGV_MAX). */
#define MONITORS_ARGV_MAX 10
int monitors_mpirun_argv(char **argv, struct monitor_spread *s);

/* mpirun with the monitors: `monitor WHAT VALUE extra...` (extra NULL-terminated), its
 * standard output on out_fd (-1: ours), its signals back at their defaults. The PID, or -1. */
pid_t monitors_start(const struct placement *pl, const char *monitor, char *const *extra, int out_fd);

/* A line of the monitors' standard output: their leader's outcome line ("hang", "none",
 * "error": into outcome), or anything else, passed on to ours. */
void monitors_relay_line(const char *line, char *outcome, size_t len);

#endif
