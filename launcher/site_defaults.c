/* SPDX-License-Identifier: BSD-3-Clause */
/* site_defaults — see site_defaults.h. Words are separated by white space; "#" starts a comment
 * to the end of its line in the file. No quoting: option values with spaces do not belong in
 * site defaults. */
#include "site_defaults.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/install_paths.h"
#include "../base/options.h"

#define DEFAULTS_MAX 64

/* Append the white-space separated words of text (comments cut) to words. */
static int split_words(char *text, char **words, int *n, const char *from, const char *cmd)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		line[strcspn(line, "#")] = '\0';
		for (char *p = line; *p;) {
			p += strspn(p, " \t\r");
			if (!*p)
				break;

			size_t len = strcspn(p, " \t\r");

			if (*n >= DEFAULTS_MAX) {
				cmd_error(cmd, "%s: more than %d words of default options", from, DEFAULTS_MAX);
				return -1;
			}
			/* A value follows an option written without "=value". */
			bool value = *n > 0 && words[*n - 1][0] == '-' && !strchr(words[*n - 1], '=') &&
				     p[0] != '-';

			if (p[0] != '-' && !value) {
				cmd_error(cmd, "%s: '%.*s' is not an option (default options start with --)", from,
					  (int)len, p);
				return -1;
			}
			if (!(words[(*n)++] = strndup(p, len)))
				return -1;
			p += len;
		}
	}
	return 0;
}

/* The file's text, NULL when it does not exist (an error printed when it cannot be read). */
static char *read_file(const char *path, const char *cmd, int *failed)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t len = 0;

	*failed = 0;
	if (!f) {
		if (errno != ENOENT) {
			cmd_error(cmd, "cannot read the default options in %s: %s", path, strerror(errno));
			*failed = 1;
		}
		return NULL;
	}
	if (getdelim(&text, &len, '\0', f) < 0 && ferror(f)) {
		cmd_error(cmd, "cannot read the default options in %s: %s", path, strerror(errno));
		*failed = 1;
	}
	fclose(f);
	return text;
}

char **site_defaults_apply(const char *cmd, int *argc, char **argv)
{
	char *words[DEFAULTS_MAX], *text;
	const char *path = getenv("PARASTACK_CONFIG"), *env = getenv("PARASTACK_OPTIONS");
	int n = 0, failed;

	if (!path || !*path)
		path = install_options_file();
	text = read_file(path, cmd, &failed);
	if (failed || (text && split_words(text, words, &n, path, cmd) < 0)) {
		free(text);
		return NULL;
	}
	free(text);
	if (env && *env) {
		char *copy = strdup(env);

		if (!copy || split_words(copy, words, &n, "PARASTACK_OPTIONS", cmd) < 0) {
			free(copy);
			return NULL;
		}
		free(copy);
	}
	if (n == 0)
		return argv;

	char **out = calloc((size_t)(*argc + n + 1), sizeof(char *));

	if (!out)
		return NULL;
	out[0] = argv[0];
	memcpy(out + 1, words, (size_t)n * sizeof(char *));
	memcpy(out + 1 + n, argv + 1, (size_t)(*argc - 1) * sizeof(char *));
	*argc += n;
	return out;
}
