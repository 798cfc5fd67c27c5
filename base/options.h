/* SPDX-License-Identifier: BSD-3-Clause */
/* options — parsing and validating the options every parastack command shares (--alpha,
 * --interval, --set-size, --seed, ...), with one-line errors that say what was wrong. */
#ifndef PARASTACK_OPTIONS_H
#define PARASTACK_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../stats/detector.h"

/* Exit statuses shared by the commands. */
#define EXIT_USAGE 2 /* bad option or argument */
#define EXIT_INPUT 1 /* unreadable or malformed input */

/* getopt_long entries of the model options (val 0), for common_option_apply(). */
#define MODEL_LONGOPTS                                                                     \
	{ "alpha", required_argument, NULL, 0 }, { "interval", required_argument, NULL, 0 }, \
	{ "max-interval", required_argument, NULL, 0 },                                    \
	{ "set-size", required_argument, NULL, 0 }, { "seed", required_argument, NULL, 0 }

struct common_options {
	struct detector_config model;
	bool set_size_given;
	bool json;
};

/* Parse a number for option `name`; on error print "parastack CMD: --name: ..." and return -1. */
int option_double(const char *cmd, const char *name, const char *arg, double min_excl,
		  double max_incl, double *out);
int option_int(const char *cmd, const char *name, const char *arg, long min, long max, int *out);
int option_u64(const char *cmd, const char *name, const char *arg, uint64_t *out);

/* path made absolute against the current directory (malloc'd; NULL when out of memory). */
char *option_absolute_path(const char *path);

/* --on-hang=kill|report; *kill set. */
int option_on_hang(const char *cmd, const char *arg, bool *kill);

/* A file the command will write: its directory must exist and be writable. */
int option_output_path(const char *cmd, const char *opt, const char *path);


void common_options_default(struct common_options *o);
/* Apply one of the model options (--alpha, --interval, --max-interval, --set-size, --seed) by
 * its long name. Returns 1 if `name` is not a model option, 0 on success, -1 on a bad value. */
int common_option_apply(const char *cmd, struct common_options *o, const char *name,
			const char *arg);
/* Cross-option checks after parsing (e.g. --interval not above --max-interval). */
int common_options_check(const char *cmd, const struct common_options *o);
/* A trace fixes the set size: --set-size, when given, must be the trace's C. 0, or -1 (said). */
int common_options_match_trace(const char *cmd, const struct common_options *o, const char *path,
			       int c);
/* getopt_long returned '?' or ':': name the word the user typed, in one line: a known option
 * that lacks its value, or an unknown one with the nearest of longopts as a suggestion. */
void option_unknown(const char *cmd, char **argv, const struct option *longopts);

/* Is "--version" among the words before "--" (or before the first non-option word when
 * stop_at_word)? */
bool wants_version(int argc, char **argv, bool stop_at_word);

/* Up to this many ranks a job's report holds every rank in full unless asked otherwise
 * (--report-ranks=auto). */
#define REPORT_RANKS_FULL_MAX 1024
/* --fanout: children per monitor in the monitors' tree (monitor/job/tree.c). */
#define WATCH_FANOUT_DEFAULT 32
#define WATCH_FANOUT_MIN 2
#define WATCH_FANOUT_MAX 1024
/* run's --grace (and the batch front ends'): seconds between SIGTERM and SIGKILL. */
#define RUN_GRACE_DEFAULT_S 10

/* --report-ranks: how much of each rank the JSON report holds. */
enum report_ranks {
	REPORT_RANKS_AUTO,    /* every rank in full up to REPORT_RANKS_FULL_MAX, a summary above */
	REPORT_RANKS_ALL,     /* every rank in full */
	REPORT_RANKS_SUMMARY, /* the faulty ranks and one of each stack group in full */
};

/* What the commands that start monitors (run, attach) take besides the model, and what the
 * monitor takes from them: one set of options, parsed by one function on both sides. */
struct watch_options {
	struct common_options opt;
	bool kill_on_hang;
	const char *report, *trace; /* absolute paths, or NULL */
	bool confirm_given;
	double confirm_s;           /* --confirm: the confirmation window (monitor's default if not given) */
	bool no_record;             /* --no-record: no recording layer (run: not preloaded) */
	bool no_proof;              /* --no-proof: a hang the records prove waits the window too */
	const char *core_dir;       /* --core-dir: absolute path, or NULL */
	const char *report_dir;     /* --report-dir: the site's copy of every report (absolute), or NULL */
	const char *metrics_dir;    /* --metrics-dir: node_exporter's textfile directory (absolute), or NULL */
	bool quiet;                 /* --quiet */
	double progress_s;          /* --progress SECONDS (0: none) */
	int fanout;                 /* --fanout N: children per monitor in the monitors' tree (0: default) */
	enum report_ranks report_ranks; /* --report-ranks all|summary|auto */
	const char *memory_dir;     /* --memory DIR: where healthy runs leave their model (absolute), or NULL */
	bool no_memory;             /* --no-memory: neither read nor keep one (wins over --memory) */
	/* The monitor: the paths were checked and made absolute by the command that started it
	 * (they need not exist on every monitor's node), so they are taken as given. */
	bool paths_as_given;
};

