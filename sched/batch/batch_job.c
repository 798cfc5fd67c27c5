/* SPDX-License-Identifier: BSD-3-Clause */
/* batch_job — the command line and job script of the batch front ends. The user's script is
 * carried inside the job script (a quoted here-document), so the job runs what was submitted
 * even if the file changes later, as sbatch and qsub themselves do. */
#include "batch_job.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../base/install_paths.h"
#include "../../base/options.h"

#define SCRIPT_MAX (16 << 20)

/* parastack run's options a batch front end passes on: the watch options (one table with run,
 * attach and the monitor: options.h) and run's --grace. */
static const struct option ps_options[] = {
	WATCH_LONGOPTS,
	{ "grace", required_argument, NULL, 'G' },
};

static int ps_option_index(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(ps_options) / sizeof(ps_options[0]); i++)
		if (strlen(ps_options[i].name) == len && !strncmp(ps_options[i].name, name, len))
			return (int)i;
	return -1;
}

/* Check one parastack option's value the way `parastack run` will (watch_option_apply), and
 * make its word for the job script: paths absolute (the job may start elsewhere). */
static int check_ps_option(const char *cmd, int k, const char *value, struct common_options *model,
			   struct batch_args *out, char **word)
{
	struct watch_options w = { .opt = *model };
	const char *name = ps_options[k].name, *given = value;
	int grace, val = ps_options[k].val, rc = 0;

	if (val == 'G')
		rc = option_int(cmd, "grace", value, 0, 3600, &grace) < 0 ? -1 : 0;
	else
		rc = watch_option_apply(cmd, &w, val, name, value) == 0 ? 0 : -1;
	if (rc == 0) {
		*model = w.opt;
		given = val == WOPT_REPORT ? w.report : val == WOPT_TRACE ? w.trace : val == WOPT_CORE_DIR ? w.core_dir :
			val == WOPT_REPORT_DIR ? w.report_dir : val == WOPT_METRICS_DIR ? w.metrics_dir :
			val == WOPT_MEMORY ? w.memory_dir : value;
		if (!given || asprintf(word, "--%s=%s", name, given) < 0)
			rc = -1;
		if (rc == 0 && val == WOPT_REPORT && !(out->report = strdup(given)))
			rc = -1;
	}
	watch_options_release(&w);
	return rc;
}

static bool name_listed(const char *const *list, const char *name, size_t len)
{
	for (const char *const *f = list; f && *f; f++)
		if (strlen(*f) == len && !strncmp(*f, name, len))
			return true;
	return false;
}

/* How many words a scheduler option starting at arg spans (1 or 2), or -1 (one line printed)
 * when the scheduler has no such option. */
static int sched_option_words(const char *cmd, const struct sched_syntax *syn, const char *arg)
{
	if (arg[1] == '-') {
		const char *name = arg + 2, *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);

		if (name_listed(syn->long_flags, name, len))
			return 1;
		if (name_listed(syn->long_with_value, name, len))
			return eq ? 1 : 2;
		cmd_error(cmd, "'%s' is neither a parastack option nor one of %s's; see '%s --help' and "
			  "'man %s'", arg, syn->name, cmd, syn->name);
		return -1;
	}
	for (const char *c = arg + 1; *c; c++)
		if (strchr(syn->short_with_value, *c))
			return c[1] ? 1 : 2; /* "-N4" carries its value, "-N" takes the next word */
	return 1;
}

/* Does the option word arg name a refused option? Its entry, or NULL. */
static const struct sched_refusal *refused(const struct sched_syntax *syn, const char *arg)
{
	for (const struct sched_refusal *r = syn->refused; r && r->option; r++) {
		size_t n = strlen(r->option);

		if (r->option[1] == '-' ? !strncmp(arg, r->option, n) && (!arg[n] || arg[n] == '=') :
		    arg[1] != '-' && strchr(arg + 1, r->option[1]) &&
		    strcspn(arg + 1, syn->short_with_value) >= (size_t)(strchr(arg + 1, r->option[1]) - (arg + 1)))
			return r;
	}
	return NULL;
}

