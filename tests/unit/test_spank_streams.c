/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the SPANK plugin's stream handoff (sched/slurm/spank_streams.c) across real forks, as
 * slurmstepd runs it: the pair made before the task forks, the task sending its standard output
 * and error just before its exec, the watcher (a second fork) receiving them and writing the
 * job's lines through them; a task that ends without sending reads as "never came", at once. */
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../sched/slurm/spank_streams.h"
#include "suites.h"

/* A "task": its stdout and stderr become the write ends of out and err; it sends them (or not)
 * once go has a byte, and then writes a line of its own to each. */
static pid_t task_start(const int out[2], const int err[2], const int go[2], bool sends)
{
	pid_t pid = fork();

	if (pid == 0) {
		char byte;

		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		if (read(go[0], &byte, 1) != 1)
			_exit(2);
		if (sends)
			streams_send(true);
		else
			streams_close();
		_exit(write(STDOUT_FILENO, "task\n", 5) == 5 ? 0 : 3);
	}
	return pid;
}

/* What a pipe holds once every writer has closed it, at most len - 1 bytes. */
static void pipe_drain(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
}

/* The whole handoff; *received: the watcher had the task's streams (its wait at most wait_ms). */
static void handoff(bool sends, int wait_ms, char *outbuf, char *errbuf, size_t len, int *received)
{
	int out[2], err[2], go[2], st;
	pid_t task, watcher;

	ck_assert_int_eq(pipe(out), 0);
	ck_assert_int_eq(pipe(err), 0);
	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(streams_open(), 0);
	task = task_start(out, err, go, sends);
	ck_assert_int_gt(task, 0);
	watcher = fork();
	if (watcher == 0) {
		int o = -1, e = -1;

		close(out[1]);
		close(err[1]);
		if (streams_receive(&o, &e, wait_ms) < 0)
			_exit(10);
		_exit(write(o, "watcher out\n", 12) == 12 && write(e, "watcher err\n", 12) == 12 ? 0 : 11);
	}
	streams_close(); /* slurmstepd's copies, once the watcher is forked */
	ck_assert_int_eq(write(go[1], "g", 1), 1); /* the task unblocked */
	close(out[1]);
	close(err[1]);
	close(go[0]);
	close(go[1]);
	ck_assert_int_eq(waitpid(task, &st, 0), task);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(waitpid(watcher, &st, 0), watcher);
	ck_assert(WIFEXITED(st));
	*received = WEXITSTATUS(st) == 0;
	pipe_drain(out[0], outbuf, len);
	pipe_drain(err[0], errbuf, len);
	close(out[0]);
	close(err[0]);
}

START_TEST(the_watcher_writes_through_the_tasks_own_streams)
{
	char out[128], err[128];
	int received = 0;

	handoff(true, 20000, out, err, sizeof(out), &received);
	ck_assert_int_eq(received, 1);
	ck_assert_ptr_nonnull(strstr(out, "watcher out\n"));
	ck_assert_ptr_nonnull(strstr(out, "task\n"));
	ck_assert_str_eq(err, "watcher err\n");
}
END_TEST

START_TEST(a_task_that_never_sends_ends_the_wait_at_once)
{
	char out[128], err[128];
	int received = 1;

	/* The wait is longer than the test's own timeout: only the end of the task's copies of the
	 * pair, read as the end, lets this test finish. */
	handoff(false, 60000, out, err, sizeof(out), &received);
	ck_assert_int_eq(received, 0);
	ck_assert_str_eq(out, "task\n");
	ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(without_a_pair_nothing_is_received)
{
	int o = -1, e = -1;

	streams_close();
	ck_assert_int_eq(streams_receive(&o, &e, 10), -1);
	ck_assert_int_eq(o, -1);
	streams_send(true); /* nothing to send on: no effect */
}
END_TEST

Suite *spank_streams_suite(void)
{
	Suite *s = suite_create("spank_streams");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, the_watcher_writes_through_the_tasks_own_streams);
	tcase_add_test(tc, a_task_that_never_sends_ends_the_wait_at_once);
	tcase_add_test(tc, without_a_pair_nothing_is_received);
	suite_add_tcase(s, tc);
	return s;
}
