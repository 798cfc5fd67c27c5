/* SPDX-License-Identifier: BSD-3-Clause */
/* parastack-monitor — the per-node monitor, an MPI program with one rank per node (design.md
 * §2). This file is its life: the options, the start (MPI, the leader, the trace), the rounds
 * (watch.c: one MPI run of the job each), the one-look --stack mode, and the end (the summary,
 * the "none" report, the outcome for the launcher, a listed job's processes ended). The steps a
 * sample goes through are in monitor.h's map. */
#include <fcntl.h>
#include <limits.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "../../sched/lookup/lookup_slurm.h"
#include "../../sched/lookup/lookup_torque.h"
#include "../../base/exitcodes.h"
#include "../../base/install_paths.h"
#include "jobstack.h"
#include "outfile.h"
#include "source.h"
#include "../hang/report.h"
#include "../../base/signals.h"
#include "../job/job.h"
#include "output.h"
#include "site.h"
#include "stragglers.h"
#include "watch.h"
#include "../../base/option_docs.h"

static volatile int stop_requested;

#define MONITOR_NICE -5 /* where permitted: see monitor_raise_priority */

static void on_signal(int sig)
{
	stop_requested = sig;
}

static const char monitor_usage_head[] =
	"usage: parastack-monitor (--launcher-pid PID | --slurm-job JOBID | --pbs-job JOBID |\n"
	"                          --pids-file FILE) [options]\n"
	"The per-node monitor that `parastack run` starts beside a job (one MPI rank per node).\n"
	"\n";
static const struct command_help monitor_usage = { monitor_usage_head, HELP_MONITOR, NULL };

static int parse_options(struct monitor *m, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "launcher-pid", required_argument, NULL, 'L' },
		{ "launcher-host", required_argument, NULL, 'N' },
		{ "slurm-job", required_argument, NULL, 'J' },
		{ "pbs-job", required_argument, NULL, 'P' },
		{ "pids-file", required_argument, NULL, 'F' },
		WATCH_LONGOPTS,
		{ "status-file", required_argument, NULL, 'S' },
		{ "stack", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx, pid, applied;

	common_options_default(&m->w.opt);
	opterr = 0; /* our own one-line message below */
	m->w.kill_on_hang = true;
	m->w.confirm_s = CONFIRM_DEFAULT_S;
	m->w.paths_as_given = true;
	while ((c = getopt_long(argc, argv, "h", longopts, &idx)) != -1) {
		applied = watch_option_apply("monitor", &m->w, c, c ? NULL : longopts[idx].name, optarg);
		if (applied < 0)
			return -1;
		if (applied == 0)
			continue;
		switch (c) {
		case 'L':
			if (option_int("monitor", "launcher-pid", optarg, 1, 4194304, &pid) < 0)
				return -1;
			m->job.launcher = pid;
			break;
		case 'N': m->job.launcher_host = optarg; break;
		case 'J':
			if (lookup_slurm_parse_job_step(optarg, &m->job.slurm_job, &m->job.slurm_steps) < 0) {
				cmd_error("monitor", "--slurm-job: '%s' is not a Slurm job id (JOBID or JOBID.STEP)", optarg);
				return -1;
			}
			break;
		case 'P':
			if (!lookup_torque_valid_jobid(optarg)) {
				cmd_error("monitor", "--pbs-job: '%s' is not a Torque job id", optarg);
				return -1;
			}
			m->job.pbs_job = optarg;
			break;
		case 'F': m->job.pids_path = optarg; break;
		case 'K':
			if ((m->stack_format = pstack_format_parse(optarg)) == PSTACK_NONE) {
				cmd_error("monitor", "--stack: '%s' is none of text, json, tree, tree-json", optarg);
				return -1;
			}
			break;
		case 'S': m->status_path = optarg; break;
		case 'h': command_help_print(stdout, &monitor_usage); exit(0);
		case 'V': print_version("parastack-monitor"); exit(0);
		default:
			cmd_error("monitor", "bad option '%s'; see 'parastack-monitor --help'", argv[optind - 1]);
			return -1;
		}
	}
	if (!m->job.launcher && !m->job.slurm_job && !m->job.pbs_job && !m->job.pids_path) {
		cmd_error("monitor", "--launcher-pid, --slurm-job, --pbs-job or --pids-file is required");
		return -1;
	}
	return common_options_check("monitor", &m->w.opt);
}

/* The outcome for the launcher: in the status file, or, for "-", as a line on standard output
 * (the file system of the leader's node may not be the launcher's). */
