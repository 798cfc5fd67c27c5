/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of a report's capture of one rank (monitor/sample/print/capture.c) on a real
 * process: a thread that is slow to stop is tried once more, and is never left traced. */
#include <jansson.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../monitor/sample/addr/symbolize.h"
#include "../../monitor/sample/print/capture.h"
#include "../../monitor/sample/safe/procfs.h"
#include "../../monitor/sample/stop/target.h"
#include "suites.h"

static pid_t start_pauser(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	nanosleep(&(struct timespec){ 0, 50000000L }, NULL); /* into its pause */
	return pid;
}

static void stop_pauser(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The report's rank object for pid, with the first `slow` waits for its stop given up. */
static json_t *capture_with_slow_stops(pid_t pid, int slow)
{
	struct target t;
	struct symbolizer_pool syms = { 0 };
	char err[512];

	memset(&t, 0, sizeof(t));
	ck_assert_msg(target_open(&t, pid, err, sizeof(err)) == TARGET_OK, "%s", err);
	snapshot_give_up_next(slow);

	json_t *rank = capture_rank(&t, symbolizer_pool_get(&syms, &t.maps), "n1");

	snapshot_give_up_next(0);
	target_close(&t);
	symbolizer_pool_free(&syms);
	ck_assert_ptr_nonnull(rank);
	return rank;
}

START_TEST(a_thread_slow_to_stop_once_is_tried_again_for_the_report)
{
	pid_t pid = start_pauser();
	json_t *rank = capture_with_slow_stops(pid, 1);
	const char *state = json_string_value(json_object_get(rank, "state"));
	const char *path = json_string_value(json_object_get(rank, "path"));

	ck_assert_str_eq(state, "OUT_MPI");
	ck_assert_msg(path && strncmp(path, "(not sampled", 12), "path: %s", path ? path : "(null)");
	ck_assert_int_gt(json_array_size(json_object_get(rank, "frames")), 0);
	ck_assert_int_eq(snapshot_reap_pending(), 0);
	ck_assert_int_eq(procfs_tracer(pid), 0);
	json_decref(rank);
	stop_pauser(pid);
}
END_TEST

START_TEST(a_thread_slow_to_stop_twice_is_shown_unsampled_and_let_go)
{
	pid_t pid = start_pauser();
	json_t *rank = capture_with_slow_stops(pid, 2);
	const char *path = json_string_value(json_object_get(rank, "path"));

	ck_assert_str_eq(json_string_value(json_object_get(rank, "state")), "UNKNOWN");
	ck_assert_msg(path && strstr(path, "did not stop within 1 s"), "path: %s", path ? path : "(null)");
	ck_assert_int_eq(json_array_size(json_object_get(rank, "frames")), 0);
	/* The second try's thread stops too, and is let go by the next settling. */
	ck_assert(snapshot_settle(pid, 3000000000LL));
	ck_assert_int_eq(snapshot_reap_pending(), 0);
	ck_assert_int_eq(procfs_tracer(pid), 0);
	json_decref(rank);
	stop_pauser(pid);
}
END_TEST

Suite *capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("slow stop");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, a_thread_slow_to_stop_once_is_tried_again_for_the_report);
	tcase_add_test(tc, a_thread_slow_to_stop_twice_is_shown_unsampled_and_let_go);
	suite_add_tcase(s, tc);
	return s;
}
