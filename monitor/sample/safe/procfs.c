/* SPDX-License-Identifier: BSD-3-Clause */
/* procfs — small, allocation-free readers of /proc files. */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ssize_t procfs_read_fd(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}

/* Read a whole small /proc file into buf (NUL-terminated); length, or -1 with errno. */
static ssize_t read_proc_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;

	ssize_t got = procfs_read_fd(fd, buf, len);
	int e = errno;

	close(fd);
	errno = e;
	return got;
}

ssize_t procfs_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	return read_proc_file(path, buf, len);
}

/* Field n (1-based, n >= 3) of /proc/PID/stat into buf, as text; NULL if unreadable. The
 * command name (field 2) may hold spaces and parentheses, so fields are counted after its
 * last ')'. */
static const char *stat_field(pid_t pid, int n, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_proc_file(path, buf, len) <= 0)
		return NULL;
	return procfs_parse_stat_field(buf, n);
}

const char *procfs_parse_stat_field(const char *buf, int n)
{
	const char *p = strrchr(buf, ')');

	if (!p || p[1] != ' ')
		return NULL;
	p += 2;
	for (int field = 3; field < n && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p;
}

static int compare_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int pid_list_push(struct pid_list *l, pid_t p)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 64;
		pid_t *v = realloc(l->v, (size_t)cap * sizeof(*v));

		if (!v) {
			errno = ENOMEM;
			return -1;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = p;
	return 0;
}

void pid_list_free(struct pid_list *l)
{
	free(l->v);
	*l = (struct pid_list){ 0 };
}

/* Main thread first: its tid equals the pid and is the smallest, but be explicit. */
static void main_thread_first(pid_t pid, pid_t *tids, int n)
{
	qsort(tids, (size_t)n, sizeof(pid_t), compare_pid);
	for (int i = 0; i < n; i++)
		if (tids[i] == pid && i) {
			memmove(tids + 1, tids, (size_t)i * sizeof(pid_t));
			tids[0] = pid;
		}
}

int procfs_thread_list(pid_t pid, struct pid_list *l)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);

	DIR *dir = opendir(path);
	struct dirent *de;

	l->n = 0;
	if (!dir) {
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	while ((de = readdir(dir))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		if (pid_list_push(l, (pid_t)tid) < 0) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	main_thread_first(pid, l->v, l->n);
	return l->n;
}

#define ENVIRON_MAX (256 * 1024)

/* pid's environment (malloc'd, NUL-separated, *len bytes), or NULL when unreadable. */
static char *read_environ(pid_t pid, ssize_t *len)
{
	char path[64], *buf = malloc(ENVIRON_MAX);

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if (buf && (*len = read_proc_file(path, buf, ENVIRON_MAX)) > 0)
		return buf;
	free(buf);
	return NULL;
}

/* The value of name in an environment buffer, or NULL. */
const char *procfs_env_lookup(const char *buf, size_t len, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = buf, *end = buf + len; p < end;) {
		size_t n = strnlen(p, (size_t)(end - p));

		/* The value must end inside the buffer: a last entry without its NUL is cut. */
		if (n < (size_t)(end - p) && n > nl && !strncmp(p, name, nl) && p[nl] == '=')
			return p + nl + 1;
		p += n + 1;
	}
	return NULL;
}

bool procfs_env_is(pid_t pid, const char *name, const char *value)
{
	ssize_t len;
	char *buf = read_environ(pid, &len);
	const char *v = buf ? procfs_env_lookup(buf, (size_t)len, name) : NULL;
	bool found = v && !strcmp(v, value);

	free(buf);
	return found;
}

/* The first of names (NULL-terminated) set to a whole number >= 0 in an environment block;
 * -1 when none is. */
static long env_block_number(const char *buf, size_t len, const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		const char *v = procfs_env_lookup(buf, len, names[i]);
		char *end;
		long r = v ? strtol(v, &end, 10) : -1;

		if (v && end != v && *end == '\0' && r >= 0 && r < (1L << 30))
			return r;
	}
	return -1;
}

long procfs_env_number(pid_t pid, const char *const *names)
{
	ssize_t len;
	char *buf = read_environ(pid, &len);
	long found = buf ? env_block_number(buf, (size_t)len, names) : -1;

	free(buf);
	return found;
}

