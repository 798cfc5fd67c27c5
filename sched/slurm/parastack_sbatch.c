/* SPDX-License-Identifier: BSD-3-Clause */
/* parastack-sbatch — `parastack-sbatch [parastack options] [sbatch options] SCRIPT [ARGS...]`:
 * submit SCRIPT with sbatch so that it runs unchanged under `parastack run --batch`, which
 * starts one monitor per node of the allocation beside it and, on a hang, writes the report to
 * the job's output and the JSON file and cancels the job. Prints what sbatch prints (the job
 * id) and exits with sbatch's status. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../batch/batch_job.h"
#include "../../base/options.h"
#include "../../base/option_docs.h"

#define CMD "parastack-sbatch"

static const char usage_head[] =
	"usage: parastack-sbatch [parastack options] [sbatch options] SCRIPT [ARGS...]\n"
	"Submit a Slurm batch job that runs SCRIPT unchanged and watches it for hangs: one monitor\n"
	"per node of the allocation; on a hang the report goes to the job's output, the JSON to\n"
	"--report, and the job is cancelled. Prints the job id as sbatch does.\n"
	"\n"
	"parastack options (the rest go to sbatch):\n";
static const struct command_help usage = { usage_head, HELP_SBATCH, NULL };

#define SBATCH_HELP_MAX (64 * 1024) /* bytes of `sbatch --help` read */
#define SBATCH_NEW_MAX 128           /* options the installed sbatch adds to the table below */

/* sbatch (Slurm 22.05), as its man page documents them: short options that take a value; long
 * options that take none (or an optional one, which must be written --opt=value); long options
 * that take one. The floor: what the installed sbatch's --help lists besides is added at start
 * (sbatch_learn_options), so a newer Slurm's option is passed on, not refused. */
static const char *const sbatch_long_flags[] = {
	"contiguous", "exclusive", "get-user-env", "help", "hold", "ignore-pbs", "nice", "no-kill",
	"no-requeue", "overcommit", "oversubscribe", "parsable", "propagate", "quiet", "reboot",
	"requeue", "spread-job", "test-only", "usage", "use-min-nodes", "verbose", "version", "wait",
	NULL,
};
static const char *const sbatch_long_values[] = {
	"account", "acctg-freq", "array", "batch", "bb", "bbf", "begin", "chdir", "cluster-constraint",
	"clusters", "cluster", "comment", "constraint", "container", "core-spec", "cores-per-socket",
	"cpu-freq", "cpus-per-gpu", "cpus-per-task", "deadline", "delay-boot", "dependency",
	"distribution", "error", "exclude", "export", "export-file", "extra-node-info", "gid",
	"gpu-bind", "gpu-freq", "gpus", "gpus-per-node", "gpus-per-socket", "gpus-per-task", "gres",
	"gres-flags", "hint", "input", "job-name", "kill-on-invalid-dep", "licenses", "mail-type",
	"mail-user", "mcs-label", "mem", "mem-bind", "mem-per-cpu", "mem-per-gpu", "mincpus",
	"network", "nodefile", "nodelist", "nodes", "ntasks", "ntasks-per-core", "ntasks-per-gpu",
	"ntasks-per-node", "ntasks-per-socket", "open-mode", "output", "partition", "power", "prefer",
	"priority", "profile", "qos", "reservation", "signal", "sockets-per-node", "switches",
	"thread-spec", "threads-per-core", "time", "time-min", "tmp", "tres-per-task", "uid",
	"wait-all-nodes", "wckey", "wrap", NULL,
};
static const struct sched_refusal sbatch_refused[] = {
	{ "--wrap", "--wrap cannot be watched; put the command in a script and submit that" },
	{ NULL, NULL },
};
static struct sched_syntax sbatch_syntax = {
	.name = "sbatch",
	.short_with_value = "aAbcdDeiJLMmNnopqStCFwxBG",
	.long_flags = sbatch_long_flags,
	.long_with_value = sbatch_long_values,
	.refused = sbatch_refused,
	.directive = "#SBATCH",
};

/* `sbatch --help` of the installed sbatch, its output (NUL-terminated, malloc'd), or NULL when
 * it cannot be run (no sbatch, no Slurm configuration here: it needs one even for --help). */
