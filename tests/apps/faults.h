/* faults — fault injection for the test applications, from the environment:
 *   PS_FAULT        spin | sleep | deadlock | skip | exit | stall | io | slow   (unset: healthy)
 *   PS_FAULT_RANK   the rank that misbehaves (default 1; -1: every rank)
 *   PS_FAULT_AFTER  seconds after MPI_Init before it does (default 30)
 *   PS_STALL        seconds a "stall" lasts before the rank recovers (default 3)
 *   PS_SLOW         "slow": the rank's compute takes this many times as long from then on
 *                   (default 2; 1.25: 25 % slower), a straggler, not a hang (faults_work)
 *   PS_HEAVY_RANK   a rank that computes PS_HEAVY times as much as the others from the start, by
 *                   design (a coarse-grid or I/O rank: a built-in imbalance, no slowdown)
 *   PS_ITERS        iterations before the application ends by itself (default: run forever)
 *   PS_SECONDS      seconds after MPI_Init before it ends by itself, at an iteration every rank
 *                   agrees on (a test's healthy job beside a hang: as long on a busy machine as
 *                   on an idle one)
 *   PS_EXIT         exit status of a healthy run that ends by itself (default 0)
 *   PS_PRINT_PIDS   when set, each rank prints "rank R pid P" and "rank R host H" at start
 *   PS_HELPER       when set, each rank forks a helper process that sleeps until the rank ends
 *                   (it carries the rank's environment, as helpers do, and is no rank); "deep":
 *                   the helper forks one of its own (a grandchild, as a popen()ed shell's)
 *   PS_ELAPSED      when set, rank 0 prints "elapsed SECONDS" (from MPI_Init) as the job ends:
 *                   the benchmarks' fixed-work time, free of launch costs
 *   PS_FAULT_LOG    when set, the faulty rank appends "UNIX_TIME RANK KIND" to this file as its
 *                   fault fires (the benchmarks measure response delay from it)
 *   PS_PREINIT      before MPI_Init, rank PS_PREINIT_RANK (default 1; the launcher's rank
 *                   variable, as MPI has no rank yet) reads its input: "stuck" from a pipe no one
 *                   writes (it never arrives), "slow" from a file in small pieces for
 *                   PS_PREINIT_SECONDS (default 45) - a slow file system, moving all along;
 *                   PS_FAULT_LOG gets "UNIX_TIME RANK preinit-stuck" as the read begins
 * Header-only so every application (C) shares one definition. */
#ifndef PARASTACK_TEST_FAULTS_H
#define PARASTACK_TEST_FAULTS_H

#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum fault { FAULT_NONE, FAULT_SPIN, FAULT_SLEEP, FAULT_DEADLOCK, FAULT_SKIP, FAULT_EXIT, FAULT_STALL, FAULT_IO, FAULT_SLOW };

static const char *const fault_names[] = { "none", "spin", "sleep", "deadlock", "skip", "exit", "stall", "io", "slow" };

struct faults {
	enum fault kind;
	int rank;
	double after, stall, t0, seconds;
	double slow, heavy; /* this rank's compute factors: since its slowdown, and by design */
	long iters;
	int exit_status;
	int fired;
};

static inline double env_double(const char *name, double dflt)
{
	const char *v = getenv(name);

	return v && *v ? atof(v) : dflt;
}

static inline void faults_init(struct faults *f)
{
	const char *k = getenv("PS_FAULT");
	memset(f, 0, sizeof(*f));
	for (int i = 1; k && i < (int)(sizeof(fault_names) / sizeof(fault_names[0])); i++)
		if (!strcmp(k, fault_names[i]))
			f->kind = (enum fault)i;
	f->rank = (int)env_double("PS_FAULT_RANK", 1);
	f->after = env_double("PS_FAULT_AFTER", 30);
	f->stall = env_double("PS_STALL", 3);
	f->slow = 1;
	f->heavy = 1;
	f->iters = (long)env_double("PS_ITERS", -1);
	f->seconds = env_double("PS_SECONDS", 0);
	f->exit_status = (int)env_double("PS_EXIT", 0);
	/* One start time for every rank: a fault of every rank (PS_FAULT_RANK=-1) fires in the same
	 * iteration everywhere, not on ranks already blocked by a neighbour that started sooner. */
	MPI_Barrier(MPI_COMM_WORLD);
	f->t0 = MPI_Wtime();
}

/* The launcher's rank of this process, before MPI_Init can say it; -1 when none is set. */
static inline int preinit_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID" };

	for (unsigned i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]) && *getenv(vars[i]))
			return atoi(getenv(vars[i]));
	return -1;
}

/* The input a rank reads before MPI_Init: from fd until `seconds` have passed (a piece of 512
 * bytes every 50 ms, rewound at its end), or for good when nothing ever comes. */