int batch_split_args(const char *cmd, const struct command_help *usage, const struct sched_syntax *syn, int argc,
		     char **argv, struct batch_args *out)
{
	struct common_options model;
	int i = 0;

	common_options_default(&model);
	memset(out, 0, sizeof(*out));
	out->ps_opts = calloc((size_t)argc + 1, sizeof(char *));
	out->sched_opts = calloc((size_t)argc + 1, sizeof(char *));
	while (i < argc && argv[i][0] == '-' && argv[i][1]) {
		const char *arg = argv[i];

		if (!strcmp(arg, "--")) {
			i++;
			break;
		}
		if ((!strcmp(arg, "-h") && !syn->h_is_option) || !strcmp(arg, "--help")) {
			command_help_print(stdout, usage);
			return 1;
		}
		if (!strcmp(arg, "--version")) {
			print_version(cmd);
			return 1;
		}
		if (arg[1] == '-') {
			const char *name = arg + 2, *eq = strchr(name, '=');
			int k = ps_option_index(name, eq ? (size_t)(eq - name) : strlen(name));

			if (k >= 0 && ps_options[k].has_arg == no_argument) {
				if (eq) {
					cmd_error(cmd, "--%s takes no value; see '%s --help'", ps_options[k].name, cmd);
					return -1;
				}
				out->ps_opts[out->nps++] = strdup(arg);
				i++;
				continue;
			}
			if (k >= 0) {
				char nm[32];
				const char *value = eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;

				snprintf(nm, sizeof(nm), "%s", ps_options[k].name);
				if (!value) {
					cmd_error(cmd, "--%s needs a value; see '%s --help'", nm, cmd);
					return -1;
				}
				if (check_ps_option(cmd, k, value, &model, out, &out->ps_opts[out->nps]) < 0)
					return -1;
				out->nps++;
				i += eq ? 1 : 2;
				continue;
			}
		}

		const struct sched_refusal *no = refused(syn, arg);

		if (no) {
			cmd_error(cmd, "%s", no->why);
			return -1;
		}

		int words = sched_option_words(cmd, syn, arg);

		if (words < 0)
			return -1;
		if (i + words > argc) {
			cmd_error(cmd, "option '%s' needs a value", arg);
			return -1;
		}
		for (int w = 0; w < words; w++)
			out->sched_opts[out->nsched++] = argv[i++];
	}
	if (common_options_check(cmd, &model) < 0)
		return -1;
	if (i >= argc) {
		cmd_error(cmd, "no job script given; usage: %s [options] SCRIPT [ARGS...]", cmd);
		return -1;
	}
	out->script = argv[i];
	out->script_args = argv + i + 1;
	out->nscript_args = argc - i - 1;
	return 0;
}

/* Is the line at p (up to its newline) part of the block of comments and directives? */
static bool header_line(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '#' || *p == '\n' || *p == '\r';
}

