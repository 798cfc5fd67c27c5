/* SPDX-License-Identifier: BSD-3-Clause */
/* lookup_torque — what parastack needs from Torque/PBS: the job it runs in, from the variables
 * Torque gives a job (PBS_JOBID, PBS_NODEFILE with one line per slot, PBS_NUM_NODES,
 * PBS_NUM_PPN, PBS_O_WORKDIR), a host file with each node once (so mpirun starts one monitor
 * per node), ending the job with qdel, and the `-l nodes=N:ppn=P` resource syntax. No Torque
 * library is needed: these are Torque's documented interfaces. Failures come back as one line
 * in err. */
#ifndef PARASTACK_LOOKUP_TORQUE_H
#define PARASTACK_LOOKUP_TORQUE_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#define SCHED_TORQUE_HOSTS_MAX 1000000 /* distinct hosts of a node file: past it, one line */
#define SCHED_TORQUE_NAME_MAX 256

struct torque_job {
	char id[128];                  /* PBS_JOBID, e.g. "1234.server" */
	char nodefile[4096];           /* PBS_NODEFILE */
	char workdir[4096];            /* PBS_O_WORKDIR, "" when unset */
	int num_nodes;                 /* PBS_NUM_NODES, or -1 when unset */
	int num_ppn;                   /* PBS_NUM_PPN, or -1 when unset */
	int slots;                     /* lines of the node file */
	int nhosts;                    /* distinct hosts, in the order of first appearance */
	char (*hosts)[SCHED_TORQUE_NAME_MAX]; /* nhosts of them (malloc'd: lookup_torque_free) */
	int *host_slots;
	int hosts_cap;
	int *host_index;               /* hash of the names: index into hosts, or -1 */
	int index_cap;
};

/* Free what reading a node file allocated in j (its hosts). */
void lookup_torque_free(struct torque_job *j);

/* Is text a Torque job id: digits, an optional array index "[N]" or "[]", an optional
 * ".server" suffix? */
bool lookup_torque_valid_jobid(const char *text);

/* Read a node file (one host name per slot; blank lines ignored) into j's hosts and slots,
 * however many (each line found in its host by a hash, not by comparing with every host).
 * 0, or -1 with err naming the file and the line at fault. Either way j holds memory of its
 * own for lookup_torque_free (its earlier hosts are not freed). */
int lookup_torque_read_nodefile(const char *path, struct torque_job *j, char *err, size_t len);
/* The same on an open stream (path names it in messages): for tests and fuzzing. */
int lookup_torque_parse_nodefile(FILE *f, const char *path, struct torque_job *j, char *err,
				size_t len);

/* The Torque job this process runs in, from the environment: 1 when PBS_JOBID and
 * PBS_NODEFILE are set and valid, 0 when not in a Torque job (PBS_JOBID unset), -1 with err
 * when the variables are there but wrong (bad id, no or unreadable node file). PBS_NUM_NODES
 * and PBS_NUM_PPN are only recorded: the node file is what the job really got. */
int lookup_torque_from_env(struct torque_job *j, char *err, size_t len);

/* Write j's hosts, each once, as an Open MPI host file ("HOST slots=1"). 0, or -1 with err. */
int lookup_torque_write_hostfile(const struct torque_job *j, const char *path, char *err,
				size_t len);

/* End the job as its owner would: `qdel ID`. 0 once qdel succeeded, or -1 with err. */
int lookup_torque_delete(const char *id, char *err, size_t len);

/* Parse the nodes part of a resource list, "nodes=N:ppn=P" (as in `-l nodes=4:ppn=2,walltime=
 * 1:00:00`): 1 with *nodes and *ppn (1 when ppn is not given), 0 when the list has no simple
 * nodes=N request (none, a host list, or several "+"-joined parts), -1 when it is malformed. */
int lookup_torque_parse_nodes(const char *resource_list, int *nodes, int *ppn);

#endif
