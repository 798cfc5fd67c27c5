/* SPDX-License-Identifier: BSD-3-Clause */
/* pidlist_check — the ranks a user listed (base/pidlist.h), checked before anything is touched:
 * the process exists, this user may trace it, it maps an MPI library; and which rank each one is
 * (the file's rank column, else the rank in the process's environment, else its position in
 * the list). Errors are one line naming the entry. */
#ifndef PARASTACK_PIDLIST_CHECK_H
#define PARASTACK_PIDLIST_CHECK_H

#include "../../base/pidlist.h"
#include "../sample/safe/identity.h"

/* Check e (a process of this machine) before attaching: it exists, is no zombie, may be traced
 * by this user (the kernel's own ptrace access check, through /proc/PID/mem, which stops
 * nothing), is not traced by another, and maps an MPI library. Its identity in *id (start
 * time, program, owner). 0, or -1 with err. */
int pidlist_check(const struct pid_entry *e, struct proc_identity *id, char *err, size_t len);

/* Fill in the ranks not given (environment, else list position - 1) and check that no rank is
 * claimed twice. Every entry must be a process of this machine. 0, or -1 with err. */
int pidlist_resolve_ranks(struct pid_entry *e, int n, char *err, size_t len);

#endif
