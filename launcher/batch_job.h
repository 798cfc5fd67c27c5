/* batch_job — what the batch front ends (parastack-sbatch, parastack-qsub) share: splitting
 * their command line into parastack's options and the scheduler's, reading the user's job
 * script, and writing the job script that runs it unchanged under `parastack run --batch`. */
#ifndef PARASTACK_BATCH_JOB_H
#define PARASTACK_BATCH_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* How the scheduler's own options take values: the short options that take one, and the long
 * options that take none (every other long option takes one, as --opt=V or --opt V). */
struct sched_syntax {
	const char *short_with_value;   /* e.g. "aAbcdDeiJLMmNnopqStCFwxBG" */
	const char *const *long_flags;  /* NULL-terminated */
	const char *directive;          /* "#SBATCH" or "#PBS" */
};

struct batch_args {
	char **ps_opts;   /* parastack run options, validated, each as one "--name=value" word */
	int nps;
	char **sched_opts; /* the scheduler's options, in order, as given */
	int nsched;
	const char *script; /* the user's job script */
	char **script_args;
	int nscript_args;
	const char *report; /* --report as an absolute path, or NULL for the default */
};

/* Split argv (after the program name). One-line error and -1 on a bad parastack option, a
 * missing script, or --help (returns 1 after printing usage). */
int batch_split_args(const char *cmd, const char *usage, const struct sched_syntax *syn, int argc,
		     char **argv, struct batch_args *out);

struct user_script {
	char *text;        /* the whole file, ending in a newline */
	size_t header_end; /* offset after the comment/directive block that follows "#!" */
};

/* Read and check the user's script (readable, starts with "#!"). 0, or -1 with a one-line error. */
int batch_read_script(const char *cmd, const char *path, struct user_script *s);
void batch_free_script(struct user_script *s);

/* Does the script's directive block (or the scheduler options) set an option named by any of
 * the words in names (e.g. {"-J", "--job-name", NULL})? */
bool batch_sets_option(const struct user_script *s, const struct batch_args *a,
		       const struct sched_syntax *syn, const char *const *names);

/* Write the job script: "#!/bin/sh", the user's directive block verbatim, then a copy of the
 * user's script written at run time into copy_dir_expr (a shell expression for a directory
 * the scheduler removes when the job ends, falling back to $TMPDIR) and run under
 * `PARASTACK run --batch OPTS --report REPORT_EXPR -- COPY "$@"`. report_expr is a shell
 * expression (e.g. "$SLURM_SUBMIT_DIR/parastack-$SLURM_JOB_ID.json") used when --report was
 * not given. */
int batch_write_job(FILE *out, const char *parastack, const struct user_script *s,
		    const struct batch_args *a, const char *script_name, const char *copy_dir_expr,
		    const char *report_expr);

#endif
