/* SPDX-License-Identifier: BSD-3-Clause */
/* identity — is a PID still the process the monitor found? Before it samples, signals or dumps
 * a process, a monitor (perhaps root, on an ordinary user's job) checks that the PID still
 * names the same process (its start time), still runs the same program (the executable's
 * device and inode: a rank that exec'd another program is not the rank found) and still belongs
 * to the same user (the owner of /proc/PID: its effective uid, or root once the process is not
 * dumpable, as after exec of a setuid program). Cheap enough for every sample: two stat calls
 * and the start time. */
#ifndef PARASTACK_IDENTITY_H
#define PARASTACK_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct proc_identity {
	unsigned long long start; /* start time, clock ticks after boot */
	uid_t uid;                /* owner of /proc/PID */
	gid_t gid;
	dev_t exe_dev;
	ino_t exe_ino;
};

enum identity_verdict {
	IDENTITY_SAME,
	IDENTITY_GONE,    /* no such process, or a zombie: it exited */
	IDENTITY_REUSED,  /* the PID names a process started later */
	IDENTITY_CHANGED, /* the same process, now another program or another owner */
};

/* The real and effective ids of a process (its /proc/PID/status). */
struct proc_ids {
	uid_t ruid, euid;
	gid_t rgid, egid;
};

/* pid's identity now; -1 with errno (ESRCH: gone). */
int identity_read(pid_t pid, struct proc_identity *id);
/* Is pid still the process id was read from? If not, why (one line). */
enum identity_verdict identity_check(pid_t pid, const struct proc_identity *id, char *why, size_t len);
/* pid's real and effective ids; -1 if unreadable. */
int identity_ids(pid_t pid, struct proc_ids *ids);

#endif