int batch_read_script(const char *cmd, const char *path, struct user_script *s)
{
	struct stat st;
	FILE *f = fopen(path, "r");

	memset(s, 0, sizeof(*s));
	if (!f) {
		cmd_error(cmd, "cannot read the job script %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SCRIPT_MAX) {
		cmd_error(cmd, "the job script %s is not a regular file of at most 16 MiB", path);
		fclose(f);
		return -1;
	}
	s->text = malloc((size_t)st.st_size + 2);

	size_t n = fread(s->text, 1, (size_t)st.st_size, f);

	fclose(f);
	if (n < 2 || strncmp(s->text, "#!", 2)) {
		cmd_error(cmd, "the job script %s does not start with '#!' (an interpreter line such as "
			  "#!/bin/sh is needed)", path);
		batch_free_script(s);
		return -1;
	}
	if (memchr(s->text, '\0', n)) {
		cmd_error(cmd, "the job script %s contains NUL bytes; is it a binary?", path);
		batch_free_script(s);
		return -1;
	}
	if (s->text[n - 1] != '\n')
		s->text[n++] = '\n';
	s->text[n] = '\0';

	const char *p = strchr(s->text, '\n') + 1;

	while (*p && header_line(p))
		p = strchr(p, '\n') + 1;
	s->header_end = (size_t)(p - s->text);
	return 0;
}

void batch_free_script(struct user_script *s)
{
	free(s->text);
	s->text = NULL;
}

static bool word_matches(const char *word, const char *const *names)
{
	for (const char *const *n = names; *n; n++) {
		size_t len = strlen(*n);

		if (!strncmp(word, *n, len) &&
		    (word[len] == '\0' || word[len] == '=' || word[len] == ' ' || word[len] == '\t' ||
		     word[len] == '\n' || (word[1] != '-' && word[len])))
			return true;
	}
	return false;
}

/* Copy the value of option word w (named by name) into value: "-lX" / "--opt=X" carry it,
 * else it is the next word, next (NULL when there is none). */
static void option_value(const char *w, size_t namelen, const char *next, char *value, size_t len)
{
	const char *v = w + namelen;
	size_t n;

	if (*v == '=')
		v++;
	if (!*v || *v == ' ' || *v == '\t' || *v == '\n') {
		v = next ? next : "";
		while (*v == ' ' || *v == '\t')
			v++;
	}
	n = strcspn(v, " \t\r\n");
	snprintf(value, len, "%.*s", (int)(n < len ? n : len - 1), v);
}

int batch_option_values(const struct user_script *s, const struct batch_args *a,
			const struct sched_syntax *syn, const char *const *names, char values[][1024],
			int max)
{
	size_t dlen = strlen(syn->directive);
	int n = 0;

	for (const char *p = strchr(s->text, '\n') + 1; p < s->text + s->header_end;
	     p = strchr(p, '\n') + 1) {
		if (strncmp(p, syn->directive, dlen) || (p[dlen] != ' ' && p[dlen] != '\t'))
			continue;
		for (const char *w = p + dlen; *w && *w != '\n' && n < max; w++)
			if ((w[-1] == ' ' || w[-1] == '\t') && *w == '-' && word_matches(w, names)) {
				size_t nl = strcspn(w, "= \t\n");

				nl = nl > 2 && w[1] != '-' ? 2 : nl; /* "-lnodes=1": the name is "-l" */
				option_value(w, nl, w + nl, values[n++], 1024);
			}
	}
	for (int i = 0; i < a->nsched && n < max; i++)
		if (word_matches(a->sched_opts[i], names)) {
			size_t nl = a->sched_opts[i][1] == '-' ? strcspn(a->sched_opts[i], "=") : 2;

			option_value(a->sched_opts[i], nl, i + 1 < a->nsched ? a->sched_opts[i + 1] : NULL,
				     values[n++], 1024);
		}
	return n;
}

bool batch_sets_option(const struct user_script *s, const struct batch_args *a,
		       const struct sched_syntax *syn, const char *const *names)
{
	char value[1][1024];

	return batch_option_values(s, a, syn, names, value, 1) > 0;
}

const char *batch_script_name(const struct batch_args *a)
{
	const char *slash = strrchr(a->script, '/');

	return slash ? slash + 1 : a->script;
}

/* Write word for sh, in single quotes. */
static void sh_quote(FILE *out, const char *word)
{
	fputc('\'', out);
	for (const char *c = word; *c; c++)
		if (*c == '\'')
			fputs("'\\''", out);
		else
			fputc(*c, out);
	fputc('\'', out);
}

/* A here-document delimiter that is no line of text. */
static void pick_delimiter(const char *text, char *delim, size_t len)
{
	unsigned long seed = (unsigned long)time(NULL) ^ (unsigned long)getpid();

	for (;;) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		snprintf(delim, len, "PARASTACK_SCRIPT_%08lx", (seed >> 24) & 0xffffffffUL);

		size_t dl = strlen(delim);
		bool clash = false;

		for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
			clash |= !strncmp(p, delim, dl) && (p[dl] == '\n' || p[dl] == '\r');
		if (!clash)
			return;
	}
}

