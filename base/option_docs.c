/* SPDX-License-Identifier: BSD-3-Clause */
#include "option_docs.h"

#include <stdbool.h>
#include <string.h>

#include "../stats/confirm.h"
#include "options.h"

/* One option as one command's --help shows it. An option whose help differs between commands
 * (what "end the job" means to sbatch, to qsub, to attach) has one entry per wording, each
 * with its commands; every other option is one entry. A help that states a default has one
 * "%g" for `deflt`, the constant the code uses. */
struct option_doc {
	const char *names; /* "--alpha", "-h, --help" */
	const char *arg;   /* "A", or NULL */
	unsigned commands; /* enum help_command bits */
	const char *help;
	double deflt;
};

#define WATCHERS (HELP_RUN | HELP_ATTACH | HELP_MONITOR | HELP_SBATCH | HELP_QSUB)
#define BATCH (HELP_SBATCH | HELP_QSUB)
#define LIVE (HELP_RUN | HELP_ATTACH | HELP_MONITOR)

/* In the order every --help lists them: what to watch, the model, the watch, each command's own. */
static const struct option_doc docs[] = {
	{ "-o, --output", "FILE", HELP_PLOT,
	  "the picture to write, FILE.svg or FILE.png (default: TRACE's name without .trace, plus "
	  ".svg, in the current directory)", 0 },
	{ "-o, --output", "FILE", HELP_VIEW,
	  "where the page goes (default: REPORT with .html for .json; '-': stdout)", 0 },
	{ "--dot", NULL, HELP_VIEW,
	  "the stack tree as a Graphviz digraph instead, to stdout unless -o (parastack view --dot "
	  "r.json | dot -Tsvg > tree.svg)", 0 },
	{ "--json", NULL, HELP_STACK, "print a JSON array instead of text", 0 },
	{ "--tree", NULL, HELP_STACK,
	  "every process's call path merged into one tree with rank ranges (as STAT draws it) "
	  "instead of each stack", 0 },
	{ "--pids", "LIST", HELP_STACK,
	  "the processes of LIST (4242,4243: attach's form), on this machine", 0 },
	{ "--launcher", "PID", HELP_STACK,
	  "the MPI ranks among the descendants of PID (mpirun, srun, a script)", 0 },
	{ "--pids-file", "FILE", HELP_STACK,
	  "the ranks in FILE (lines 'host pid [rank]'); when it names other hosts, a "
	  "parastack-monitor on each looks at its ranks (through the allocation of --slurm-job "
	  "JOBID when given, else mpirun on those hosts)", 0 },
	{ "--slurm-job", "JOBID", HELP_STACK,
	  "every MPI rank of a running Slurm job, on all of its nodes (one parastack-monitor per "
	  "node, started in the job's allocation)", 0 },
	{ "--title", "TEXT", HELP_PLOT, "the picture's title (default: the trace's file name)", 0 },
	{ "--data", NULL, HELP_PLOT,
	  "print the model's view as a table (t_s S threshold interval_ms verdict) instead of drawing", 0 },
	{ "--pids", "LIST", HELP_ATTACH,
	  "the job's ranks on this machine, PIDs in rank order: 4242,4243,... (a rank in a "
	  "process's environment wins over the order)", 0 },
	{ "--launcher-pid", "PID", HELP_MONITOR,
	  "the job's launcher: its descendants that carry an MPI rank are watched", 0 },
	{ "--launcher-host", "H", HELP_MONITOR,
	  "the node the launcher runs on (default: every monitor's own node)", 0 },
	{ "--slurm-job", "JOBID[.STEP]", HELP_MONITOR,
	  "watch the ranks in this Slurm job's steps (or in the one step) on every monitor's node", 0 },
	{ "--pbs-job", "JOBID", HELP_MONITOR,
	  "watch the processes of this Torque job (PBS_JOBID in their environment) on every "
	  "monitor's node", 0 },
	{ "--pids-file", "FILE", HELP_ATTACH,
	  "the job's ranks on one or more hosts: lines 'host pid [rank]'; a monitor is started on "
	  "each host (with --slurm-job JOBID, or when a rank here carries SLURM_JOB_ID, through that "
	  "job's allocation)", 0 },
	{ "--pids-file", "FILE", HELP_MONITOR,
	  "watch exactly these ranks: lines 'host pid [rank]', each monitor those of its host, "
	  "checked before any is touched; on a hang with --on-hang=kill, each monitor ends its "
	  "listed processes", 0 },
	{ "--slurm-job", "JOBID", HELP_ATTACH,
	  "a running Slurm job: one monitor per node of its allocation", 0 },
	{ "--slurm-job", "JOBID.STEP", HELP_ATTACH,
	  "only that step's ranks (an srun step); a hang ends the step alone", 0 },

	{ "--alpha", "A", WATCHERS | HELP_REPLAY, "significance level of a hang verdict (default %g)",
	  DETECTOR_DEFAULT_ALPHA },
	{ "--alpha", "A", HELP_PLOT, "significance level (default: the trace's, else %g)",
	  DETECTOR_DEFAULT_ALPHA },
	{ "--interval", "MS", WATCHERS | HELP_REPLAY, "initial mean sampling interval (default %g)",
	  DETECTOR_DEFAULT_INTERVAL_MS },
	{ "--interval", "MS", HELP_PLOT,
	  "initial mean sampling interval (default: the trace's, else %g)",
	  DETECTOR_DEFAULT_INTERVAL_MS },
	{ "--max-interval", "MS", WATCHERS | HELP_REPLAY, "cap on the sampling interval (default %g)",
	  DETECTOR_DEFAULT_MAX_INTERVAL_MS },
	{ "--max-interval", "MS", HELP_PLOT,
	  "cap on the sampling interval (default: the trace's, else %g)",
	  DETECTOR_DEFAULT_MAX_INTERVAL_MS },
	{ "--set-size", "C", WATCHERS, "ranks sampled at a time (default %g)", DETECTOR_DEFAULT_SET_SIZE },
	{ "--set-size", "C", HELP_REPLAY | HELP_PLOT, "expected set size; must match the trace's C", 0 },
	{ "--seed", "N", WATCHERS, "seed of every random choice (default %g)", DETECTOR_DEFAULT_SEED },
	{ "--seed", "N", HELP_REPLAY, "seed of the sampling-step generator (default %g)",
	  DETECTOR_DEFAULT_SEED },
	{ "--seed", "N", HELP_PLOT,
	  "seed of the sampling steps for a trace not recorded by parastack (a dense S(t), sampled "
	  "as replay does; default %g)",
	  DETECTOR_DEFAULT_SEED },

	{ "--on-hang=kill|report", NULL, HELP_RUN,
	  "end the job after the report (default), or report and keep watching", 0 },
	{ "--on-hang=report|kill", NULL, HELP_ATTACH,
	  "report and keep watching (default), or end the job after the report: the listed "
	  "processes exactly (SIGTERM, then SIGKILL), or the Slurm job", 0 },
	{ "--on-hang=kill|report", NULL, HELP_MONITOR,
	  "stop after the report (exit status 3), or keep watching (default kill)", 0 },
	{ "--on-hang=kill|report", NULL, HELP_SBATCH,
	  "cancel the job after the report (default), or report and keep watching", 0 },
	{ "--on-hang=kill|report", NULL, HELP_QSUB,
	  "qdel the job after the report (default), or report and keep watching", 0 },
	{ "--confirm", "SECONDS", HELP_RUN | HELP_ATTACH | BATCH,
	  "after a suspicion, act only if nothing moves for this long (default %g, more after long "
	  "healthy stalls; 0: act on the model at once)",
	  CONFIRM_DEFAULT_S },
	{ "--confirm", "SECONDS", HELP_MONITOR,
	  "confirmation window after a suspicion (default %g; 0: act at once)", CONFIRM_DEFAULT_S },
	{ "--confirm", "SECONDS", HELP_REPLAY,
	  "the confirmation window of the decision's replay (default: the trace's, else %g)",
	  CONFIRM_DEFAULT_S },
	{ "--quiet", NULL, LIVE,
	  "only suspicions, hangs and the report: no what-is-watched or summary lines", 0 },
	{ "--quiet", NULL, BATCH, "only suspicions, hangs and the report in the job's output", 0 },
	{ "--progress", "SECONDS", HELP_RUN | HELP_ATTACH,
	  "a status line this often (also on SIGUSR1, at any time)", 0 },
	{ "--progress", "SECONDS", HELP_MONITOR, "a status line this often", 0 },
	{ "--progress", "SECONDS", BATCH, "a status line in the job's output this often", 0 },
	{ "--fanout", "N", WATCHERS,
	  "children per monitor in the monitors' tree at report time (default %g; 2 makes the "
	  "deepest tree)",
	  WATCH_FANOUT_DEFAULT },
	{ "--report-ranks", "WHICH", WATCHERS,
	  "all: every rank in full in the JSON report; summary: the faulty ranks and one of each "
	  "stack group; auto (default): all up to %g ranks, summary above",
	  REPORT_RANKS_FULL_MAX },
	{ "--no-record", NULL, HELP_RUN,
	  "do not preload the recording layer (libparastack-mpi.so) into the ranks; a communication "
	  "hang is then diagnosed from stacks alone", 0 },
	{ "--no-record", NULL, HELP_ATTACH,
	  "leave the recording layer's records unread (by default the report uses them when the "
	  "job's ranks have libparastack-mpi.so loaded)", 0 },
	{ "--no-record", NULL, HELP_MONITOR, "leave the recording layer's records unread in the report", 0 },
	{ "--no-record", NULL, BATCH, "do not preload the recording layer into the ranks", 0 },
	{ "--no-proof", NULL, WATCHERS,
	  "a hang the records prove (a deadlock cycle, a collective mismatch) waits the "
	  "confirmation window too, instead of ending at once", 0 },
	{ "--core-dir", "DIR", HELP_RUN,
	  "before ending a hung job, write core files (gdb's gcore) of the faulty ranks and of one "
	  "rank per stack group in DIR", 0 },
	{ "--core-dir", "DIR", HELP_ATTACH | HELP_MONITOR,
	  "before acting on a hang, write core files (gdb's gcore) of the faulty ranks and of one "
	  "rank per stack group in DIR", 0 },
	{ "--core-dir", "DIR", HELP_SBATCH, "core files of the faulty ranks before the job is cancelled", 0 },
	{ "--core-dir", "DIR", HELP_QSUB, "core files of the faulty ranks before the job is deleted", 0 },
	{ "--report", "FILE", HELP_RUN | HELP_MONITOR, "write the JSON report to FILE", 0 },
	{ "--report", "FILE", HELP_ATTACH, "write the JSON report to FILE (on the first node of the job)", 0 },
	{ "--report", "FILE", HELP_SBATCH,
	  "the JSON report (default: parastack-JOBID.json in the submit directory)", 0 },
	{ "--report", "FILE", HELP_QSUB, "the JSON report (default: parastack-JOBID.json in $PBS_O_WORKDIR)", 0 },
	{ "--report-dir", "DIR", WATCHERS,
	  "the site's copy of a hang report: DIR/parastack-JOBID.json, 0640 (a root monitor writes "
	  "it as root only where root alone can change DIR's path, else as the job's owner)", 0 },
	{ "--metrics-dir", "DIR", WATCHERS,
	  "counters for node_exporter's textfile collector: DIR/parastack.prom", 0 },
	{ "--trace", "FILE", WATCHERS, "record every sample (t_ms S C) for parastack replay", 0 },
	{ "--memory", "DIR", LIVE,
	  "start the model from the last healthy run of the same program (build-id, rank count, "
	  "command line) kept in DIR, and keep this run's there when it ends healthy: early faults "
	  "found as fast as late ones", 0 },
	{ "--memory", "DIR", BATCH,
	  "the model starts from the last healthy run of the same program kept in DIR, and keeps "
	  "this one's there", 0 },
	{ "--no-memory", NULL, WATCHERS, "neither read nor keep a remembered model (wins over --memory)", 0 },
	{ "--stack", "FORMAT", HELP_MONITOR,
	  "look once instead of watching: monitor 0 prints every found rank's stacks (text, json, "
	  "tree or tree-json) and all exit (`parastack stack`)", 0 },
	{ "--status-file", "FILE", HELP_MONITOR,
	  "write the outcome there (\"hang\" or \"none\"; \"-\": a line on standard output) and exit "
	  "0, for a launcher that reads it (an MPI launcher reports non-zero exits loudly)", 0 },
	{ "--grace", "SECONDS", HELP_RUN, "wait this long after SIGTERM before SIGKILL (default %g)",
	  RUN_GRACE_DEFAULT_S },
	{ "--grace", "SECONDS", BATCH, "how long the job's launcher gets after SIGTERM (default %g)",
	  RUN_GRACE_DEFAULT_S },
	{ "--batch", NULL, HELP_RUN,
	  "end a hung job through its scheduler: cancel the Slurm job, or qdel the Torque job (the "
	  "batch front ends' job scripts use this); the default ends only the launcher", 0 },
	{ "--local", NULL, HELP_RUN,
	  "watch this node only, even inside a Torque job or Slurm allocation", 0 },
	{ "--json", NULL, HELP_REPLAY, "print one JSON object instead of a summary", 0 },
	{ "-h, --help", NULL, ~0u & ~HELP_QSUB, "show this help", 0 },
	/* qsub's -h is its hold, passed to qsub. */
	{ "--help", NULL, HELP_QSUB, "show this help", 0 },
	{ "--version", NULL, ~0u, "print the version and the libraries it was built with", 0 },
};

