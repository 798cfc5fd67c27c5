/* SPDX-License-Identifier: BSD-3-Clause */
/* option_docs — every command's options described once (name, argument, the commands that take
 * it, its help, the default it states, taken from the constant the code uses), and each
 * command's --help printed from that description: its head and tail are the command's own, the
 * option lines come from here. What parses the options stays with each command (options.h's
 * WATCH_LONGOPTS for the watch options); test-man holds every option --help prints to an
 * entry of the man pages. */
#ifndef PARASTACK_OPTION_DOCS_H
#define PARASTACK_OPTION_DOCS_H

#include <stdio.h>

/* The commands whose --help prints option lines, as bits of a doc's `commands`. */
enum help_command {
	HELP_RUN = 1 << 0,
	HELP_ATTACH = 1 << 1,
	HELP_MONITOR = 1 << 2,
	HELP_SBATCH = 1 << 3,
	HELP_QSUB = 1 << 4,
	HELP_REPLAY = 1 << 5,
	HELP_PLOT = 1 << 6,
	HELP_STACK = 1 << 7,
	HELP_VIEW = 1 << 8,
	HELP_MAIN = 1 << 9, /* parastack itself, before a command */
};

/* A command's --help: its own head (usage, what it does), its options from the table, its own
 * tail (exit statuses; NULL for none). */
struct command_help {
	const char *head;
	enum help_command command;
	const char *tail;
};

void command_help_print(FILE *out, const struct command_help *help);

/* The lines of one command's options alone (for a test, and for the help above). */
void option_docs_print(FILE *out, enum help_command command);

#endif
