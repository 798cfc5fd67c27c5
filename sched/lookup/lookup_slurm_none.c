/* SPDX-License-Identifier: BSD-3-Clause */
/* lookup_slurm_none — the Slurm lookups of a parastack built without libslurm (make SLURM=no):
 * each answers with one line saying so, so `attach --slurm-job` or a run inside an allocation
 * fails plainly instead of the build failing for want of Slurm's headers. */
#include "lookup_slurm.h"

#include <stdio.h>

static int without_slurm(char *err, size_t len)
{
	snprintf(err, len, "this parastack was built without Slurm (make SLURM=no): rebuild it with "
		 "libslurm (Debian's libslurm-dev) to watch Slurm jobs");
	return -1;
}

int lookup_slurm_job(uint32_t id, struct slurm_job_info *job, char *err, size_t len)
{
	(void)id, (void)job;
	return without_slurm(err, len);
}

int lookup_slurm_step_pids(uint32_t id, const struct slurm_steps *steps, const char *node, pid_t *pids,
			   int max, char *err, size_t len)
{
	(void)id, (void)steps, (void)node, (void)pids, (void)max;
	return without_slurm(err, len);
}

int lookup_slurm_step_nodes(uint32_t id, uint32_t step, struct slurm_job_info *job, char *err, size_t len)
{
	(void)id, (void)step, (void)job;
	return without_slurm(err, len);
}

int lookup_slurm_admin_comment(uint32_t id, const char *text, char *err, size_t len)
{
	(void)id, (void)text;
	return without_slurm(err, len);
}

int lookup_slurm_cancel(uint32_t id, const struct slurm_steps *steps, char *err, size_t len)
{
	(void)id, (void)steps;
	return without_slurm(err, len);
}