int batch_write_job(FILE *out, const struct batch_job_spec *spec, const struct user_script *s,
		    const struct batch_args *a)
{
	char delim[64];
	const char *body = strchr(s->text, '\n') + 1;

	pick_delimiter(s->text, delim, sizeof(delim));
	fputs("#!/bin/sh\n", out);
	if (spec->extra_header)
		fputs(spec->extra_header, out);
	fwrite(body, 1, (size_t)(s->text + s->header_end - body), out);
	fprintf(out, "# Added by the parastack batch front end: the script above runs unchanged under\n"
		"# `parastack run --batch`, which watches it for hangs (see parastack(1)).\n");
	fputs("case $0 in\n*/slurm_script) ps_dir=$(dirname \"$0\") ps_tmp= ;;\n"
	      "*) ps_dir=$(mktemp -d \"${TMPDIR:-/tmp}/parastack-job.XXXXXX\") && ps_tmp=$ps_dir ;;\n"
	      "esac\n", out);
	fputs("if [ -d \"$ps_dir\" ] && [ -w \"$ps_dir\" ]; then ps_script=\"$ps_dir\"/", out);
	sh_quote(out, batch_script_name(a));
	fputs("\nelse ps_script=$(mktemp \"${TMPDIR:-/tmp}/parastack-job.XXXXXX\") || exit 1\nfi\n", out);
	fprintf(out, "cat >\"$ps_script\" <<'%s'\n%s%s\n", delim, s->text, delim);
	fputs("chmod 700 \"$ps_script\"\nset --", out);
	for (int i = 0; i < a->nscript_args; i++) {
		fputc(' ', out);
		sh_quote(out, a->script_args[i]);
	}
	fputc('\n', out);
	if (spec->setup)
		fputs(spec->setup, out);
	sh_quote(out, spec->parastack);
	fputs(" run --batch", out);
	for (int i = 0; i < a->nps; i++) {
		fputc(' ', out);
		sh_quote(out, a->ps_opts[i]);
	}
	if (!a->report)
		fprintf(out, " --report=\"%s\"", spec->report_expr);
	fputs(" -- \"$ps_script\" \"$@\"\nps_status=$?\nrm -f \"$ps_script\"\n"
	      "[ -n \"$ps_tmp\" ] && rmdir \"$ps_tmp\"\nexit $ps_status\n", out);
	return ferror(out) ? -1 : 0;
}

int batch_run(const char *cmd, char **argv, const char *hint)
{
	pid_t pid = fork();
	int st;

	if (pid < 0) {
		cmd_error(cmd, "fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		/* The job carries it (sbatch and qsub export the environment): watched by the job
		 * script's `parastack run`, not a second time by the SPANK plugin. */
		setenv(WATCHED_ENV, cmd, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run %s: %s (%s)\n", cmd, argv[0], strerror(errno), hint);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int batch_submit(const char *cmd, const char *program, const char *hint,
		 const struct batch_job_spec *spec, const struct user_script *s,
		 const struct batch_args *a, const char *first_opt)
{
	char dir[] = "/tmp/parastack-batch.XXXXXX", path[PATH_MAX];
	int rc;

	if (!mkdtemp(dir)) {
		cmd_error(cmd, "cannot create a directory in /tmp: %s", strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, batch_script_name(a));

	FILE *f = fopen(path, "w");

	rc = f ? batch_write_job(f, spec, s, a) : -1;
	if (!f || fclose(f) != 0 || rc < 0) {
		cmd_error(cmd, "cannot write the job script %s: %s", path, strerror(errno));
		unlink(path);
		rmdir(dir);
		return 1;
	}

	char **argv = calloc((size_t)a->nsched + 4, sizeof(char *));
	int n = 0;

	argv[n++] = (char *)program;
	if (first_opt)
		argv[n++] = (char *)first_opt;
	for (int i = 0; i < a->nsched; i++)
		argv[n++] = a->sched_opts[i];
	argv[n++] = path; /* the script's arguments are in it */
	argv[n] = NULL;
	rc = batch_run(cmd, argv, hint);
	free(argv);
	unlink(path);
	rmdir(dir);
	return rc;
}

int batch_main(const char *cmd, const struct command_help *usage, const struct sched_syntax *syn, int argc,
	       char **argv, batch_submit_fn submit)
{
	struct batch_args a;
	struct user_script s;
	char parastack[PATH_MAX];
	int rc = batch_split_args(cmd, usage, syn, argc - 1, argv + 1, &a);

	if (rc != 0)
		return rc > 0 ? 0 : EXIT_USAGE;
	if (sibling_program("parastack", parastack, sizeof(parastack)) < 0) {
		cmd_error(cmd, "cannot find parastack next to %s (%s); reinstall parastack", cmd, parastack);
		return EXIT_INPUT;
	}
	if (batch_read_script(cmd, a.script, &s) < 0)
		return EXIT_INPUT;
	rc = submit(&a, &s, parastack);
	batch_free_script(&s);
	return rc;
}
