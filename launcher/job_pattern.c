/* SPDX-License-Identifier: BSD-3-Clause */
/* job_pattern — see job_pattern.h. */
#include "job_pattern.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *env_first(const char *a, const char *b)
{
	const char *v = getenv(a);

	return v && *v ? v : b ? getenv(b) : NULL;
}

/* The array's job id under Torque/PBS: PBS_JOBID without its "[index]". */
static const char *pbs_array_id(char *buf, size_t len)
{
	const char *id = getenv("PBS_JOBID");

	if (!id || !*id)
		return NULL;
	snprintf(buf, len, "%.*s%s", (int)strcspn(id, "["), id, strchr(id, ']') ? strchr(id, ']') + 1 : "");
	return buf;
}

/* What %c stands for, or NULL when the job does not say. */
static const char *pattern_value(char c, char *buf, size_t len)
{
	struct passwd *pw;

	switch (c) {
	case 'j': return env_first("SLURM_JOB_ID", "PBS_JOBID");
	case 'A': return getenv("SLURM_ARRAY_JOB_ID") ? getenv("SLURM_ARRAY_JOB_ID") : pbs_array_id(buf, len);
	case 'a': return getenv("SLURM_ARRAY_TASK_ID") ? getenv("SLURM_ARRAY_TASK_ID") :
			 env_first("PBS_ARRAYID", "PBS_ARRAY_INDEX");
	case 'x': return env_first("SLURM_JOB_NAME", "PBS_JOBNAME");
	case 'u': return (pw = getpwuid(getuid())) ? pw->pw_name : NULL;
	case '%': return "%";
	default: return NULL;
	}
}

char *job_pattern_expand(const char *path)
{
	char *out = NULL, buf[256];
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (const char *p = path; *p; p++) {
		const char *v = p[0] == '%' && p[1] ? pattern_value(p[1], buf, sizeof(buf)) : NULL;

		if (v) {
			fputs(v, f);
			p++;
		} else {
			fputc(*p, f);
		}
	}
	fclose(f);
	return out;
}