__attribute__((noinline)) static void read_input(int fd, double seconds)
{
	char piece[512];
	struct timespec now, pause50 = { 0, 50000000 };
	double t0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	t0 = now.tv_sec + now.tv_nsec / 1e9;
	for (;;) {
		if (read(fd, piece, sizeof(piece)) <= 0)
			lseek(fd, 0, SEEK_SET);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec + now.tv_nsec / 1e9 - t0 >= seconds)
			return;
		nanosleep(&pause50, NULL);
	}
}

static inline void preinit_fault(void)
{
	const char *kind = getenv("PS_PREINIT");
	int fds[2];

	if (!kind || !*kind || preinit_rank() != (int)env_double("PS_PREINIT_RANK", 1))
		return;
	if (!strcmp(kind, "stuck") && pipe(fds) == 0) {
		const char *path = getenv("PS_FAULT_LOG");
		FILE *log = path && *path ? fopen(path, "a") : NULL;
		struct timeval tv;

		gettimeofday(&tv, NULL);
		if (log) {
			fprintf(log, "%.6f %d preinit-stuck\n", tv.tv_sec + tv.tv_usec / 1e6, preinit_rank());
			fclose(log);
		}
		read_input(fds[0], 1e12); /* the write end stays open: read() waits for good */
	} else if (!strcmp(kind, "slow")) {
		int fd = open("/proc/self/exe", O_RDONLY);

		read_input(fd, env_double("PS_PREINIT_SECONDS", 45));
		close(fd);
	}
}

/* The start every test application shares: MPI_Init, this rank, the job size, the faults. */
static inline void app_start(int *argc, char ***argv, int *rank, int *size, struct faults *f)
{
	preinit_fault();
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	faults_init(f);
	if (getenv("PS_HEAVY_RANK") && *rank == (int)env_double("PS_HEAVY_RANK", -1))
		f->heavy = env_double("PS_HEAVY", 2);
	if (getenv("PS_HELPER") && fork() == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (!strcmp(getenv("PS_HELPER"), "deep") && fork() == 0)
			prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	if (getenv("PS_PRINT_PIDS")) {
		char host[256] = "";

		gethostname(host, sizeof(host) - 1);
		printf("rank %d pid %d\nrank %d host %s\n", *rank, (int)getpid(), *rank, host);
		fflush(stdout);
	}
}

/* Record when the fault fired, with the wall clock the monitor's report uses. */
static inline void faults_log(const struct faults *f, int rank)
{
	const char *path = getenv("PS_FAULT_LOG");
	struct timeval tv;
	FILE *log;

	if (!path || !*path || !(log = fopen(path, "a")))
		return;
	gettimeofday(&tv, NULL);
	fprintf(log, "%.6f %d %s\n", tv.tv_sec + tv.tv_usec / 1e6, rank, fault_names[f->kind]);
	fclose(log);
}

/* The end every test application shares: the elapsed time when asked, then MPI_Finalize. */
static inline void app_end(const struct faults *f, int rank)
{
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && getenv("PS_ELAPSED")) {
		printf("elapsed %.6f\n", MPI_Wtime() - f->t0);
		fflush(stdout);
	}
	MPI_Finalize();
}

/* Does the main loop go on at iteration it? PS_ITERS bounds it by count, PS_SECONDS by time:
 * asked of every rank together every 64 iterations (one MPI_Allreduce), so all end at once. */
static inline int app_more(const struct faults *f, long it)
{
	int over, any = 0;

	if (f->iters >= 0 && it >= f->iters)
		return 0;
	if (f->seconds <= 0 || it % 64)
		return 1;
	over = MPI_Wtime() - f->t0 >= f->seconds;
	MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return !any;
}

/* How many times the normal compute this rank does now: its by-design share, times its
 * slowdown once that has fired. */
static inline double faults_work(const struct faults *f)
{
	return f->heavy * f->slow;
}

/* Is it time for this rank's fault (once)? */
static inline enum fault faults_due(struct faults *f, int rank)
{
	if (f->kind == FAULT_NONE || f->fired || (rank != f->rank && f->rank != -1) ||
	    MPI_Wtime() - f->t0 < f->after)
		return FAULT_NONE;
	f->fired = 1;
	faults_log(f, rank);
	if (f->kind == FAULT_SLOW)
		f->slow = env_double("PS_SLOW", 2);
	return f->kind;
}

/* A rank stuck in application code: the loop is the bug. */
__attribute__((noinline)) static void faulty_spin(void)
{
	volatile unsigned long x = 0;

	for (;;)
		x++;
}

__attribute__((noinline)) static void faulty_sleep(void)
{
	for (;;)
		pause();
}

__attribute__((noinline)) static void transient_stall(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };

	nanosleep(&ts, NULL);
}

/* A rank stuck in the kernel, as on a hung file system: it sits in uninterruptible sleep (D)
 * for good. The vfork parent waits in D until its child exits, and the child never does (it
 * dies with the rank: a fatal signal ends a vfork wait). */
__attribute__((noinline)) static void faulty_kernel_wait(void)
{
	if (vfork() == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	faulty_sleep();
}

#endif
/* SPDX-License-Identifier: BSD-3-Clause */
