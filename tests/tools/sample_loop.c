/* SPDX-License-Identifier: BSD-3-Clause */
/* sample_loop — sample a process's IN_MPI/OUT_MPI state in a tight loop, the way the monitor
 * does, printing one line per sample ("IN_MPI" or "OUT_MPI"): used by the tests that kill the
 * sampler at random moments and check that the target is left running and untraced.
 * usage: sample_loop [--fingerprint] PID [COUNT [PAUSE_MS]] (COUNT 0 or absent: forever;
 * PAUSE_MS between samples, default none). --fingerprint adds to each line the rank's progress
 * fingerprint and whether it is in MPI_Init and in the kernel: "IN_MPI fp 1a2b... init 0
 * kernel 0". --frames samples every thread instead and adds the main thread's function names,
 * innermost first, through one symbolizer kept across samples, as the monitor keeps it:
 * "IN_MPI frames pause remap_wait main". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../base/signals.h"
#include "../../monitor/sample/print/frames.h"
#include "../../monitor/sample/stop/target.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* One sample of every thread; the main thread's function names after the state. */
static enum target_status sample_frames(struct target *t, struct symbolizer_pool *pool, char *err, size_t len)
{
	static struct frame_view v[TARGET_MAX_FRAMES * 2];
	struct thread_stack *threads = NULL;
	enum rank_state st;
	int n = 0;
	enum target_status r = target_capture(t, &threads, &n, &st, err, len);

	if (r != TARGET_OK)
		return r;
	printf("%s frames", rank_state_name(st));
	for (int i = 0; i < n; i++) {
		if (!threads[i].main)
			continue;

		int nv = frames_view(t, symbolizer_pool_get(pool, &t->maps), &threads[i], v, TARGET_MAX_FRAMES * 2);

		for (int k = 0; k < nv; k++)
			printf(" %s", v[k].f.func);
	}
	printf("\n");
	free(threads);
	return TARGET_OK;
}

int main(int argc, char **argv)
{
	struct target t;
	struct symbolizer_pool pool = { 0 };
	char err[512];
	int fingerprint = argc > 1 && !strcmp(argv[1], "--fingerprint");
	int frames = !fingerprint && argc > 1 && !strcmp(argv[1], "--frames");

	argc -= fingerprint + frames;
	argv += fingerprint + frames;

	long count = argc > 2 ? atol(argv[2]) : 0, pause_ms = argc > 3 ? atol(argv[3]) : 0;

	if (argc < 2 || target_open(&t, (pid_t)atoi(argv[1]), err, sizeof(err)) != TARGET_OK) {
		fprintf(stderr, "sample_loop: %s\n", argc < 2 ? "usage: sample_loop PID [COUNT]" : err);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signals_install(on_signal);
	for (long i = 0; (count == 0 || i < count) && !stop_requested; i++) {
		enum rank_state st;
		enum target_status r = frames ? sample_frames(&t, &pool, err, sizeof(err))
					      : target_sample(&t, &st, NULL, err, sizeof(err));

		if (r != TARGET_OK) {
			fprintf(stderr, "sample_loop: %s\n", err);
			symbolizer_pool_free(&pool);
			target_close(&t);
			return 1;
		}
		if (frames)
			;
		else if (fingerprint)
			printf("%s fp %016llx init %d kernel %d\n", rank_state_name(st),
			       (unsigned long long)t.fingerprint.app, t.in_init, t.in_kernel);
		else
			printf("%s\n", rank_state_name(st));
		if (pause_ms > 0) {
			struct timespec ts = { pause_ms / 1000, (pause_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
	symbolizer_pool_free(&pool);
	target_close(&t);
	if (stop_requested)
		fprintf(stderr, "sample_loop: stopped by a signal; detached\n");
	return 0;
}