bool procfs_launch(pid_t pid, struct proc_launch *l)
{
	static const char *const ranks[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", NULL };
	static const char *const slurm[] = { "SLURM_PROCID", NULL };
	static const char *const sizes[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL };
	static const char *const torch_rank[] = { "RANK", NULL };
	static const char *const torch_size[] = { "WORLD_SIZE", NULL };
	static const char *const torch_restart[] = { "TORCHELASTIC_RESTART_COUNT", NULL };
	ssize_t len;
	char *buf = read_environ(pid, &len);
	size_t n = buf ? (size_t)len : 0;

	*l = (struct proc_launch){ .rank = -1, .slurm_rank = -1, .world_size = -1, .restart = -1 };
	if (!buf)
		return false;
	/* A worker's own variables first: it also inherits its agent's launcher variables (an
	 * agent started by mpirun or srun carries OMPI_COMM_WORLD_RANK or SLURM_PROCID, its node's
	 * number). */
	l->torch_worker = procfs_env_lookup(buf, n, "TORCHELASTIC_RUN_ID") != NULL;
	if (l->torch_worker) {
		l->rank = (int)env_block_number(buf, n, torch_rank);
		l->world_size = (int)env_block_number(buf, n, torch_size);
		l->restart = (int)env_block_number(buf, n, torch_restart);
	}
	if (l->rank < 0)
		l->rank = (int)env_block_number(buf, n, ranks);
	if (l->world_size < 0)
		l->world_size = (int)env_block_number(buf, n, sizes);
	l->slurm_rank = (int)env_block_number(buf, n, slurm);
	free(buf);
	return true;
}

bool procfs_is_torch_worker(pid_t pid)
{
	ssize_t len;
	char *buf = read_environ(pid, &len);
	bool found = buf && procfs_env_lookup(buf, (size_t)len, "TORCHELASTIC_RUN_ID");

	free(buf);
	return found;
}

int procfs_rank(pid_t pid)
{
	struct proc_launch l;

	procfs_launch(pid, &l);
	return procfs_launch_rank(&l);
}

int procfs_world_size(pid_t pid)
{
	struct proc_launch l;

	procfs_launch(pid, &l);
	return l.world_size;
}

int procfs_exit_code(pid_t pid)
{
	char buf[2048];
	const char *p;

	if (procfs_state(pid) != 'Z' || !(p = stat_field(pid, 52, buf, sizeof(buf))))
		return -1;
	return (int)strtol(p, NULL, 10);
}

pid_t procfs_parent(pid_t pid)
{
	char buf[1024];
	const char *p = stat_field(pid, 4, buf, sizeof(buf));

	return p ? (pid_t)strtol(p, NULL, 10) : 0;
}

/* A whole /proc file, however long, into a malloc'd NUL-terminated buffer; NULL if unreadable. */
static char *read_proc_all(const char *path)
{
	size_t cap = 4096, got = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (;;) {
		if (got + 1 == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}

		ssize_t n = read(fd, buf + got, cap - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return buf;
}

int procfs_children(pid_t pid, struct pid_list *l)
{
	struct pid_list tids = { 0 };
	int nt = procfs_thread_list(pid, &tids), before = l->n;
	char path[96];

	for (int i = 0; i < nt; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)tids.v[i]);

		char *buf = read_proc_all(path);

		for (char *p = buf; p && *p;) {
			char *end;
			long c = strtol(p, &end, 10);

			if (end == p || pid_list_push(l, (pid_t)c) < 0)
				break;
			p = end;
		}
		free(buf);
	}
	pid_list_free(&tids);
	return l->n - before;
}

char procfs_state(pid_t pid)
{
	char buf[512];
	const char *p = stat_field(pid, 3, buf, sizeof(buf));

	return p ? *p : 0;
}

unsigned long long procfs_start_time(pid_t pid)
{
	char buf[1024];
	const char *p = stat_field(pid, 22, buf, sizeof(buf));

	return p ? strtoull(p, NULL, 10) : 0;
}

/* "key: N" in /proc/PID/io's text; -1 when absent. */
static long long io_number(const char *buf, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

bool procfs_activity(pid_t pid, struct proc_activity *a)
{
	char path[64], buf[1024];
	const char *p = stat_field(pid, 14, buf, sizeof(buf));
	char *end;
	long long rchar, wchar, hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	unsigned long long ticks = 0;

	*a = (struct proc_activity){ 0 };
	if (!p)
		return false;
	/* utime, stime, and the children's it waited for (a wrapper's loop of `sleep 1`). */
	for (int i = 0; i < 4; i++, p = end)
		ticks += strtoull(p, &end, 10);
	a->cpu_ms = ticks * 1000 / (unsigned long long)hz;
	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	if (read_proc_file(path, buf, sizeof(buf)) <= 0)
		return false;
	rchar = io_number(buf, "rchar");
	wchar = io_number(buf, "wchar");
	if (rchar < 0 || wchar < 0)
		return false;
	a->io_bytes = (unsigned long long)rchar + (unsigned long long)wchar;
	a->known = true;
	return true;
}

pid_t procfs_tracer(pid_t pid)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_proc_file(path, buf, sizeof(buf)) <= 0)
		return -1;

	return (pid_t)procfs_parse_status_number(buf, "TracerPid");
}

long procfs_parse_status_number(const char *buf, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, k) && p[k] == ':') {
			char *end;
			long v = strtol(p + k + 1, &end, 10);

			return end == p + k + 1 ? -1 : v;
		}
	return -1;
}

void procfs_explain_eperm(pid_t pid, char *buf, size_t len)
{
	char scope[16] = "";
	pid_t tracer = procfs_tracer(pid);

	if (tracer > 0) {
		snprintf(buf, len, "it is already traced by pid %d (a debugger?); detach that first",
			 (int)tracer);
		return;
	}
	if (read_proc_file("/proc/sys/kernel/yama/ptrace_scope", scope, sizeof(scope)) > 0 &&
	    atoi(scope) > 0) {
		snprintf(buf, len,
			 "kernel.yama.ptrace_scope is %d, which forbids tracing non-children; run as root or set it to 0",
			 atoi(scope));
		return;
	}
	snprintf(buf, len, "it is not your process (or is setuid); run as its owner or as root");
}

void procfs_wchan(pid_t tid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)tid);
	if (read_proc_file(path, buf, len) <= 0 || !buf[0] || !strcmp(buf, "0"))
		snprintf(buf, len, "?");
	buf[strcspn(buf, "\n")] = '\0';
}

int procfs_open_mapped(pid_t pid, const char *path)
{
	char *full = NULL;
	struct stat st;
	int fd;

	if (path[0] != '/' || asprintf(&full, "/proc/%d/root%s", (int)pid, path) < 0)
		return errno = EINVAL, -1;
	fd = open(full, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	free(full);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return errno = EINVAL, -1;
	}
	fcntl(fd, F_SETFL, 0);
	return fd;
}

long procfs_self_rss_anon_kb(void)
{
	char buf[4096];

	if (read_proc_file("/proc/self/status", buf, sizeof(buf)) <= 0)
		return -1;
	return procfs_parse_status_number(buf, "RssAnon");
}