static void write_status(const struct monitor *m, int status)
{
	const char *word = status == MONITOR_EXIT_HANG ? "hang" : status == MONITOR_EXIT_ERROR ? "error" : "none";

	if (!strcmp(m->status_path, "-")) {
		printf("%s%s\n", MONITOR_STATUS_PREFIX, word);
		fflush(stdout);
		return;
	}

	FILE *f = fopen(m->status_path, "w");

	if (f) {
		fprintf(f, "%s\n", word);
		fclose(f);
	}
}

/* The leader's pid beside the status file (MONITOR_PID_SUFFIX), for `parastack run` to ask it for a status
 * line directly: through the monitors' mpirun, SIGUSR1 adds mpirun's own "Forwarding signal"
 * line to the user's output. Created new, never through a link; nothing when it cannot be. */
static void write_pid_file(const struct monitor *m)
{
	char path[PATH_MAX], pid[24];

	if (!m->status_path || !strcmp(m->status_path, "-") ||
	    snprintf(path, sizeof(path), "%s" MONITOR_PID_SUFFIX, m->status_path) >= (int)sizeof(path))
		return;

	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return;

	int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());

	if (write(fd, pid, (size_t)n) != n)
		unlink(path);
	close(fd);
}

/* --stack: this job's ranks, once all of them exist (or after STACK_FIND_MS), looked at once and
 * printed by monitor 0. MONITOR_EXIT_NONE, or _ERROR when none was found or some could not be
 * looked at (each said). */
static int stack_job(struct monitor *m)
{
	static struct job_proc local[MAX_RANKS];
	int nlocal = 0;
	long total = 0, world = -1;

	if (m->job.pids) {
		if (job_pids_all(&m->job, local, &nlocal) < 0)
			return MONITOR_EXIT_ERROR;
		total = m->job.npids;
	}
	for (double until = mono_ms() + STACK_FIND_MS; !m->job.pids; sleep_ms(200)) {
		int size = -1;

		nlocal = m->job.source->discover_local(&m->job, local);
		for (int i = 0; i < nlocal; i++)
			size = local[i].world_size > size ? local[i].world_size : size;
		total = comm_sum(nlocal);
		world = comm_max(size);
		if ((total > 0 && total >= world) || comm_max(mono_ms() >= until || *m->stop))
			break;
	}
	if (total == 0) {
		if (m->comm.me == 0)
			cmd_error("stack", "no MPI ranks found in the job's processes (it started no MPI "
				  "program yet, or they carry no MPI rank in their environment)");
		return MONITOR_EXIT_ERROR;
	}
	if (world > total && m->comm.me == 0)
		cmd_error("stack", "%ld of the job's %ld ranks found; the others are not running yet or "
			  "on nodes without a monitor", total, world);
	return jobstack_print(&m->comm, local, nlocal, m->stack_format) ? MONITOR_EXIT_ERROR : MONITOR_EXIT_NONE;
}

/* A monitor on a node whose ranks oversubscribe the cores competes with them for a CPU at each
 * tick: ahead of them where permitted (root, CAP_SYS_NICE), so the samples are taken when
 * planned (the report's model.sampling says how late they were, and the nice in force). A
 * real-time class is not taken: a monitor must never be able to starve the job. Unprivileged,
 * it stays as it was, in silence: that is the normal case of a user's own job. */
static void monitor_raise_priority(void)
{
	errno = 0;

	int now = getpriority(PRIO_PROCESS, 0);

	if (errno == 0 && now > MONITOR_NICE)
		(void)setpriority(PRIO_PROCESS, 0, MONITOR_NICE);
}

