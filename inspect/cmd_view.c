/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_view — `parastack view`: a JSON report drawn for people, as one HTML page to open in a
 * browser or as the stack tree in Graphviz's language (view.h draws both). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../launcher/commands.h"
#include "view.h"
#include "../base/options.h"
#include "../base/option_docs.h"

static const char view_usage_head[] =
	"usage: parastack view [options] REPORT.json\n"
	"Draw a report (parastack run/attach --report) for people: one self-contained HTML page (the\n"
	"verdict and the job, the culprits, the merged stack tree, the faulty ranks' frames, who waits\n"
	"for whom, the stragglers and the model's timeline; nothing fetched), or the stack tree for\n"
	"Graphviz. '-' reads the report from stdin.\n"
	"\n";
static const struct command_help view_usage = { view_usage_head, HELP_VIEW, NULL };

struct view_options {
	const char *report, *output;
	bool dot;
};

/* Options into vo: 0, 1 after --help, or -1 after one line said. */
static int view_parse(int argc, char **argv, struct view_options *vo)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "dot", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(vo, 0, sizeof(*vo));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		if (c == 'h') {
			command_help_print(stdout, &view_usage);
			return 1;
		} else if (c == 'o') {
			vo->output = optarg;
		} else if (c == 'd') {
			vo->dot = true;
		} else {
			option_unknown("view", argv, longopts);
			return -1;
		}
	}
	if (argc - optind != 1) {
		cmd_error("view", "expected exactly one REPORT.json; see 'parastack view --help'");
		return -1;
	}
	vo->report = argv[optind];
	return 0;
}

static json_t *view_load(const char *path)
{
	json_error_t e;
	json_t *r = !strcmp(path, "-") ? json_loadf(stdin, 0, &e) : json_load_file(path, 0, &e);

	if (!r) {
		cmd_error("view", "%s: not a JSON report (%s, line %d); give the file --report wrote", path, e.text, e.line);
		return NULL;
	}
	if (!json_is_object(r) || !json_is_string(json_object_get(r, "verdict"))) {
		cmd_error("view", "%s: not a parastack report (no \"verdict\"); give the file --report wrote", path);
		json_decref(r);
		return NULL;
	}
	return r;
}

/* REPORT.json -> REPORT.html; "-" -> "-". */
static char *default_output(const struct view_options *vo)
{
	size_t n = strlen(vo->report);
	char *out;

	if (vo->dot || !strcmp(vo->report, "-"))
		return strdup("-");
	if (n > 5 && !strcmp(vo->report + n - 5, ".json"))
		n -= 5;
	if (!(out = malloc(n + 6)))
		return NULL;
	memcpy(out, vo->report, n);
	strcpy(out + n, ".html");
	return out;
}

/* The output opened as this user's file, a link never followed. */
static FILE *view_open(const char *path)
{
	int fd;
	FILE *f;

	if (!strcmp(path, "-"))
		return stdout;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		int err = errno;

		cmd_error("view", "cannot write %s: %s%s", path, strerror(err),
			  err == ELOOP ? " (a symbolic link: name another file with -o)" : "; name another file with -o");
		return NULL;
	}
	if (!(f = fdopen(fd, "w")))
		close(fd);
	return f;
}

int cmd_view(int argc, char **argv)
{
	struct view_options vo;
	int parsed = view_parse(argc, argv, &vo), status = EXIT_USAGE;
	json_t *r = NULL;
	char *output = NULL;
	FILE *out = NULL;

	if (parsed != 0)
		return parsed > 0 ? 0 : EXIT_USAGE;
	if (!(r = view_load(vo.report)))
		goto done;
	status = 1;
	if (!(output = vo.output ? strdup(vo.output) : default_output(&vo)) || !(out = view_open(output)))
		goto done;
	if ((vo.dot ? view_dot(out, r) : view_html(out, r)) < 0 || (out != stdout && fclose(out) != 0)) {
		cmd_error("view", "writing %s failed: %s", output, strerror(errno));
		out = NULL;
		goto done;
	}
	out = NULL;
	if (strcmp(output, "-"))
		fprintf(stderr, "parastack view: %s (open it in a browser)\n", output);
	status = 0;
done:
	if (out && out != stdout)
		fclose(out);
	free(output);
	json_decref(r);
	return status;
}
