/* SPDX-License-Identifier: BSD-3-Clause */
/* sample_cost — how long a sampled thread is stopped, from PTRACE_INTERRUPT to PTRACE_DETACH
 * returning, for targets with 1 and 4 threads and about 10 and 40 frames; beside it, in the
 * same run, the paper prototype's way (a new libunwind address space per sample, word-by-word
 * PTRACE_PEEKDATA through libunwind-ptrace, a symbol lookup per frame, all while stopped),
 * and the wall time of `eu-stack -p` and `gdb -batch -ex bt` (their targets stay stopped for
 * most of it). Prints a Markdown table; numbers only, no assertions.
 *
 * With a Python interpreter as third argument, a CPython rank's stop with and without the walk
 * of its Python frames (pyframes.h).
 *
 * usage: sample_cost CALLCHAIN_BINARY [SAMPLES [PYTHON]]
 *        SAMPLE_COST_PYTHONS=1 sample_cost CALLCHAIN_BINARY SAMPLES PYTHON...  (a C rank, then each) */
#include <errno.h>
#include <libunwind-ptrace.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../monitor/sample/safe/procfs.h"
#include "../monitor/sample/stop/target.h"

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static double quantile_us(int64_t *v, int n, double q)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_i64);
	return n ? v[(int)(q * (n - 1))] / 1000.0 : 0.0;
}

