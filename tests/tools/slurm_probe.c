/* SPDX-License-Identifier: BSD-3-Clause */
/* slurm_probe — the sched/slurm module from the command line, for the cluster tests:
 *   slurm_probe job JOBID          state, exit status, batch host and nodes
 *   slurm_probe pids JOBID NODE    the PIDs of the job's steps on NODE, one per line */
#include <stdio.h>
#include <string.h>

#include "../../sched/lookup/lookup_slurm.h"

int main(int argc, char **argv)
{
	static struct slurm_job_info job;
	static pid_t pids[65536];
	char err[512];
	uint32_t id;

	if (argc < 3 || lookup_slurm_parse_jobid(argv[2], &id) < 0) {
		fprintf(stderr, "usage: slurm_probe job JOBID | pids JOBID NODE\n");
		return 2;
	}
	if (!strcmp(argv[1], "job")) {
		if (lookup_slurm_job(id, &job, err, sizeof(err)) < 0) {
			fprintf(stderr, "slurm_probe: %s\n", err);
			return 1;
		}
		printf("state %s\nexit %d\nbatch_host %s\nnodes", job.state, job.exit_status, job.batch_host);
		for (int i = 0; i < job.num_nodes; i++)
			printf(" %s", job.nodes[i]);
		printf("\n");
		return 0;
	}
	if (!strcmp(argv[1], "pids") && argc == 4) {
		int n = lookup_slurm_step_pids(id, &(struct slurm_steps){ .one = false }, argv[3], pids, 65536, err, sizeof(err));

		if (n < 0) {
			fprintf(stderr, "slurm_probe: %s\n", err);
			return 1;
		}
		for (int i = 0; i < n; i++)
			printf("%d\n", (int)pids[i]);
		return 0;
	}
	fprintf(stderr, "usage: slurm_probe job JOBID | pids JOBID NODE\n");
	return 2;
}
