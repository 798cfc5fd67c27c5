/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the one description of the options (base/option_docs.c): every option the watch's
 * parser takes (WATCH_LONGOPTS) is in the --help of each command that takes it, each once; the
 * defaults the help states are the code's constants; no line runs past the help's width. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/option_docs.h"
#include "../../base/options.h"
#include "suites.h"

/* The option lines of one command's help, in a malloc'd string. */
static char *help_of(enum help_command command)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	option_docs_print(f, command);
	fclose(f);
	return buf;
}

/* How often "--name" starts an option line's tag ("  --name", "  --name ARG", "  --name=..."). */
static int tags_of(const char *help, const char *name)
{
	char tag[64];
	int n = 0, len = snprintf(tag, sizeof tag, "  --%s", name);

	for (const char *p = help; (p = strstr(p, tag)); p += len)
		if ((p == help || p[-1] == '\n') && strchr(" =\n", p[len]))
			n++;
	return n;
}

START_TEST(every_watch_option_is_in_each_watching_commands_help_once)
{
	static const struct option watch[] = { WATCH_LONGOPTS };
	static const enum help_command commands[] = { HELP_RUN, HELP_ATTACH, HELP_MONITOR, HELP_SBATCH,
						      HELP_QSUB };

	for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
		char *help = help_of(commands[c]);

		for (size_t i = 0; i < sizeof watch / sizeof watch[0]; i++)
			ck_assert_msg(tags_of(help, watch[i].name) == 1, "command %d: --%s listed %d times",
				      (int)commands[c], watch[i].name, tags_of(help, watch[i].name));
		free(help);
	}
}
END_TEST

START_TEST(the_stated_defaults_are_the_constants)
{
	char *help = help_of(HELP_RUN), want[96];

	snprintf(want, sizeof want, "(default %g)", DETECTOR_DEFAULT_MAX_INTERVAL_MS);
	ck_assert_ptr_nonnull(strstr(help, want));
	snprintf(want, sizeof want, "all up to %d ranks", REPORT_RANKS_FULL_MAX);
	ck_assert_ptr_nonnull(strstr(help, want));
	snprintf(want, sizeof want, "(default %d;", WATCH_FANOUT_DEFAULT);
	ck_assert_ptr_nonnull(strstr(help, want));
	free(help);
}
END_TEST

START_TEST(no_line_is_wider_than_the_help)
{
	for (unsigned c = 1; c <= HELP_MAIN; c <<= 1) {
		char *help = help_of((enum help_command)c);

		for (char *line = strtok(help, "\n"); line; line = strtok(NULL, "\n"))
			ck_assert_msg(strlen(line) <= 94, "too wide: %s", line);
		free(help);
	}
}
END_TEST

START_TEST(qsub_leaves_h_to_qsub)
{
	char *help = help_of(HELP_QSUB);

	ck_assert_ptr_null(strstr(help, "-h, --help"));
	ck_assert_int_eq(tags_of(help, "help"), 1);
	free(help);
}
END_TEST

Suite *option_docs_suite(void)
{
	Suite *s = suite_create("option_docs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_watch_option_is_in_each_watching_commands_help_once);
	tcase_add_test(tc, the_stated_defaults_are_the_constants);
	tcase_add_test(tc, no_line_is_wider_than_the_help);
	tcase_add_test(tc, qsub_leaves_h_to_qsub);
	suite_add_tcase(s, tc);
	return s;
}