/* Start the call-chain fixture (spin or sleep) with threads and depth; wait for "ready". */
static pid_t start_target(const char *bin, const char *mode, int threads, int depth)
{
	int fds[2];

	if (pipe(fds) < 0)
		return -1;

	pid_t pid = fork();

	if (pid == 0) {
		char t[16], d[16];

		snprintf(t, sizeof(t), "%d", threads);
		snprintf(d, sizeof(d), "%d", depth);
		/* The fixture ends with the benchmark, even when that is stopped by a signal. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fds[1], 1);
		close(fds[0]);
		execl(bin, bin, mode, t, d, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);

	char buf[64] = "";
	ssize_t n = read(fds[0], buf, sizeof(buf) - 1);

	close(fds[0]);
	if (n <= 0 || strncmp(buf, "ready", 5)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

static void stop_target(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* parastack's path: target_sample, every thread's stopped time, and the whole sample's wall time
 * (the monitor's side: the identity check, every thread stopped, copied and unwound). */
static int measure_parastack(pid_t pid, int samples, int64_t *stops, int64_t *held, int64_t *whole, int *frames)
{
	struct target t;
	char err[512];
	int n = 0;

	if (target_open(&t, pid, err, sizeof(err)) != TARGET_OK) {
		fprintf(stderr, "sample_cost: %s\n", err);
		return 0;
	}
	for (int i = 0; i < samples; i++) {
		struct sample_cost c;
		enum rank_state st;

		int64_t t0 = now_ns();

		if (target_sample(&t, &st, &c, err, sizeof(err)) != TARGET_OK)
			break;
		whole[n] = now_ns() - t0;
		/* Each thread is stopped on its own; the mean per thread of this sample. */
		held[n] = c.threads ? c.held_sum / c.threads : 0;
		stops[n++] = c.threads ? c.stopped_sum / c.threads : 0;
	}
	/* The frames of its first thread, as one more capture unwinds them (a sample keeps no copy
	 * of the stack: the monitor's one buffer serves every rank). */
	struct thread_stack *th = NULL;
	int nth = 0;
	enum rank_state st;

	*frames = target_capture(&t, &th, &nth, &st, err, sizeof(err)) == TARGET_OK && nth > 0 ? th[0].nframes : 0;
	free(th);
	target_close(&t);
	return n;
}

/* Two ranks of one program sampled in turn, as a monitor goes from rank to rank: the whole
 * sample's wall time (what the unwinder state held once per monitor costs when it is handed
 * from one rank to the other). */
static int measure_alternating(pid_t a, pid_t b, int samples, int64_t *whole)
{
	struct target t[2];
	char err[512];
	int n = 0;

	if (target_open(&t[0], a, err, sizeof(err)) != TARGET_OK)
		return 0;
	if (target_open(&t[1], b, err, sizeof(err)) != TARGET_OK) {
		target_close(&t[0]);
		return 0;
	}
	for (int i = 0; i < samples; i++) {
		struct sample_cost c;
		enum rank_state st;
		int64_t t0 = now_ns();

		if (target_sample(&t[i % 2], &st, &c, err, sizeof(err)) != TARGET_OK)
			break;
		whole[n++] = now_ns() - t0;
	}
	target_close(&t[1]);
	target_close(&t[0]);
	return n;
}

/* The prototype's way, for one thread: everything happens while the thread is stopped. */
static int64_t naive_sample_thread(pid_t tid, int *frames)
{
	int status;

	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0)
		return -1;

	int64_t t0 = now_ns();

	ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
	if (waitpid(tid, &status, __WALL) != tid)
		return -1;

	unw_addr_space_t as = unw_create_addr_space(&_UPT_accessors, 0);
	void *upt = _UPT_create(tid);
	unw_cursor_t c;
	int n = 0;

	if (unw_init_remote(&c, as, upt) == 0) {
		do {
			char name[256];
			unw_word_t off;

			unw_get_proc_name(&c, name, sizeof(name), &off);
			n++;
		} while (n < TARGET_MAX_FRAMES && unw_step(&c) > 0);
	}
	_UPT_destroy(upt);
	unw_destroy_addr_space(as);
	ptrace(PTRACE_DETACH, tid, NULL, NULL);
	*frames = n;
	return now_ns() - t0;
}

static int measure_naive(pid_t pid, int samples, int64_t *stops, int *frames)
{
	struct pid_list tids = { 0 };
	int n = 0;

	for (int i = 0; i < samples; i++) {
		int nt = procfs_thread_list(pid, &tids);
		int64_t sum = 0;

		for (int k = 0; k < nt; k++) {
			int64_t s = naive_sample_thread(tids.v[k], frames);

			if (s < 0)
				goto out;
			sum += s;
		}
		stops[n++] = nt ? sum / nt : 0;
	}
out:
	pid_list_free(&tids);
	return n;
}

/* Wall time of an external command on the target; its threads are stopped most of it. */
static int measure_command(const char *fmt, pid_t pid, int runs, int64_t *times)
{
	char cmd[256];
	int n = 0;

	snprintf(cmd, sizeof(cmd), fmt, (int)pid);
	for (int i = 0; i < runs; i++) {
		int64_t t0 = now_ns();
		int rc = system(cmd);

		if (rc != 0)
			return n;
		times[n++] = now_ns() - t0;
	}
	return n;
}

static void row(const char *how, int threads, int frames, int64_t *v, int n, double base_median)
{
	if (n == 0) {
		printf("| %s | %d | %d | n/a | n/a | n/a | 0 |\n", how, threads, frames);
		return;
	}

	double med = quantile_us(v, n, 0.5), p99 = quantile_us(v, n, 0.99);

	printf("| %s | %d | %d | %.1f | %.1f | %.1fx | %d |\n", how, threads, frames, med, p99,
	       base_median > 0 ? med / base_median : 1.0, n);
}

/* A CPython rank: python3 spinning in a Python function 30 calls deep. Samples alternate
 * between the Python walk and native frames only (the same target, the same moments), so the
 * difference is the walk's. */
static void measure_python(const char *python, int samples, int64_t *with, int64_t *without)
{
	static const char script[] = "import sys\n"
				     "def f(n):\n"
				     "    if n: return f(n - 1)\n"
				     "    x = 0\n"
				     "    while True: x += 1\n"
				     "print('ready', flush=True)\n"
				     "f(30)\n";
	int fds[2];
	char buf[16] = "", err[512];
	struct target t;
	int nw = 0, nn = 0, pyframes = 0;

	if (pipe(fds) < 0)
		return;

	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fds[1], 1);
		close(fds[0]);
		execl(python, python, "-c", script, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], buf, sizeof(buf) - 1) <= 0 || target_open(&t, pid, err, sizeof(err)) != TARGET_OK) {
		fprintf(stderr, "sample_cost: no Python target (%s)\n", python);
		close(fds[0]);
		if (pid > 0)
			stop_target(pid);
		return;
	}

	const struct py_layout *layout = t.py.layout;

	for (int i = 0; layout && i < 2 * samples; i++) {
		struct sample_cost c;
		enum rank_state st;

		t.py.layout = i % 2 ? NULL : layout;
		if (target_sample(&t, &st, &c, err, sizeof(err)) != TARGET_OK)
			break;
		if (i % 2)
			without[nn++] = c.threads ? c.stopped_sum / c.threads : 0;
		else
			with[nw++] = c.threads ? c.stopped_sum / c.threads : 0;
	}
	if (layout) { /* the label's frame count, read once more with the target running */
		struct pyframe_raw f[PY_MAX_FRAMES];

		pyframes = pyframes_walk(layout, t.py.runtime, pid, t.snap.regs.fs_base, pyframes_read_process, &pid, f,
					 PY_MAX_FRAMES);
	}
	t.py.layout = layout;
	target_close(&t);
	stop_target(pid);
	close(fds[0]); /* kept open until now: the target's output must never meet a closed pipe */
	if (!layout) {
		printf("| CPython rank | 1 | - | n/a | n/a | n/a | 0 |\n");
		return;
	}

	double base = nn ? quantile_us(without, nn, 0.5) : 0, med = nw ? quantile_us(with, nw, 0.5) : 0;

	row("CPython rank, native frames only", 1, 0, without, nn, base);
	printf("| CPython rank, with the Python walk (%d Python frames) | 1 | - | %.1f | %.1f | %.2fx | %d |\n",
	       pyframes, med, nw ? quantile_us(with, nw, 0.99) : 0, base > 0 ? med / base : 1.0, nw);
	printf("\nThe Python walk adds %.1f us to the median stop (budget: 50 us), samples alternating "
	       "with and without it on one target.\n", med - base);
}