static char *sbatch_help(void)
{
	int fds[2], st;
	size_t n = 0;
	ssize_t got;
	char *buf = malloc(SBATCH_HELP_MAX + 1);
	pid_t pid;

	if (!buf || pipe(fds) < 0) {
		free(buf);
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "sbatch", "--help", NULL };

		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		close(fds[0]), close(fds[1]);
		alarm(10); /* an sbatch that hangs here ends; the table below is used */
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && n < SBATCH_HELP_MAX && (got = read(fds[0], buf + n, SBATCH_HELP_MAX - n)) > 0)
		n += (size_t)got;
	close(fds[0]);
	if (pid > 0 && n >= SBATCH_HELP_MAX)
		kill(pid, SIGKILL); /* ours: the child just started */
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

static bool listed(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

/* The options the installed sbatch lists that the table lacks (a newer Slurm's), added to it:
 * "  -X, --name=VALUE", "      --name[=VALUE]" (an optional value: written --name=value) and
 * "      --name" lines of its --help. The table stays where sbatch cannot be asked. */
static void sbatch_learn_options(void)
{
	static const char *flags[sizeof(sbatch_long_flags) / sizeof(char *) + SBATCH_NEW_MAX];
	static const char *values[sizeof(sbatch_long_values) / sizeof(char *) + SBATCH_NEW_MAX];
	static char shorts[64], names[SBATCH_NEW_MAX][48];
	size_t nf = 0, nv = 0, nn = 0;
	char *help = sbatch_help(), *line, *save = NULL;

	if (!help)
		return;
	for (const char *const *p = sbatch_long_flags; *p; p++)
		flags[nf++] = *p;
	for (const char *const *p = sbatch_long_values; *p; p++)
		values[nv++] = *p;
	snprintf(shorts, sizeof(shorts), "%s", sbatch_syntax.short_with_value);
	for (line = strtok_r(help, "\n", &save); line && nn < SBATCH_NEW_MAX; line = strtok_r(NULL, "\n", &save)) {
		char letter = 0, *p = line + strspn(line, " ");
		size_t len;

		if (p - line < 2)
			continue; /* a section's title, not an option */
		if (p[0] == '-' && p[1] != '-' && p[1] && p[2] == ',' && p[3] == ' ')
			letter = p[1], p += 4;
		if (strncmp(p, "--", 2))
			continue;
		p += 2;
		len = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-");
		if (len == 0 || len >= sizeof(names[0]))
			continue;
		bool value = p[len] == '=';
		snprintf(names[nn], sizeof(names[0]), "%.*s", (int)len, p);
		if (value && letter && !strchr(shorts, letter) && strlen(shorts) + 1 < sizeof(shorts))
			strncat(shorts, &letter, 1);
		if (listed(flags, names[nn]) || listed(values, names[nn]))
			continue;
		if (value)
			values[nv++] = names[nn++];
		else
			flags[nf++] = names[nn++];
	}
	flags[nf] = values[nv] = NULL;
	sbatch_syntax.long_flags = flags;
	sbatch_syntax.long_with_value = values;
	sbatch_syntax.short_with_value = shorts;
	free(help);
}

static int submit(const struct batch_args *a, const struct user_script *s, const char *parastack)
{
	static const char *const job_name[] = { "-J", "--job-name", NULL };
	static const char *const wrap[] = { "--wrap", NULL };
	char name_opt[PATH_MAX + 16];
	const struct batch_job_spec spec = {
		.parastack = parastack,
		.report_expr = "${SLURM_SUBMIT_DIR:-$PWD}/parastack-${SLURM_JOB_ID}.json",
	};

	if (batch_sets_option(s, a, &sbatch_syntax, wrap)) {
		cmd_error(CMD, "--wrap cannot be watched; put the command in a script and submit that");
		return EXIT_USAGE;
	}
	/* The job is named after the user's script, unless the user named it. */
	snprintf(name_opt, sizeof(name_opt), "--job-name=%s", batch_script_name(a));
	return batch_submit(CMD, "sbatch", "is Slurm's client installed?", &spec, s, a,
			    batch_sets_option(s, a, &sbatch_syntax, job_name) ? NULL : name_opt);
}

int main(int argc, char **argv)
{
	sbatch_learn_options();
	return batch_main(CMD, &usage, &sbatch_syntax, argc, argv, submit);
}
