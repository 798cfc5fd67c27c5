/* SPDX-License-Identifier: BSD-3-Clause */
/* refind — a rank found while still its wrapper (issue 72, job.h's job_refind_exec): a shell
 * carrying the launcher's rank that exec's its program after it was opened is opened again as
 * that program; one already known to be the program (the hostile-job rule) and a rank the user
 * listed by PID are not. Real processes: a shell started with a prepared environment, killed by
 * its process group (which this test created) and reaped at the end. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "suites.h"
#include "../../monitor/job/job.h"
#include "../lib/proctree.h"

/* A shell that waits a moment, then exec's sleep: what `exec "$@"` in a wrapper does. */
static pid_t start_wrapper(void)
{
	static char *env[] = { "PATH=/usr/bin:/bin", "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4", NULL };

	return proctree_start("sleep 1; exec sleep 30", env);
}

/* Is pid running file now? Polled for up to 10 s. */
static bool runs_within(pid_t pid, const char *file)
{
	char path[64];
	struct stat want, now;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(file, &want) < 0)
		return false;
	for (int i = 0; i < 200; i++) {
		if (stat(path, &now) == 0 && now.st_dev == want.st_dev && now.st_ino == want.st_ino)
			return true;
		nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	}
	return false;
}

/* A job of one local rank, opened on pid while it is still the shell. */
static void job_of(struct job *j, pid_t pid)
{
	char err[512];

	memset(j, 0, sizeof(*j));
	j->uid = getuid();
	j->gid = getgid();
	j->targets = calloc(1, sizeof(*j->targets));
	j->prog = calloc(1, sizeof(*j->prog));
	j->local_rank = calloc(1, sizeof(int));
	ck_assert_int_eq(target_open(&j->targets[0], pid, err, sizeof(err)), TARGET_OK);
	j->targets[0].rank = j->local_rank[0] = 3;
	j->nlocal = 1;
}

static void job_release(struct job *j)
{
	target_close(&j->targets[0]);
	free(j->targets);
	free(j->prog);
	free(j->local_rank);
}

START_TEST(a_wrapper_that_execs_is_found_again_as_its_program)
{
	pid_t pid = start_wrapper();
	struct job j;
	char err[512];

	ck_assert(runs_within(pid, "/bin/sh") || runs_within(pid, "/usr/bin/dash"));
	job_of(&j, pid);
	ck_assert(!j.targets[0].was_program); /* a shell maps no MPI library */
	ck_assert(runs_within(pid, "/bin/sleep") || runs_within(pid, "/usr/bin/sleep"));
	ck_assert_int_eq(target_still_same(&j.targets[0], err, sizeof(err)), TARGET_CHANGED);
	ck_assert(job_refind_exec(&j, 0));
	ck_assert_int_eq(target_still_same(&j.targets[0], err, sizeof(err)), TARGET_OK);
	ck_assert_int_eq(j.targets[0].pid, pid);
	ck_assert_int_eq(j.targets[0].rank, 3);
	ck_assert(!job_refind_exec(&j, 0)); /* nothing changed since */
	job_release(&j);
	proctree_stop(pid);
}
END_TEST

START_TEST(a_program_that_execs_stays_not_sampled)
{
	pid_t pid = start_wrapper();
	struct job j;
	char err[512];

	job_of(&j, pid);
	j.targets[0].was_program = true; /* as a sample in MPI would have marked it */
	ck_assert(runs_within(pid, "/bin/sleep") || runs_within(pid, "/usr/bin/sleep"));
	ck_assert(!job_refind_exec(&j, 0));
	ck_assert_int_eq(target_still_same(&j.targets[0], err, sizeof(err)), TARGET_CHANGED);
	ck_assert_ptr_nonnull(strstr(err, "now runs another program"));
	job_release(&j);
	proctree_stop(pid);
}
END_TEST

START_TEST(a_listed_rank_that_execs_stays_not_sampled)
{
	pid_t pid = start_wrapper();
	struct job j;
	struct pid_entry listed = { 0 };

	job_of(&j, pid);
	j.pids = &listed; /* attach --pids: the user named this process, not its next program */
	j.npids = 1;
	ck_assert(runs_within(pid, "/bin/sleep") || runs_within(pid, "/usr/bin/sleep"));
	ck_assert(!job_refind_exec(&j, 0));
	job_release(&j);
	proctree_stop(pid);
}
END_TEST

Suite *refind_suite(void)
{
	Suite *s = suite_create("refind");
	TCase *t = tcase_create("exec");

	tcase_set_timeout(t, 30);
	tcase_add_test(t, a_wrapper_that_execs_is_found_again_as_its_program);
	tcase_add_test(t, a_program_that_execs_stays_not_sampled);
	tcase_add_test(t, a_listed_rank_that_execs_stays_not_sampled);
	suite_add_tcase(s, t);
	return s;
}
