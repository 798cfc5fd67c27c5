/* SPDX-License-Identifier: BSD-3-Clause */
/* proctree — real process trees for the unit tests: a shell started in a process group of its
 * own with a prepared environment, and stopped by that group (which the test created) and
 * reaped: a test signals only what it started. */
#ifndef PARASTACK_TEST_PROCTREE_H
#define PARASTACK_TEST_PROCTREE_H

#include <sys/types.h>

/* /bin/sh -c script with the environment env (NULL-terminated), in its own process group. */
pid_t proctree_start(const char *script, char *const env[]);

/* SIGKILL to the tree's process group, and the shell reaped. */
void proctree_stop(pid_t pid);

#endif
