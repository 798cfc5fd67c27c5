/* SPDX-License-Identifier: BSD-3-Clause */
/* job_pattern — the file name patterns sbatch's -o takes, for --report and --trace inside a
 * batch job, so each task of a job array writes its own: %j the job id, %A the array's job id,
 * %a the task's index, %x the job name, %u the user, %% a percent sign; from Slurm's variables,
 * or Torque's/PBS's (PBS_JOBID, PBS_ARRAYID or PBS_ARRAY_INDEX, PBS_JOBNAME). Outside a job, or
 * for a variable the job lacks, a pattern stays as written. */
#ifndef PARASTACK_JOB_PATTERN_H
#define PARASTACK_JOB_PATTERN_H

/* path with its patterns expanded (malloc'd), or NULL when out of memory. */
char *job_pattern_expand(const char *path);

#endif
