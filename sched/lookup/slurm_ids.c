/* SPDX-License-Identifier: BSD-3-Clause */
/* slurm_ids — Slurm's job and step ids as users write them ("1234", "1234.0"): parsing only, no
 * libslurm, so a parastack built without Slurm (make SLURM=no) still reads them and says what it
 * cannot do with them. The lookups themselves are lookup_slurm.c (or lookup_slurm_none.c). */
#include "lookup_slurm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lookup_slurm_parse_jobid(const char *text, uint32_t *id)
{
	char *end;
	unsigned long v;

	if (!text || !*text || *text == '-' || *text == '+')
		return -1;
	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || *end || v == 0 || v >= 0xfffffff0UL)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

int lookup_slurm_parse_job_step(const char *text, uint32_t *id, struct slurm_steps *steps)
{
	const char *dot = text ? strchr(text, '.') : NULL;
	char job[16];

	*steps = (struct slurm_steps){ .one = false };
	if (!dot)
		return lookup_slurm_parse_jobid(text, id);
	if ((size_t)(dot - text) >= sizeof(job) || !dot[1] || dot[1] == '-' || dot[1] == '+')
		return -1;
	snprintf(job, sizeof(job), "%.*s", (int)(dot - text), text);

	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(dot + 1, &end, 10);
	if (errno || *end || v >= 0xfffffff0UL || lookup_slurm_parse_jobid(job, id) < 0)
		return -1;
	*steps = (struct slurm_steps){ .one = true, .step = (uint32_t)v };
	return 0;
}
