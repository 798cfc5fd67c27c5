/* SPDX-License-Identifier: BSD-3-Clause */
/* parastack-qsub — `parastack-qsub [parastack options] [qsub options] SCRIPT [ARGS...]`: submit
 * SCRIPT with qsub so that it runs unchanged under `parastack run --batch`, which starts one
 * monitor per host of $PBS_NODEFILE beside it and, on a hang, writes the report to the job's
 * output and the JSON file and ends the job with `qdel $PBS_JOBID`. Prints what qsub prints
 * (the job id) and exits with qsub's status.
 *
 * The generated job script carries the user's #PBS block first, so qsub honours it, and is
 * named after the user's script, so the job's name and its NAME.oID/NAME.eID files are those a
 * plain `qsub SCRIPT` would give. With Slurm's qsub wrapper (slurm-wlm-torque), whose
 * `-l nodes=N:ppn=P` asks for N*P tasks anywhere on N nodes, ppn is made to mean slots per
 * node, as in Torque. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../batch/batch_job.h"
#include "../../base/options.h"
#include "../../base/option_docs.h"
#include "../lookup/lookup_torque.h"

#define CMD "parastack-qsub"

static const char usage_head[] =
	"usage: parastack-qsub [parastack options] [qsub options] SCRIPT [ARGS...]\n"
	"Submit a Torque/PBS batch job that runs SCRIPT unchanged and watches it for hangs: one\n"
	"monitor per host of $PBS_NODEFILE; on a hang the report goes to the job's output, the JSON\n"
	"to --report, and the job is ended with qdel. Prints the job id as qsub does.\n"
	"\n"
	"parastack options (the rest go to qsub; -h is qsub's hold):\n";
static const struct command_help usage = { usage_head, HELP_QSUB, NULL };

/* qsub (Torque 6, and Slurm's wrapper): short options that take a value; its flags are
 * f h I n V x X z. */
static const char *const qsub_long_flags[] = { "help", "man", "sbatchline", "version", NULL };
static const struct sched_refusal qsub_refused[] = {
	{ "-I", "-I (an interactive job) cannot be watched from here; inside it, run "
		"'parastack run -- mpirun ...'" },
	{ NULL, NULL },
};
static const struct sched_syntax qsub_syntax = {
	.name = "qsub",
	.short_with_value = "aAbcCdDeFjJkKlLmMNopPqrStTuvWw",
	.long_flags = qsub_long_flags,
	.long_with_value = NULL,
	.refused = qsub_refused,
	.directive = "#PBS",
	.h_is_option = true,
};

/* Is the qsub in PATH Slurm's Perl wrapper (a script with sbatch beside it) rather than
 * Torque's or PBS's own program? */
static bool qsub_is_slurm_wrapper(void)
{
	const char *path = getenv("PATH");
	char file[PATH_MAX], head[2] = "";

	for (const char *d = path ? path : "/usr/bin:/bin"; *d;) {
		size_t n = strcspn(d, ":");

		snprintf(file, sizeof(file), "%.*s/qsub", (int)n, n ? d : ".");
		if (access(file, X_OK) == 0) {
			FILE *f = fopen(file, "r");

			if (f) {
				if (fread(head, 1, 2, f) != 2)
					head[0] = '\0';
				fclose(f);
			}
			snprintf(file, sizeof(file), "%.*s/sbatch", (int)n, n ? d : ".");
			return !strncmp(head, "#!", 2) && access(file, X_OK) == 0;
		}
		d += n + (d[n] == ':');
	}
	return false;
}

/* The #SBATCH line that makes Slurm's wrapper give ppn slots on each node (NULL when none is
 * needed), or "" after a one-line error for a malformed nodes request. */
static const char *ppn_directive(const struct user_script *s, const struct batch_args *a,
				 bool slurm_wrapper)
{
	static const char *const l_opt[] = { "-l", NULL };
	static char values[64][1024], line[64];
	int n = batch_option_values(s, a, &qsub_syntax, l_opt, values, 64), nodes = 0, ppn = 0, got = 0;

	for (int i = 0; i < n; i++) {
		int r = lookup_torque_parse_nodes(values[i], &nodes, &ppn);

		if (r < 0) {
			cmd_error(CMD, "-l %s: the nodes request is malformed; write nodes=N:ppn=P "
				  "(e.g. -l nodes=4:ppn=2)", values[i]);
			return "";
		}
		got |= r;
	}
	if (!got || !slurm_wrapper)
		return NULL;
	snprintf(line, sizeof(line), "#SBATCH --ntasks-per-node=%d\n", ppn);
	return line;
}

/* For Slurm's wrapper: -v without -V becomes --export=NONE, which srun inside the job inherits
 * through SLURM_EXPORT_ENV, so its tasks (mpirun's daemons) would start with no environment at
 * all. A Torque job's tasks get the job's environment; so do these. */
#define EXPORT_ALL "case ${SLURM_EXPORT_ENV:-} in [Nn][Oo][Nn][Ee]*) export SLURM_EXPORT_ENV=ALL ;; esac\n"
/* Torque writes a job's stderr to SCRIPT.eJOBID and its stdout to SCRIPT.oJOBID, the job output
 * users read: the report goes there. */
#define REPORT_STDOUT "export PARASTACK_REPORT_STREAM=stdout\n"
static const char export_all_report_stdout[] = EXPORT_ALL REPORT_STDOUT;
static const char report_stdout[] = REPORT_STDOUT;

static int submit(const struct batch_args *a, const struct user_script *s, const char *parastack)
{
	static const char *const interactive[] = { "-I", NULL }, *const v_opt[] = { "-v", NULL };
	static const char *const big_v[] = { "-V", NULL };
	bool wrapper = qsub_is_slurm_wrapper();
	const char *extra = ppn_directive(s, a, wrapper);

	if (extra && !*extra)
		return EXIT_USAGE;
	if (batch_sets_option(s, a, &qsub_syntax, interactive)) {
		cmd_error(CMD, "-I (an interactive job) cannot be watched from here; inside it, run "
			  "'parastack run -- mpirun ...'");
		return EXIT_USAGE;
	}
	if (wrapper && batch_sets_option(s, a, &qsub_syntax, v_opt) &&
	    !batch_sets_option(s, a, &qsub_syntax, big_v))
		fprintf(stderr, CMD ": note: Slurm's qsub turns -v without -V into --export=NONE: the job "
			"starts from your login environment plus the listed variables, not from this "
			"shell's (add -V for that)\n");

	const struct batch_job_spec spec = {
		.parastack = parastack,
		.report_expr = "${PBS_O_WORKDIR:-${SLURM_SUBMIT_DIR:-$PWD}}/parastack-${PBS_JOBID:-$SLURM_JOB_ID}.json",
		.extra_header = extra,
		.setup = wrapper ? export_all_report_stdout : report_stdout,
	};

	return batch_submit(CMD, "qsub", "is a Torque/PBS client, or Slurm's slurm-wlm-torque, installed?",
			    &spec, s, a, NULL);
}

int main(int argc, char **argv)
{
	return batch_main(CMD, &usage, &qsub_syntax, argc, argv, submit);
}
