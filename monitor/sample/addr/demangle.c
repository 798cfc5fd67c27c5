/* SPDX-License-Identifier: BSD-3-Clause */
/* demangle — function names as their authors wrote them (see demangle.h). */
#include "demangle.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* libstdc++'s demangler (cxxabi.h), C linkage. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static struct {
	pid_t pid;  /* the helper, or -1 */
	int fd;     /* our end of its socket pair */
	int deadline_ms;
	int failures;
} helper = { -1, -1, 2000, 0 };

/* --- Fortran --------------------------------------------------------------------------------- */

/* A Fortran name as a compiler writes it: lower case, digits, '_' (and '$' in some). */
static bool fortran_chars(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '$'))
			return false;
	return true;
}

/* "mod::proc" from the two parts; false when it does not fit. */
static bool scoped(const char *mod, size_t nmod, const char *proc, size_t nproc, char *out, size_t len)
{
	if (!fortran_chars(mod, nmod) || !fortran_chars(proc, nproc) || nmod + nproc + 3 > len)
		return false;
	snprintf(out, len, "%.*s::%.*s", (int)nmod, mod, (int)nproc, proc);
	return true;
}

/* LLVM Flang: "_Q" then tagged lower-case names — M module, S submodule, F host procedure,
 * P procedure — joined by "::" ("_QMsolverPrelax" → "solver::relax"). */
static bool flang_name(const char *raw, char *out, size_t len)
{
	const char *p = raw + 2;
	size_t o = 0;
	bool proc = false;

	while (*p) {
		if (!strchr("MSFP", *p))
			return false;
		proc = *p == 'P';

		const char *name = ++p;

		while (*p && !(*p >= 'A' && *p <= 'Z'))
			p++;
		if (!fortran_chars(name, (size_t)(p - name)) || o + (size_t)(p - name) + 3 > len)
			return false;
		o += (size_t)snprintf(out + o, len - o, "%s%.*s", o ? "::" : "", (int)(p - name), name);
	}
	return proc;
}

bool demangle_fortran(const char *raw, char *out, size_t len)
{
	size_t n = strnlen(raw, DEMANGLE_MAX_IN + 1);
	const char *sep;
	char buf[DEMANGLE_MAX_IN + 4];

	if (n > DEMANGLE_MAX_IN || !len)
		return false;
	/* gfortran: __mod_MOD_proc */
	if (!strncmp(raw, "__", 2) && (sep = strstr(raw + 2, "_MOD_")) && sep > raw + 2 &&
	    scoped(raw + 2, (size_t)(sep - raw - 2), sep + 5, n - (size_t)(sep + 5 - raw), buf, sizeof(buf)))
		return snprintf(out, len, "%s", buf), true;
	/* Intel: mod_mp_proc_ */
	if (n > 5 && raw[n - 1] == '_' && (sep = strstr(raw, "_mp_")) && sep > raw &&
	    scoped(raw, (size_t)(sep - raw), sep + 4, n - 1 - (size_t)(sep + 4 - raw), buf, sizeof(buf)))
		return snprintf(out, len, "%s", buf), true;
	if (!strncmp(raw, "_Q", 2) && flang_name(raw, buf, sizeof(buf)))
		return snprintf(out, len, "%s", buf), true;
	return false;
}

/* --- C++, in the helper ---------------------------------------------------------------------- */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* This process's address space in bytes (its VmSize), 0 when unreadable. */
static long vm_size(void)
{
	char line[128];
	long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024L;
}

static bool write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		buf += w;
		n -= (size_t)w;
	}
	return true;
}

