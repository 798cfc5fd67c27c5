/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the stop itself (monitor/sample/stop/snapshot.c) on real processes: a rank killed while it is
 * held must still be collectable by its own parent (mpirun, orted, slurmstepd) while the
 * monitor lives, and a thread that is sampled is left running and untraced. */
#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../monitor/sample/stop/snapshot.h"
#include "suites.h"

#define DEADLINE_S 10

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The "launcher": forks the rank, reports its PID on fd, then polls for the rank's death with a
 * deadline. Exits 0 if it reaped the rank, 1 if the deadline passed (the rank stayed an
 * unreapable traced zombie), 2 on a setup failure. */
static void launcher(int fd)
{
	pid_t rank = fork();

	if (rank < 0)
		_exit(2);
	if (rank == 0) {
		for (;;)
			pause();
	}
	if (write(fd, &rank, sizeof(rank)) != sizeof(rank))
		_exit(2);
	close(fd);
	for (int i = 0; i < DEADLINE_S * 100; i++) {
		int status;
		pid_t r = waitpid(rank, &status, WNOHANG);

		if (r == rank)
			_exit(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 2);
		if (r < 0)
			_exit(2);
		sleep_ms(10);
	}
	kill(rank, SIGKILL);
	_exit(1);
}

/* Start a launcher; return its PID and the rank's. */
static pid_t start_launcher(pid_t *rank)
{
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);

	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		launcher(fds[1]);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], rank, sizeof(*rank)), (ssize_t)sizeof(*rank));
	close(fds[0]);
	return pid;
}

static void kill_while_held(pid_t tid, void *arg)
{
	(void)arg;
	kill(tid, SIGKILL);
}

/* Wait for pid with a deadline, reaping our pending traced threads meanwhile (what the
 * monitor's idle loops do). */
static int wait_launcher(pid_t pid)
{
	for (int i = 0; i < (DEADLINE_S + 5) * 100; i++) {
		int status;

		snapshot_reap_pending();
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
		sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 4;
}

START_TEST(rank_killed_while_held_is_reapable_by_its_parent)
{
	struct snapshot s;
	char err[256];
	pid_t rank, pid = start_launcher(&rank);

	memset(&s, 0, sizeof(s));
	snapshot_set_held_hook(kill_while_held, NULL);

	enum snapshot_status st = snapshot_take(rank, &s, 4096, err, sizeof(err));

	snapshot_set_held_hook(NULL, NULL);
	/* The copy succeeded before the kill; the detach is what found the rank gone. */
	ck_assert_int_eq(st, SNAPSHOT_GONE);
	ck_assert_int_eq(wait_launcher(pid), 0);
	ck_assert_int_eq(snapshot_reap_pending(), 0);
	snapshot_release(&s);
}
END_TEST

START_TEST(sampled_rank_runs_on_untraced)
{
	struct snapshot s;
	char err[256], path[64], line[256];
	pid_t rank, pid = start_launcher(&rank);

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 20; i++)
		ck_assert_msg(snapshot_take(rank, &s, 4096, err, sizeof(err)) == SNAPSHOT_OK, "%s", err);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)rank);

	FILE *f = fopen(path, "r");
	int tracer = -1;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	ck_assert_int_eq(tracer, 0);
	kill(rank, SIGKILL);
	ck_assert_int_eq(wait_launcher(pid), 0);
	snapshot_release(&s);
}
END_TEST

Suite *snapshot_suite(void)
{
	Suite *s = suite_create("snapshot");
	TCase *tc = tcase_create("stop");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, rank_killed_while_held_is_reapable_by_its_parent);
	tcase_add_test(tc, sampled_rank_runs_on_untraced);
	suite_add_tcase(s, tc);
	return s;
}