int main(int argc, char **argv)
{
	static struct monitor the_monitor;
	struct monitor *m = &the_monitor;
	int status;

	m->stop = &stop_requested;
	m->job.stop = &stop_requested;
	m->job.comm = &m->comm;
	m->job.source = rank_source.job;
	monitor_raise_priority();
	signals_install(on_signal);
	signals_catch_status();
	signals_catch_fatal("the monitor");
	if (comm_init(&argc, &argv, &m->comm) < 0) {
		fprintf(stderr, "parastack: MPI_Init failed in the monitor\n");
		return MONITOR_EXIT_ERROR;
	}
	m->gone = calloc((size_t)m->comm.size, sizeof(bool));
	m->missing = json_array();
	if (!m->gone || !m->missing) {
		fprintf(stderr, "parastack: the monitor is out of memory\n");
		comm_finalize();
		return MONITOR_EXIT_ERROR;
	}
	if (parse_options(m, argc, argv) < 0) {
		comm_finalize();
		return MONITOR_EXIT_USAGE;
	}
	log_setup(is_leader(m), m->w.quiet);
	if (m->job.pids_path && job_load_pids(&m->job) < 0) {
		comm_finalize();
		return MONITOR_EXIT_USAGE;
	}
	m->job.on_launcher_host = !m->job.launcher_host || !strcmp(m->job.launcher_host, m->comm.host);
	job_find_owner(&m->job);
	comm_elect_leader(&m->comm, m->job.launcher && m->job.on_launcher_host && !m->stack_format);
	log_setup(is_leader(m), m->w.quiet);
	if (m->stack_format) {
		status = stack_job(m);
		comm_finalize();
		if (!m->status_path)
			return status;
		/* Every monitor agrees on the outcome; the leader says it, none fails for mpirun. */
		if (is_leader(m))
			write_status(m, status);
		return MONITOR_EXIT_NONE;
	}
	if (is_leader(m)) {
		char err[PATH_MAX + 128];

		write_pid_file(m);

		if (m->w.trace && !(m->trace = outfile_open_stream(m->w.trace, &m->job.files_owner, err, sizeof(err))))
			fprintf(stderr, "parastack: the trace: %s\n", err);
		if (m->trace) {
			fprintf(m->trace, "# parastack trace: t_ms S C PROGRESS (alpha %g, seed %llu)\n",
				m->w.opt.model.alpha, (unsigned long long)m->w.opt.model.seed);
			trace_write_model(m->trace, m->w.opt.model.alpha, m->w.opt.model.interval_ms,
					  m->w.opt.model.max_interval_ms);
		}
	}
	m->t0_ms = mono_ms();
	if (m->trace)
		fprintf(m->trace, "# t_ms 0 is unix time %.6f\n", wall_s());
	for (int round = 0;; round++) {
		double started = mono_ms();

		enum round_end end = watch_round(m, round);

		m->dismissed_total += m->conf.dismissed;
		m->conf.dismissed = 0;
		watch_round_release(m);
		if (end != ROUND_AGAIN) {
			status = (int)end; /* the other ends are exit statuses */
			break;
		}
		/* A job whose ranks keep vanishing at once is not discovered again in a tight loop. */
		if (mono_ms() - started < ROUND_MIN_MS)
			sleep_ms(ROUND_MIN_MS - (mono_ms() - started));
	}
	site_metrics_flush(m);
	site_stragglers_gauge(m, -1);
	if (is_leader(m)) {
		if (status == MONITOR_EXIT_NONE && !m->last_model)
			log_say("no MPI ranks found: nothing was watched (the job started no MPI program, "
			    "or its processes carry no MPI rank in their environment)");
		if (status == MONITOR_EXIT_NONE && m->last_model) {
			char watched[32], slow[320];

			output_duration_text((mono_ms() - m->t0_ms) / 1e3, watched, sizeof(watched));
			stragglers_text(m, slow, sizeof(slow));
			log_info("watched %s, %ld samples, %d suspicion(s) dismissed, %s%s%s%s%s", watched,
			    m->cost_samples, m->dismissed_total, m->reported ? "a hang reported" : "no hang",
			    *slow ? "; " : "", slow, stop_requested ? "; stopped by SIG" : "",
			    stop_requested ? sigabbrev_np(stop_requested) : "");
		}
		if (status == MONITOR_EXIT_ERROR)
			log_say("the monitor stops on the error above; the job is not watched from now on");
		if (status == MONITOR_EXIT_NONE && !m->reported && m->w.report) {
			json_t *r = report_none(m->last_model ? json_incref(m->last_model) : json_null(),
						m->last_model != NULL);

			stragglers_report(m, r);

			output_write_report(m, r);
			json_decref(r);
		}
		json_decref(m->last_model);
		json_decref(m->stragglers);
		json_decref(m->meta_hosts);
		free(m->meta_command);
		if (m->trace)
			fclose(m->trace);
	}
	/* The leader's verdict, for every monitor: with a PID list, each ends its own ranks. */
	if (m->job.pids && comm_max(status == MONITOR_EXIT_HANG) && m->w.kill_on_hang)
		job_end_listed(&m->job);
	comm_finalize();
	if (is_leader(m) && m->status_path) {
		write_status(m, status);
		return status == MONITOR_EXIT_ERROR ? status : MONITOR_EXIT_NONE;
	}
	return status;
}