enum { HELP_COLUMN = 24, HELP_WIDTH = 94 };

/* text from column `col` on, wrapped at HELP_WIDTH; continuation lines at HELP_COLUMN. */
static void print_wrapped(FILE *out, const char *text, int col)
{
	const char *p = text;

	while (*p) {
		int room = HELP_WIDTH - col;
		size_t len = strlen(p), cut = len;

		if ((int)len > room) {
			cut = (size_t)room;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0) /* one word longer than the line: it goes whole */
				cut = strcspn(p, " ");
		}
		fprintf(out, "%.*s\n", (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(out, "%*s", HELP_COLUMN, "");
		col = HELP_COLUMN;
	}
}

static void print_doc(FILE *out, const struct option_doc *d)
{
	char tag[64], help[512];
	int n = snprintf(tag, sizeof tag, "  %s%s%s", d->names, d->arg ? " " : "", d->arg ? d->arg : "");

	if (strchr(d->help, '%'))
		snprintf(help, sizeof help, d->help, d->deflt);
	else
		snprintf(help, sizeof help, "%s", d->help);
	if (n <= HELP_COLUMN - 2)
		fprintf(out, "%-*s", HELP_COLUMN, tag);
	else
		fprintf(out, "%s  ", tag);
	print_wrapped(out, help, n <= HELP_COLUMN - 2 ? HELP_COLUMN : n + 2);
}

void option_docs_print(FILE *out, enum help_command command)
{
	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
		if (docs[i].commands & (unsigned)command)
			print_doc(out, &docs[i]);
}

void command_help_print(FILE *out, const struct command_help *help)
{
	fputs(help->head, out);
	option_docs_print(out, help->command);
	if (help->tail)
		fputs(help->tail, out);
}
