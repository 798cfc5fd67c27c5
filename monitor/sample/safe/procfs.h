/* SPDX-License-Identifier: BSD-3-Clause */
/* procfs — what /proc tells about a target: its threads, its MPI rank from the launcher's
 * environment, its run state, who traces it, and the ptrace policy of the machine. */
#ifndef PARASTACK_PROCFS_H
#define PARASTACK_PROCFS_H

#include <stddef.h>
#include <stdbool.h>
#include <sys/types.h>

/* A list of PIDs that grows as needed (a node may run thousands of ranks, a rank thousands of
 * threads): no fixed cap. */
struct pid_list {
	pid_t *v;
	int n, cap;
};
/* Append p; 0, or -1 (ENOMEM). */
int pid_list_push(struct pid_list *l, pid_t p);
void pid_list_free(struct pid_list *l);

/* Every thread of pid into l (replacing what it held), the main thread first; the count, or
 * -1 with errno (ESRCH when the process is gone, ENOMEM). */
int procfs_thread_list(pid_t pid, struct pid_list *l);

/* The first of the named variables (NULL-terminated list) set to a whole number >= 0 in the
 * process's environment; -1 when none is, or the environment is unreadable. */
long procfs_env_number(pid_t pid, const char *const *names);

/* Does pid's environment hold name=value exactly? false when unreadable. */
bool procfs_env_is(pid_t pid, const char *name, const char *value);

/* What a launcher put in a process's environment, read in one pass over it; -1 where absent. */
struct proc_launch {
	int rank;          /* a torchrun worker's RANK, else OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK */
	int slurm_rank;    /* SLURM_PROCID (srun, and everything below a batch shell, carry it) */
	int world_size;    /* a torchrun worker's WORLD_SIZE, else OMPI_COMM_WORLD_SIZE, PMI_SIZE,
			    * SLURM_NTASKS */
	int restart;       /* a torchrun worker's TORCHELASTIC_RESTART_COUNT: its agent's restarts */
	bool torch_worker; /* TORCHELASTIC_RUN_ID is set: a worker torchrun's elastic agent started */
};
/* Fill l from pid's environment; false (every field absent) when it is unreadable. */
bool procfs_launch(pid_t pid, struct proc_launch *l);

/* The rank a launcher gave: l->rank, else SLURM_PROCID; -1 when none. */
static inline int procfs_launch_rank(const struct proc_launch *l)
{
	return l->rank >= 0 ? l->rank : l->slurm_rank;
}

/* Is pid a worker torchrun's elastic agent started (TORCHELASTIC_RUN_ID in its environment)? */
bool procfs_is_torch_worker(pid_t pid);

/* procfs_launch_rank of pid's environment; -1 when none, or the environment is unreadable. */
int procfs_rank(pid_t pid);

/* The job size of pid's environment (struct proc_launch's world_size); -1 when none. */
int procfs_world_size(pid_t pid);

/* Parent pid from /proc/PID/stat; 0 if unreadable. */
pid_t procfs_parent(pid_t pid);

/* Append the children of every thread of pid (/proc/PID/task/TID/children) to l; how many
 * were appended (0 when pid is gone). */
int procfs_children(pid_t pid, struct pid_list *l);

/* One-letter state from /proc/PID/stat ('R', 'S', 'D', 'T', 't', 'Z', ...), or 0 if gone. */
char procfs_state(pid_t pid);

/* The kernel function a sleeping thread waits in (/proc/TID/wchan), or "?" when unknown. */
void procfs_wchan(pid_t tid, char *buf, size_t len);

/* Open a file that pid maps (a path from /proc/PID/maps) for reading, as pid sees it (through
 * /proc/PID/root: a container's files, not ours), without blocking (a FIFO planted where a
 * deleted library was cannot hold us) and only if it is a regular file. An fd, or -1 with
 * errno (EINVAL: not a regular file). */
int procfs_open_mapped(pid_t pid, const char *path);

/* What a process did, as the kernel counts it for all its threads: CPU time (utime, stime,
 * cutime and cstime of /proc/PID/stat, in ms: whole clock ticks) and bytes read and written (rchar + wchar of /proc/PID/io).
 * Not syscr/syscw: a blocked read() that ptrace interrupts counts as one more read call, so a
 * rank the monitor samples would look busy. */
struct proc_activity {
	bool known;
	unsigned long long cpu_ms, io_bytes;
};
/* pid's activity now; false (a->known false) when either file is unreadable. */
bool procfs_activity(pid_t pid, struct proc_activity *a);

/* TracerPid from /proc/PID/status; 0 when untraced, -1 when unreadable. */
pid_t procfs_tracer(pid_t pid);

/* A zombie's exit status as waitpid(2) would give it (field 52 of /proc/PID/stat), or -1 when
 * pid is no zombie (its parent has collected the status, or it still runs). */
int procfs_exit_code(pid_t pid);

/* Start time (clock ticks since boot, field 22 of /proc/PID/stat); 0 if unreadable. Pairs
 * with the pid to tell a process from a later one that reuses its number. */
unsigned long long procfs_start_time(pid_t pid);

/* The parsers behind these readers, on text already read (for tests and fuzzing). */
/* Field n (n >= 3) of a /proc/PID/stat line, counted after the command name's last ')'. */
const char *procfs_parse_stat_field(const char *buf, int n);
/* Read fd to its end or until len - 1 bytes (buf NUL-terminated, len >= 1): the length. */
ssize_t procfs_read_fd(int fd, char *buf, size_t len);
/* /proc/PID/cmdline (its arguments NUL-separated) into buf: the length, or -1 with errno. */
ssize_t procfs_cmdline(pid_t pid, char *buf, size_t len);
/* The number after "key:" at the start of a line of /proc/PID/status; -1 when none. */
long procfs_parse_status_number(const char *buf, const char *key);
/* This process's private resident memory (RssAnon), in KiB; -1 if unknown. */
long procfs_self_rss_anon_kb(void);
/* The value of name in an environment block (NUL-separated, len bytes); NULL when absent. */
const char *procfs_env_lookup(const char *buf, size_t len, const char *name);

/* Why ptrace on pid may have failed with EPERM, as a phrase for an error message. */
void procfs_explain_eperm(pid_t pid, char *buf, size_t len);

#endif