/* The helper: one name per line in, its demangled form (or an empty line) out, until EOF. */
static void helper_serve(int fd) __attribute__((noreturn));
static void helper_serve(int fd)
{
	char in[DEMANGLE_MAX_IN + 2];
	size_t n = 0;

	for (;;) {
		ssize_t r = read(fd, in + n, sizeof(in) - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(0);
		n += (size_t)r;

		char *nl;

		while ((nl = memchr(in, '\n', n))) {
			int status = -1;
			size_t used = (size_t)(nl - in) + 1;

			*nl = '\0';

			char *d = __cxa_demangle(in, NULL, NULL, &status);
			size_t dn = status == 0 && d ? strnlen(d, DEMANGLE_MAX_IN) : 0;

			if (!write_all(fd, status == 0 && d ? d : "", dn) || !write_all(fd, "\n", 1))
				_exit(0);
			free(d);
			memmove(in, in + used, n - used);
			n -= used;
		}
		if (n >= sizeof(in) - 1) /* a line longer than any name sent: not ours */
			_exit(1);
	}
}

/* In the child: nothing of the monitor's but the socket (and stderr on /dev/null), a cap on
 * memory, no core file, gone with its parent. */
static void helper_child(int fd, pid_t parent, long vm)
{
	struct rlimit mem = { (rlim_t)(vm + DEMANGLE_HELPER_MEM), (rlim_t)(vm + DEMANGLE_HELPER_MEM) };
	struct rlimit core = { 0, 0 };
	sigset_t none;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	if (dup2(fd, 3) < 0)
		_exit(1);
	close_range(4, ~0U, 0);
	/* Nothing of the helper's reaches the user's terminal (a sanitizer's out-of-memory line). */
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (null >= 0 && null != 2) {
		dup2(null, 2);
		close(null);
	}
	if (vm > 0)
		setrlimit(RLIMIT_AS, &mem);
	setrlimit(RLIMIT_CORE, &core);
	helper_serve(3);
}

static bool helper_start(void)
{
	int sv[2];
	pid_t parent = getpid();
	long vm = vm_size();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return false;

	pid_t pid = fork();

	if (pid == 0) {
		close(sv[0]);
		helper_child(sv[1], parent, vm);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return false;
	}
	helper.pid = pid;
	helper.fd = sv[0];
	return true;
}

/* The helper took too long or broke: ended (it is our own child, by its PID) and counted. */
static void helper_end(bool failed)
{
	if (helper.pid > 0) {
		close(helper.fd);
		if (failed)
			kill(helper.pid, SIGKILL);
		while (waitpid(helper.pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	helper.pid = -1;
	helper.fd = -1;
	helper.failures += failed;
}

/* One answer line from the helper by the deadline: its length, or -1. */
static int helper_read_line(char *ans, size_t cap, double deadline)
{
	size_t n = 0;

	for (;;) {
		int left = (int)(deadline - now_ms());
		struct pollfd p = { helper.fd, POLLIN, 0 };

		if (left <= 0 || poll(&p, 1, left) <= 0) {
			if (left > 0 && errno == EINTR)
				continue;
			return -1;
		}

		ssize_t r = recv(helper.fd, ans + n, cap - n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;

		char *nl = memchr(ans + n, '\n', (size_t)r);

		n += (size_t)r;
		if (nl) {
			*nl = '\0';
			return (int)(nl - ans);
		}
		if (n >= cap)
			return -1;
	}
}

static bool cxx_name(const char *raw, char *out, size_t len)
{
	char ans[DEMANGLE_MAX_IN + 2];
	size_t n = strlen(raw);
	int got;

	if (helper.failures >= DEMANGLE_MAX_FAILURES || (helper.pid < 0 && !helper_start()))
		return false;
	if (!write_all(helper.fd, raw, n) || !write_all(helper.fd, "\n", 1) ||
	    (got = helper_read_line(ans, sizeof(ans), now_ms() + helper.deadline_ms)) < 0) {
		helper_end(true);
		return false;
	}
	if (got == 0 || (size_t)got >= len)
		return false;
	memcpy(out, ans, (size_t)got + 1);
	return true;
}

/* libstdc++'s demangler writes C++98's "> >" and spells std::string out in full, so a LAMMPS
 * frame read "Error::all(std::__cxx11::basic_string<char, std::char_traits<char>,
 * std::allocator<char> > const&, …)". The report's paths join frames with " > ", which that
 * space made part of the name (the stack tree split the frame in two). Tidied in place: the
 * closers joined (">>", as C++11 writes them) and std::string named as its authors write it.
 * Linear in the name, and the name only gets shorter. */
static void cxx_tidy(char *s)
{
	static const char *const strings[] = {
		"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char>>",
		"std::basic_string<char, std::char_traits<char>, std::allocator<char>>",
	};
	static const char string[] = "std::string";
	const size_t ns = sizeof(string) - 1;
	size_t o = 0;

	for (size_t i = 0; s[i]; i++)
		if (!(s[i] == ' ' && o > 0 && s[o - 1] == '>' && s[i + 1] == '>'))
			s[o++] = s[i];
	s[o] = '\0';
	for (size_t k = 0; k < sizeof(strings) / sizeof(*strings); k++) {
		size_t n = strlen(strings[k]);
		char *at = s;

		while ((at = strstr(at, strings[k]))) {
			memmove(at + ns, at + n, strlen(at + n) + 1);
			memcpy(at, string, ns);
			at += ns;
		}
	}
}

/* A C++ symbol: "_Z" and printable, short enough to be read in full. */
static bool looks_cxx(const char *raw)
{
	size_t n = strnlen(raw, DEMANGLE_MAX_IN + 1);

	if (n < 3 || n > DEMANGLE_MAX_IN || strncmp(raw, "_Z", 2))
		return false;
	for (size_t i = 0; i < n; i++)
		if (raw[i] <= ' ' || raw[i] > '~')
			return false;
	return true;
}

/* --- the cache and the entry point ------------------------------------------------------------ */

#define CACHE_SLOTS 1024

/* Each name once per process: a report of many ranks shows the same frames many times. */
static struct cache_slot {
	char *raw, *name; /* name NULL: no readable name */
} cache[CACHE_SLOTS];

static unsigned hash_name(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void cache_put(struct cache_slot *slot, const char *raw, const char *name)
{
	free(slot->raw);
	free(slot->name);
	slot->raw = strdup(raw);
	slot->name = name && slot->raw ? strdup(name) : NULL;
}

bool demangle_name(const char *raw, char *out, size_t len)
{
	char buf[DEMANGLE_MAX_IN + 4];
	bool cxx = looks_cxx(raw), ok;

	if (!cxx)
		return demangle_fortran(raw, out, len);

	struct cache_slot *slot = &cache[hash_name(raw) % CACHE_SLOTS];

	if (slot->raw && !strcmp(slot->raw, raw)) {
		if (!slot->name)
			return false;
		snprintf(buf, sizeof(buf), "%s", slot->name);
		if (strlen(buf) >= len && len > 4)
			snprintf(buf + len - 4, 4, "...");
		snprintf(out, len, "%s", buf);
		return true;
	}
	if (helper.failures >= DEMANGLE_MAX_FAILURES)
		return false;
	ok = cxx_name(raw, buf, sizeof(buf));
	if (ok)
		cxx_tidy(buf);
	/* A name the helper failed on is not asked again: each hostile name costs one helper. */
	cache_put(slot, raw, ok ? buf : NULL);
	if (!ok)
		return false;
	/* Longer than the caller holds: its start, marked as cut (still the author's words). */
	if (strlen(buf) >= len && len > 4)
		snprintf(buf + len - 4, 4, "...");
	snprintf(out, len, "%s", buf);
	return true;
}

void demangle_set_deadline_ms(int ms)
{
	helper.deadline_ms = ms > 0 ? ms : 1;
}

void demangle_stop(void)
{
	helper_end(false);
	helper.failures = 0; /* a new start: C++ names are tried again */
	for (int i = 0; i < CACHE_SLOTS; i++) {
		free(cache[i].raw);
		free(cache[i].name);
		cache[i].raw = cache[i].name = NULL;
	}
}

int demangle_failures(void)
{
	return helper.failures;
}

pid_t demangle_helper_pid(void)
{
	return helper.pid;
}
