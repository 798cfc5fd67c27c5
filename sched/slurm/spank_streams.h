/* SPDX-License-Identifier: BSD-3-Clause */
/* spank_streams — the watched task's standard output and error, handed to the watcher at the
 * one moment they are surely the job's: in the task itself, after slurmstepd has set them up
 * and before it execs the job's program (slurm_spank_task_init).
 *
 * Why not /proc/TASK/fd/N from the watcher: slurmstepd forks the task, which sets up its
 * standard streams on its own while slurmstepd runs post_fork, and the task then runs the
 * script at once. Opened from outside, the streams are slurmstepd's own (the lines lost) when
 * the task has not set them up yet, and, a moment too late, whatever file the script's first
 * command redirected to (`mpirun ./app > result.dat`): sh redirects in its own process while
 * that command runs. Both were seen on a loaded machine.
 *
 * How: a socket pair made before the tasks are forked (user_init); task 0 sends its fds 1 and
 * 2 over it (SCM_RIGHTS) and every task closes both ends before exec; the watcher, forked in
 * post_fork, receives them. Both ends are close-on-exec, so no program of the job inherits
 * them. */
#ifndef PARASTACK_SPANK_STREAMS_H
#define PARASTACK_SPANK_STREAMS_H

#include <stdbool.h>

/* In slurmstepd before the tasks are forked: the pair. 0, or -1 (the watcher then falls back
 * to /proc/TASK/fd/N). */
int streams_open(void);

/* In each task before exec: task 0 (task0 true) sends its standard output and error; every
 * task closes the pair. */
void streams_send(bool task0);

/* In the watcher: the task's standard output and error into *out and *err, waiting up to
 * timeout_ms for task 0 to send them. 0, or -1 when they never came (the task ended before
 * its exec, no pair, the wait ran out): the caller falls back. Closes the pair either way. */
int streams_receive(int *out, int *err, int timeout_ms);

/* In slurmstepd once the watcher is forked: its copies of the pair, closed. */
void streams_close(void);

#endif
