/* SPDX-License-Identifier: BSD-3-Clause */
/* batch_job — what the batch front ends (parastack-sbatch, parastack-qsub) share: splitting
 * their command line into parastack's options and the scheduler's, reading the user's job
 * script, and writing the job script that runs it unchanged under `parastack run --batch`. */
#ifndef PARASTACK_BATCH_JOB_H
#define PARASTACK_BATCH_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../../base/option_docs.h"

/* How the scheduler's own options take values: the short options that take one, and the long
 * options that take none (every other long option takes one, as --opt=V or --opt V). */
/* An option that makes a job impossible to watch, and why (one line for the user). */
struct sched_refusal {
	const char *option; /* "--wrap" or "-I" */
	const char *why;
};

/* The scheduler's documented options: which take a value. A long option in neither list is
 * not the scheduler's: refused with one line rather than guessed at. */
struct sched_syntax {
	const char *name;               /* "sbatch" or "qsub" */
	const char *short_with_value;   /* e.g. "aAbcdDeiJLMmNnopqStCFwxBG" */
	const char *const *long_flags;  /* no value, or an optional one given as --opt=value */
	const char *const *long_with_value; /* a value, as --opt=value or --opt value */
	const struct sched_refusal *refused; /* ends with { NULL, NULL } */
	const char *directive;          /* "#SBATCH" or "#PBS" */
	bool h_is_option;               /* -h is the scheduler's (qsub: hold), only --help is ours */
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
int batch_split_args(const char *cmd, const struct command_help *usage, const struct sched_syntax *syn, int argc,
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

/* The values given to the option named by any of names (e.g. {"-l", NULL}): those of the
 * script's directive block first, then those of the command line, so the last one counts as
 * the scheduler would. The count copied into values (at most max). */
int batch_option_values(const struct user_script *s, const struct batch_args *a,
			const struct sched_syntax *syn, const char *const *names, char values[][1024],
			int max);

/* How the job script is written (see batch_write_job). */
struct batch_job_spec {
	const char *parastack;     /* absolute path of the parastack program */
	const char *report_expr;   /* shell expression of the default --report */
	const char *extra_header;  /* directive lines (each ending in newline) placed first, or NULL */
	const char *setup;         /* shell lines run before parastack, or NULL */
};

/* Write the job script: "#!/bin/sh", spec->extra_header, the user's directive block verbatim,
 * then a copy of the user's script written at run time into the job's Slurm spool directory
 * (which slurmd removes even when the job is killed) or, elsewhere (Torque feeds the script to
 * the shell), into a fresh directory under $TMPDIR that the script removes when it ends, and run with the user's arguments (embedded, so no scheduler has to pass them) under
 * `PARASTACK run --batch OPTS --report REPORT -- COPY ARGS`. */
int batch_write_job(FILE *out, const struct batch_job_spec *spec, const struct user_script *s,
		    const struct batch_args *a);

/* The user's script's file name, without its directory. */
const char *batch_script_name(const struct batch_args *a);

/* Submit: write the job script (spec) as a file named like the user's script (schedulers name
 * the job and its output files after it) in a fresh directory under /tmp, run
 * `PROGRAM [FIRST_OPT] SCHEDULER-OPTIONS FILE`, remove the file. PROGRAM's exit status. */
int batch_submit(const char *cmd, const char *program, const char *hint,
		 const struct batch_job_spec *spec, const struct user_script *s,
		 const struct batch_args *a, const char *first_opt);

/* Run the scheduler's submit command, argv[0] from PATH; its exit status (127 with a line
 * naming hint when it cannot be started). */
int batch_run(const char *cmd, char **argv, const char *hint);

/* A front end's whole main: split the command line, find parastack beside the program, read
 * the script, and submit it with submit(); the exit status. */
typedef int (*batch_submit_fn)(const struct batch_args *a, const struct user_script *s,
			       const char *parastack);
int batch_main(const char *cmd, const struct command_help *usage, const struct sched_syntax *syn, int argc,
	       char **argv, batch_submit_fn submit);

#endif
