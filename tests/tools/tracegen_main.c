/* SPDX-License-Identifier: BSD-3-Clause */
/* tracegen — write a synthetic sample trace ("t_ms S C") for command-line replay tests:
 *   tracegen short|long [--seed N] [--minutes M] [--hang-at SECONDS] [--hang-s S]
 *                       [--step-ms MS] [--set-size C] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/tracegen.h"

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "minutes", required_argument, NULL, 'm' },
		{ "hang-at", required_argument, NULL, 'a' },
		{ "hang-s", required_argument, NULL, 'v' },
		{ "step-ms", required_argument, NULL, 't' },
		{ "set-size", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct tracegen_config cfg;
	double minutes = 10.0, hang_at = -1.0, step = 10.0;
	int c, set_size = 10, hang_s = 0;
	unsigned long long seed = 1;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'm': minutes = atof(optarg); break;
		case 'a': hang_at = atof(optarg); break;
		case 'v': hang_s = atoi(optarg); break;
		case 't': step = atof(optarg); break;
		case 'c': set_size = atoi(optarg); break;
		default: return 2;
		}
	}
	if (optind != argc - 1 || (strcmp(argv[optind], "short") && strcmp(argv[optind], "long")) ||
	    step <= 0) {
		fprintf(stderr, "usage: tracegen short|long [--seed N] [--minutes M] [--hang-at S] [--hang-s S] [--step-ms MS] [--set-size C]\n");
		return 2;
	}
	tracegen_config_default(&cfg, strcmp(argv[optind], "short") ? TRACEGEN_LONG : TRACEGEN_SHORT,
				seed);
	cfg.c = set_size;
	cfg.duration_ms = minutes * 60e3;
	cfg.hang_at_ms = hang_at < 0 ? -1.0 : hang_at * 1e3;
	cfg.hang_s = hang_s;

	struct tracegen g;

	if (tracegen_init(&g, &cfg) < 0) {
		fprintf(stderr, "tracegen: --set-size must be 1..64\n");
		return 2;
	}
	printf("# tracegen %s seed %llu hang_at_s %g\n", argv[optind], seed, hang_at);
	for (double t = 0.0; t <= cfg.duration_ms; t += step)
		if (trace_write_point(stdout, t, tracegen_s_at(&g, t), cfg.c, NULL) < 0)
			return 1;
	return 0;
}