/* getopt_long values of the watch options: above every character, so that no command's own
 * one-letter values can take one of them. */
enum watch_option {
	WOPT_ON_HANG = 256,
	WOPT_REPORT,
	WOPT_TRACE,
	WOPT_CONFIRM,
	WOPT_NO_RECORD,
	WOPT_CORE_DIR,
	WOPT_QUIET,
	WOPT_PROGRESS,
	WOPT_FANOUT,
	WOPT_REPORT_RANKS,
	WOPT_REPORT_DIR,
	WOPT_METRICS_DIR,
	WOPT_NO_PROOF,
	WOPT_MEMORY,
	WOPT_NO_MEMORY,
};

/* getopt_long entries of the model options and the watch options: the one table of both, for
 * run, attach and parastack-monitor. */
#define WATCH_LONGOPTS                                                                          \
	MODEL_LONGOPTS, { "on-hang", required_argument, NULL, WOPT_ON_HANG },                   \
	{ "report", required_argument, NULL, WOPT_REPORT },                                      \
	{ "trace", required_argument, NULL, WOPT_TRACE },                                        \
	{ "confirm", required_argument, NULL, WOPT_CONFIRM },                                    \
	{ "no-record", no_argument, NULL, WOPT_NO_RECORD },                                      \
	{ "no-proof", no_argument, NULL, WOPT_NO_PROOF },                                        \
	{ "core-dir", required_argument, NULL, WOPT_CORE_DIR },                                  \
	{ "quiet", no_argument, NULL, WOPT_QUIET },                                              \
	{ "progress", required_argument, NULL, WOPT_PROGRESS },                                  \
	{ "fanout", required_argument, NULL, WOPT_FANOUT },                                      \
	{ "report-ranks", required_argument, NULL, WOPT_REPORT_RANKS },                          \
	{ "report-dir", required_argument, NULL, WOPT_REPORT_DIR },                              \
	{ "metrics-dir", required_argument, NULL, WOPT_METRICS_DIR },                            \
	{ "memory", required_argument, NULL, WOPT_MEMORY },                                      \
	{ "no-memory", no_argument, NULL, WOPT_NO_MEMORY }

/* --core-dir DIR: an existing directory this user may write in. 0, or -1 (one line printed). */
int option_core_dir(const char *cmd, const char *dir);
/* The same for --OPT DIR (--memory). */
int option_writable_dir(const char *cmd, const char *opt, const char *dir);
/* --report-dir / --metrics-dir DIR: an existing directory (who may write there is the
 * monitor's to judge: a root monitor writes as root only where root alone can). */
int option_site_dir(const char *cmd, const char *opt, const char *dir);

/* The environment variable a watched job's processes carry (parastack run's launcher, the
 * monitors' own step, parastack-sbatch's jobs): the SPANK plugin starts no second watch there. */
#define WATCHED_ENV "PARASTACK_WATCHED"

/* --progress SECONDS: from 1 s to a day. */
int option_progress(const char *cmd, const char *arg, double *seconds);

/* --confirm SECONDS: 0 (act at once) up to a day. */
int option_confirm(const char *cmd, const char *arg, double *seconds);

/* Apply getopt_long's result c (name: the long option's name, for c == 0). 1 when c is none of
 * WATCH_LONGOPTS, 0 when applied, -1 on a bad value (one line printed). */
int watch_option_apply(const char *cmd, struct watch_options *w, int c, const char *name,
		       const char *arg);

/* Free the paths watch_option_apply made absolute (not when paths_as_given: those are argv's). */
void watch_options_release(struct watch_options *w);

/* parastack-monitor's command-line words for a watch: the model's and the watch's options. */
#define WATCH_WORDS_MAX 32
struct watch_words {
	char *word[WATCH_WORDS_MAX];
	int n;
	char numbers[8][64]; /* the words that carry a number */
	int nnumbers;
};
void watch_options_words(const struct watch_options *w, struct watch_words *out);

/* In the child that becomes the monitors' mpirun: what Open MPI needs from the environment
 * (running as root; inside a Slurm allocation, a step that overlaps the job's and carries
 * this environment even when the job was submitted with --export=NONE; session directories
 * of their own, apart from the job's mpirun's). */
void monitor_launch_env(bool in_slurm);

/* Print "parastack CMD: message" to stderr. */
void cmd_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