/* SAMPLE_COST_PYTHONS=1: a C rank (the call chain spinning, 1 thread, ~43 frames) and then each
 * interpreter given after SAMPLES, in one run: bench/pyversions.sh's rows. */
static int pythons_only(const char *callchain, int samples, int npy, char **pythons, int64_t *v, int64_t *held,
			int64_t *whole)
{
	int64_t *w = calloc((size_t)samples, sizeof(int64_t));
	pid_t pid = start_target(callchain, "spin", 1, 34);
	int frames = 0, n = pid > 0 ? measure_parastack(pid, samples, v, held, whole, &frames) : 0;

	printf("| method | threads | frames | median us | p99 us | x native only | samples |\n");
	printf("|---|---|---|---|---|---|---|\n");
	row("C rank (call chain, spinning)", 1, frames, v, n, n ? quantile_us(v, n, 0.5) : 0);
	if (pid > 0)
		stop_target(pid);
	for (int i = 0; w && i < npy; i++) {
		printf("| %s | | | | | | |\n", pythons[i]);
		measure_python(pythons[i], samples, w, v);
	}
	free(w);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: sample_cost CALLCHAIN_BINARY [SAMPLES [PYTHON]]\n");
		return 2;
	}

	int samples = argc > 2 ? atoi(argv[2]) : 2000;
	int64_t *v = calloc((size_t)samples, sizeof(int64_t));
	int64_t *held = calloc((size_t)samples, sizeof(int64_t));
	int64_t *whole = calloc((size_t)samples, sizeof(int64_t));
	static const int depths[] = { 4, 34 };

	if (getenv("SAMPLE_COST_PYTHONS"))
		return pythons_only(argv[1], samples, argc > 3 ? argc - 3 : 0, argv + 3, v, held, whole);
	/* SAMPLE_COST_ONLY_PARASTACK: the parastack rows alone (A/B runs of two builds). */
	int only_parastack = getenv("SAMPLE_COST_ONLY_PARASTACK") != NULL;
	int have_eu = system("command -v eu-stack >/dev/null 2>&1") == 0;
	int have_gdb = system("command -v gdb >/dev/null 2>&1") == 0;

	printf("Stopped time of one thread per sample, microseconds: from PTRACE_INTERRUPT to\n"
	       "PTRACE_DETACH returning (for the commands, their wall time); 'held' counts only from\n"
	       "the stop being seen. With 4 spinning threads on a 2-core machine, interrupt-to-stop\n"
	       "includes waiting for a CPU; 'sleep' threads block as ranks waiting in MPI do.\n"
	       "Ratio: median against parastack's interrupt-to-detach in the same group.\n\n");
	printf("| method | threads | frames | median us | p99 us | x parastack | samples |\n");
	printf("|---|---|---|---|---|---|---|\n");
	static const struct {
		const char *mode;
		int threads;
	} kinds[] = { { "spin", 1 }, { "spin", 4 }, { "sleep", 4 } };

	for (size_t ki = 0; ki < sizeof(kinds) / sizeof(kinds[0]); ki++)
		for (int di = 0; di < 2; di++) {
			int nthreads = kinds[ki].threads;
			pid_t pid = start_target(argv[1], kinds[ki].mode, nthreads, depths[di]);
			int frames = 0, n;
			char label[96];

			if (pid < 0) {
				fprintf(stderr, "sample_cost: cannot start %s\n", argv[1]);
				return 1;
			}
			n = measure_parastack(pid, samples, v, held, whole, &frames);

			double base = n ? quantile_us(v, n, 0.5) : 0;

			snprintf(label, sizeof(label), "parastack, %s threads", kinds[ki].mode);
			row(label, nthreads, frames, v, n, base);
			snprintf(label, sizeof(label), "parastack, %s threads, held in the stop", kinds[ki].mode);
			row(label, nthreads, frames, held, n, base);
			snprintf(label, sizeof(label), "parastack, %s threads, whole sample (monitor side)", kinds[ki].mode);
			row(label, nthreads, frames, whole, n, base);
			if (only_parastack) {
				stop_target(pid);
				continue;
			}
			n = measure_naive(pid, samples / 10, v, &frames);
			row("naive (prototype: unwind + symbols while stopped)", nthreads, frames, v, n, base);
			if (have_eu) {
				n = measure_command("eu-stack -p %d >/dev/null 2>&1", pid, 10, v);
				row("eu-stack -p (wall)", nthreads, frames, v, n, base);
			}
			if (have_gdb) {
				n = measure_command("gdb -nx -batch -ex 'thread apply all bt' -p %d >/dev/null 2>&1", pid, 5, v);
				row("gdb -batch bt (wall)", nthreads, frames, v, n, base);
			}
			stop_target(pid);
		}
	for (int di = 0; di < 2; di++) {
		pid_t a = start_target(argv[1], "spin", 1, depths[di]), b = start_target(argv[1], "spin", 1, depths[di]);
		int n = a > 0 && b > 0 ? measure_alternating(a, b, samples, whole) : 0;

		row("parastack, two ranks sampled in turn, whole sample (monitor side)", 1, depths[di] + 9, whole, n, 0);
		if (a > 0)
			stop_target(a);
		if (b > 0)
			stop_target(b);
	}
	if (argc > 3) {
		int64_t *w = calloc((size_t)samples, sizeof(int64_t));

		printf("\nA CPython rank (%s), spinning 30 Python calls deep:\n\n", argv[3]);
		printf("| method | threads | frames | median us | p99 us | x native only | samples |\n");
		printf("|---|---|---|---|---|---|---|\n");
		measure_python(argv[3], samples, w, v);
		free(w);
	}
	free(v);
	free(held);
	free(whole);
	return 0;
}
