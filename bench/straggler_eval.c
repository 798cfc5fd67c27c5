/* SPDX-License-Identifier: BSD-3-Clause */
/* straggler_eval — the straggler model (stats/straggler.c) replayed on a monitor's trace
 * (--trace: its "# waits R:W ..." lines), offline: what it would flag and when, per rank, with
 * the model's estimate every PERIOD seconds. bench/stragglers.sh measures the live monitor;
 * this reads the same evidence again, so a change to the model is tried on recorded jobs.
 *   straggler_eval [--every SECONDS] [--alpha A] TRACE...
 * Prints, per trace: "flag RANK at T s (since S s) others W own W confidence C" for each flag,
 * then "none" when there was none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../stats/straggler.h"

#define LINE_MAX_ 65536
#define SET_MAX 4096
#define RANKS_MAX 65536

static int parse_waits(char *line, int *ranks, signed char *waits)
{
	int n = 0;

	for (char *tok = strtok(line + strlen("# waits"), " \n"); tok && n < SET_MAX; tok = strtok(NULL, " \n")) {
		char *colon = strchr(tok, ':');

		if (!colon)
			continue;
		ranks[n] = atoi(tok);
		char *end = NULL;
		long pct = strtol(colon + 1, &end, 10);

		if (end && *end == '%')
			waits[n] = (signed char)(pct >= 0 && pct <= 100 ? pct : -1);
		else
			waits[n] = colon[1] == '1' ? 100 : colon[1] == '0' ? 0 : -1;
		if (ranks[n] >= 0 && ranks[n] < RANKS_MAX)
			n++;
	}
	return n;
}

static int eval(const char *path, double every, double alpha)
{
	static char line[LINE_MAX_];
	static int ranks[SET_MAX];
	static signed char waits[SET_MAX];
	FILE *in = fopen(path, "r");
	struct straggler s;
	double t = 0, t0 = 0, next = every;
	int flags = 0, maxrank = 0;

	if (!in) {
		perror(path);
		return -1;
	}
	/* The ranks' count: the largest rank named, first. */
	while (fgets(line, sizeof(line), in))
		if (!strncmp(line, "# waits", 7)) {
			int n = parse_waits(line, ranks, waits);

			for (int i = 0; i < n; i++)
				maxrank = ranks[i] > maxrank ? ranks[i] : maxrank;
		}
	rewind(in);
	if (straggler_init(&s, maxrank + 1, alpha) < 0) {
		fclose(in);
		return -1;
	}
	printf("%s\n", path);
	while (fgets(line, sizeof(line), in)) {
		double unix0;

		if (sscanf(line, "# t_ms 0 is unix time %lf", &unix0) == 1)
			t0 = unix0;
		else if (line[0] >= '0' && line[0] <= '9')
			t = atof(line) / 1e3;
		if (strncmp(line, "# waits", 7))
			continue;

		int n = parse_waits(line, ranks, waits), f = straggler_round(&s, ranks, waits, n, t, false);
		struct straggler_info in_;

		if (f >= 0 && straggler_info(&s, f, &in_)) {
			printf("  flag %d at %.1f s (since %.1f s) others %.2f own %.2f confidence %.5f\n", f, t,
			       in_.since, in_.mates, in_.own, in_.confidence);
			flags++;
		}
		if (every > 0 && t >= next) {
			printf("  t %.0f s:", t);
			for (int r = 0; r <= maxrank; r++)
				if (straggler_info(&s, r, &in_) && in_.n > 0) {
					double zl, zc, zl2, zc2;

					straggler_tests(&s, r, 0, &zl, &zc);
					straggler_tests(&s, r, 1, &zl2, &zc2);
					printf(" %d:%+.2f/%.0f", r, in_.gap, in_.n);
					if (zl > 2 || zl2 > 2)
						printf("[z %.1f %.1f | %.1f %.1f]", zl, zc, zl2, zc2);
				}
			printf("\n");
			next += every;
		}
	}
	(void)t0;
	if (!flags)
		printf("  none\n");
	straggler_free(&s);
	fclose(in);
	return flags;
}

int main(int argc, char **argv)
{
	double every = 0, alpha = 0.001;
	int i = 1;

	for (; i < argc - 1 && !strncmp(argv[i], "--", 2); i += 2)
		if (!strcmp(argv[i], "--every"))
			every = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--alpha"))
			alpha = atof(argv[i + 1]);
	if (i >= argc) {
		fprintf(stderr, "usage: straggler_eval [--every SECONDS] [--alpha A] TRACE...\n");
		return 2;
	}
	for (; i < argc; i++)
		if (eval(argv[i], every, alpha) < 0)
			return 1;
	return 0;
}
