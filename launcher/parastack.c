/* SPDX-License-Identifier: BSD-3-Clause */
/* parastack — the user's command: dispatches to subcommands (replay, and more as they land). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "layer_place.h"
#include "../base/install_paths.h"
#include "../base/options.h"
#include "site_defaults.h"
#include "../base/option_docs.h"

#ifndef PARASTACK_VERSION
#define PARASTACK_VERSION "0.1.0"
#endif

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
	{ "run", cmd_run, "run an MPI job and watch it for hangs (parastack run -- mpirun ...)" },
	{ "attach", cmd_attach, "watch a running job for hangs (--pids, --pids-file or --slurm-job)" },
	{ "stack", cmd_stack, "print MPI-aware stacks of running processes (like pstack)" },
	{ "replay", cmd_replay, "evaluate the hang-detection model on a recorded sample trace" },
	{ "plot", cmd_plot, "draw a recorded sample trace as the model saw it (SVG or PNG)" },
	{ "view", cmd_view, "draw a JSON report as a page to open in a browser (or its stack tree for Graphviz)" },
};

static void usage(FILE *out)
{
	fputs("usage: parastack COMMAND [options] [args]\n"
	      "parastack detects hangs in MPI jobs from outside, by sampling their stacks.\n\n"
	      "commands:\n", out);
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
	fputs("\n'parastack COMMAND --help' shows a command's options; 'man parastack' has it all.\n", out);
	option_docs_print(out, HELP_MAIN);
}

int main(int argc, char **argv)
{
	/* Started as mpirun (or mpiexec, orterun) from a job script under `parastack run`. */
	if (argc >= 1 && layer_shim_invoked(argv[0]))
		return layer_shim_main(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* "parastack help run" is "parastack run --help". */
	if (!strcmp(argv[1], "help") && argc > 2) {
		char *words[] = { argv[2], "--help", NULL };

		for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
			if (!strcmp(argv[2], subcommands[i].name))
				return subcommands[i].run(2, words);
		fprintf(stderr, "parastack: '%s' is not a command; see 'parastack --help'\n", argv[2]);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	/* --version anywhere before "--": the command's own options never take that word. */
	if (wants_version(argc, argv, false)) {
		print_version("parastack");
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
		if (strcmp(argv[1], subcommands[i].name))
			continue;

		int n = argc - 1;
		char **words = argv + 1;

		/* The commands that watch jobs take the site's and the user's default options. */
		if ((!strcmp(argv[1], "run") || !strcmp(argv[1], "attach")) &&
		    !(words = site_defaults_apply(argv[1], &n, words)))
			return EXIT_USAGE;
		return subcommands[i].run(n, words);
	}
	fprintf(stderr, "parastack: '%s' is not a command; see 'parastack --help'\n", argv[1]);
	return EXIT_USAGE;
}
