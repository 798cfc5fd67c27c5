/* SPDX-License-Identifier: BSD-3-Clause */
/* discover — which processes of a real process tree are ranks (discover.h): torchrun's layout
 * (the agent, which carries its launcher's rank, is no rank; its workers are, by RANK and
 * WORLD_SIZE), a worker's own children are helpers, and an MPI launcher's rank variable still
 * makes a rank. Each tree is a shell started with a prepared environment; it is killed (by its
 * process group, which this test created) and reaped at the end. */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "suites.h"
#include "../../monitor/job/discover.h"
#include "../lib/proctree.h"

/* Discover below root until want ranks are found (the shell starts its children) or 10 s pass. */
static int discover_until(pid_t root, int want, struct job_proc *out, int max)
{
	int n = 0;

	for (int i = 0; i < 200 && (n = discover_descendants(root, out, max)) != want; i++)
		nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	return n;
}

START_TEST(torchrun_agent_is_no_rank_its_workers_are)
{
	char *env[] = { "PATH=/usr/bin:/bin", "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", NULL };
	/* Node 1's agent (rank 1 of mpirun's two) starting workers 2 and 3 of four, as torchrun does:
	 * each worker inherits the agent's OMPI_COMM_WORLD_RANK. */
	pid_t agent = proctree_start("env TORCHELASTIC_RUN_ID=j RANK=2 WORLD_SIZE=4 sleep 30 & "
				 "env TORCHELASTIC_RUN_ID=j RANK=3 WORLD_SIZE=4 sleep 30 & wait", env);
	struct job_proc p[8];
	int n = 0;

	/* Until the workers are started: before its exec, a worker is a forked copy of the agent's
	 * shell, carrying rank 1 and no TORCHELASTIC_RUN_ID (seen on a loaded machine). */
	for (int i = 0; i < 200 && !((n = discover_until(agent, 2, p, 8)) == 2 && p[0].rank == 2); i++)
		nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(p[0].rank, 2);
	ck_assert_int_eq(p[1].rank, 3);
	ck_assert_int_eq(p[0].world_size, 4);
	ck_assert_int_ne(p[0].pid, agent);
	ck_assert_int_ne(p[1].pid, agent);
	proctree_stop(agent);
}
END_TEST

/* The shell started with env running script is the one rank below itself: rank, of size. */
static void expect_only_itself(const char *script, char *const env[], int rank, int size)
{
	pid_t root = proctree_start(script, env);
	struct job_proc p[8];

	/* Give the shell its children first: they must not change what it is. */
	nanosleep(&(struct timespec){ 0, 200 * 1000 * 1000 }, NULL);

	int n = discover_until(root, 1, p, 8);

	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(p[0].pid, root);
	ck_assert_int_eq(p[0].rank, rank);
	ck_assert_int_eq(p[0].world_size, size);
	proctree_stop(root);
}

START_TEST(a_workers_own_children_are_helpers)
{
	char *env[] = { "PATH=/usr/bin:/bin", "TORCHELASTIC_RUN_ID=j", "RANK=5", "WORLD_SIZE=8", NULL };

	/* A worker that forked (a data loader's workers): the forks carry the same variables, and
	 * a worker with children is still no agent. */
	expect_only_itself("sleep 30 & sleep 30 & wait", env, 5, 8);
}
END_TEST

START_TEST(an_mpi_rank_without_workers_stays_a_rank)
{
	char *env[] = { "PATH=/usr/bin:/bin", "OMPI_COMM_WORLD_RANK=4", "OMPI_COMM_WORLD_SIZE=6", NULL };

	/* A rank that started a helper (popen): its child has no torchrun variables. */
	expect_only_itself("sleep 30 & wait", env, 4, 6);
}
END_TEST

START_TEST(slurm_procid_alone_is_no_rank)
{
	/* srun's task without a communication library mapped (a batch shell, srun itself). */
	char *env[] = { "PATH=/usr/bin:/bin", "SLURM_PROCID=0", "SLURM_NTASKS=1", NULL };
	pid_t shell = proctree_start("sleep 30 & wait", env);
	struct job_proc p[8];

	nanosleep(&(struct timespec){ 0, 200 * 1000 * 1000 }, NULL);
	ck_assert_int_eq(discover_descendants(shell, p, 8), 0);
	proctree_stop(shell);
}
END_TEST

Suite *discover_suite(void)
{
	Suite *s = suite_create("discover");
	TCase *tc = tcase_create("trees");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, torchrun_agent_is_no_rank_its_workers_are);
	tcase_add_test(tc, a_workers_own_children_are_helpers);
	tcase_add_test(tc, an_mpi_rank_without_workers_stays_a_rank);
	tcase_add_test(tc, slurm_procid_alone_is_no_rank);
	suite_add_tcase(s, tc);
	return s;
}
