/* cmd_stack — `parastack stack`: one-shot, MPI-aware stacks of running processes, like pstack:
 * each PID's MPI rank, IN_MPI/OUT_MPI state, and every thread's frames with file:line. */
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../monitor/capture.h"
#include "../monitor/discover.h"
#include "../monitor/pidlist.h"
#include "../monitor/report.h"
#include "../monitor/symbolize.h"
#include "../monitor/target.h"
#include "commands.h"
#include "options.h"

#define MAX_LOGICAL 8 /* inlined frames shown per physical frame */

static const char stack_usage[] =
	"usage: parastack stack [--json] [--tree] (PID... | --launcher PID | --pids-file FILE)\n"
	"Print the stacks of running processes, with each one's MPI rank and whether it is inside\n"
	"MPI (IN_MPI) or in application code (OUT_MPI). Each thread is stopped for microseconds.\n"
	"\n"
	"  --json       print a JSON array instead of text\n"
	"  --tree       every process's call path merged into one tree with rank ranges (as\n"
	"               STAT draws it) instead of each stack\n"
	"  --launcher PID     the MPI ranks among the descendants of PID (mpirun, srun, a script)\n"
	"  --pids-file FILE   the ranks of this machine in FILE (lines 'host pid [rank]')\n"
	"  -h, --help   show this help\n"
	"  --version    print the version and the libraries it was built with\n";

static int parse_pid(const char *arg, pid_t *pid)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v <= 0 || v > 4194304)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

static const char *thread_role(const struct thread_stack *th)
{
	if (th->main)
		return "main";
	return th->counted ? "application" : "runtime, not counted";
}

static void print_frame(int idx, const struct sym_frame *f, bool in_mpi)
{
	const char *mod = strrchr(f->module, '/');

	mod = mod ? mod + 1 : f->module;
	printf("    #%-2d 0x%016llx %s", idx, (unsigned long long)f->pc,
	       f->func[0] ? f->func : "??");
	if (f->func[0] && !f->inlined)
		printf("+0x%llx", (unsigned long long)f->offset);
	if (f->inlined)
		printf(" (inlined)");
	printf(" [%s]%s", mod[0] ? mod : "?", in_mpi ? " MPI" : "");
	if (f->file[0])
		printf(" at %s:%d", f->file, f->line);
	putchar('\n');
}

static json_t *frame_json(const struct sym_frame *f, bool in_mpi)
{
	char pc[24];

	snprintf(pc, sizeof(pc), "0x%llx", (unsigned long long)f->pc);

	json_t *j = json_pack("{s:s, s:s?, s:s?, s:b, s:b}", "pc", pc, "func",
			      f->func[0] ? f->func : NULL, "module", f->module[0] ? f->module : NULL,
			      "inlined", f->inlined, "in_mpi", in_mpi);

	json_object_set_new(j, "offset", f->inlined ? json_null() : json_integer((json_int_t)f->offset));
	json_object_set_new(j, "file", f->file[0] ? json_string(f->file) : json_null());
	json_object_set_new(j, "line", f->line ? json_integer(f->line) : json_null());
	return j;
}

/* Symbolize and emit one thread, as text or into a JSON array of threads. */
static void emit_thread(struct symbolizer *sy, const struct target *t, const struct thread_stack *th,
			json_t *jthreads)
{
	json_t *jframes = json_array();
	struct sym_frame lf[MAX_LOGICAL];
	int idx = 0;

	if (!jthreads)
		printf("  thread %d (%s)%s%s\n", (int)th->tid, thread_role(th),
		       th->in_mpi ? " in MPI" : "", th->group_stopped ? " [stopped]" : "");
	for (int i = 0; i < th->nframes; i++) {
		uint64_t pc = th->ips[i];
		bool in_mpi = maps_in_mpi(&t->maps, frame_lookup_pc(th->ips, i));
		int nl = symbolize(sy, &t->maps, pc, i > 0, lf, MAX_LOGICAL);

		for (int k = 0; k < nl; k++, idx++) {
			if (jthreads)
				json_array_append_new(jframes, frame_json(&lf[k], in_mpi));
			else
				print_frame(idx, &lf[k], in_mpi);
		}
	}
	if (jthreads)
		json_array_append_new(jthreads, json_pack("{s:i, s:b, s:b, s:b, s:b, s:o}", "tid",
							  (int)th->tid, "main", th->main, "counted",
							  th->counted, "in_mpi", th->in_mpi,
							  "stopped", th->group_stopped, "frames", jframes));
	else
		json_decref(jframes);
}

/* Report one process; 0, or -1 after printing why it could not be done. */
static int stack_one(pid_t pid, struct symbolizer_pool *syms, json_t *out)
{
	struct thread_stack *threads = NULL;
	struct target t;
	char err[512];
	int n = 0;
	enum rank_state state;
	enum target_status st = target_open(&t, pid, err, sizeof(err));

	if (st == TARGET_OK)
		st = target_capture(&t, &threads, &n, &state, err, sizeof(err));
	if (st != TARGET_OK) {
		cmd_error("stack", "%s", err);
		target_close(&t);
		return -1;
	}

	struct symbolizer *sy = symbolizer_pool_get(syms, &t.maps);
	json_t *jthreads = out ? json_array() : NULL;

	if (!out) {
		char rank[32] = "";

		if (t.rank >= 0)
			snprintf(rank, sizeof(rank), " rank %d", t.rank);
		printf("process %d%s: %s%s\n", (int)pid, rank, rank_state_name(state),
		       target_uses_mpi(&t) ? "" : " (no MPI library mapped)");
	}
	/* A main thread in uninterruptible sleep cannot stop until it leaves the kernel: not
	 * stopped, it has no user-space frames to show, only where the kernel holds it. */
	if (!out && t.in_kernel)
		printf("  thread %d (main) in the kernel: uninterruptible sleep (D), wait channel %s; "
		       "not stopped\n", (int)pid, t.wchan);
	for (int i = 0; i < n; i++)
		emit_thread(sy, &t, &threads[i], jthreads);
	if (out) {
		json_t *j = json_pack("{s:i, s:s, s:o, s:b}", "pid", (int)pid, "state",
				      rank_state_name(state), "threads", jthreads, "uses_mpi",
				      target_uses_mpi(&t));

		json_object_set_new(j, "rank", t.rank >= 0 ? json_integer(t.rank) : json_null());
		if (t.in_kernel) {
			json_object_set_new(j, "in_kernel", json_true());
			json_object_set_new(j, "wchan", json_string(t.wchan));
		}
		json_array_append_new(out, j);
	}
	free(threads);
	target_close(&t);
	return 0;
}

/* --tree: each process's deciding thread as a rank object (capture.c), grouped and merged. */
static int stack_tree(const pid_t *pids, int n, bool json)
{
	struct symbolizer_pool syms = { 0 };
	json_t *snap = json_array();
	char host[256] = "";
	int failed = 0;

	gethostname(host, sizeof(host) - 1);
	for (int i = 0; i < n; i++) {
		struct target t;
		char err[512];

		if (target_open(&t, pids[i], err, sizeof(err)) != TARGET_OK) {
			cmd_error("stack", "%s", err);
			failed++;
		} else {
			json_array_append_new(snap, capture_rank(&t, symbolizer_pool_get(&syms, &t.maps), host));
		}
		target_close(&t);
	}
	report_sort_by_rank(snap);

	json_t *groups = report_groups(snap), *tree = report_tree(groups);

	if (json) {
		json_dumpf(tree, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		printf("%d process(es); each distinct call path once, with its ranks:\n",
		       (int)json_array_size(snap));
		report_print_tree(stdout, tree, 1 << 30);
	}
	json_decref(tree);
	json_decref(groups);
	json_decref(snap);
	symbolizer_pool_free(&syms);
	return failed ? EXIT_INPUT : 0;
}

/* The PIDs named by --launcher or --pids-file (this machine's), in rank order; count or -1. */
static int job_pids(const char *launcher, const char *file, pid_t **pids)
{
	char err[600], host[256] = "";
	int n = 0;

	if (launcher) {
		struct job_proc *procs = calloc(PIDLIST_MAX, sizeof(*procs));
		pid_t root;

		if (!procs || parse_pid(launcher, &root) < 0) {
			cmd_error("stack", "--launcher: '%s' is not a process id", launcher);
			free(procs);
			return -1;
		}
		n = discover_descendants(root, procs, PIDLIST_MAX);
		if (n < 0) {
			cmd_error("stack", "--launcher %d: no such process", (int)root);
			free(procs);
			return -1;
		}
		*pids = calloc((size_t)n + 1, sizeof(pid_t));
		for (int i = 0; *pids && i < n; i++)
			(*pids)[i] = procs[i].pid;
		free(procs);
		if (n == 0)
			cmd_error("stack", "--launcher %s: no MPI ranks among its descendants", launcher);
		return n ? n : -1;
	}

	struct pid_entry *e = calloc(PIDLIST_MAX, sizeof(*e));
	int m = e ? pidlist_read_file(file, e, PIDLIST_MAX, err, sizeof(err)) : -1;

	if (m < 0) {
		cmd_error("stack", "%s", e ? err : "out of memory");
		free(e);
		return -1;
	}
	gethostname(host, sizeof(host) - 1);
	*pids = calloc((size_t)m + 1, sizeof(pid_t));
	for (int i = 0; *pids && i < m; i++)
		if (!e[i].host[0] || !strcmp(e[i].host, host) || !strcmp(e[i].host, "localhost"))
			(*pids)[n++] = e[i].pid;
	free(e);
	if (n == 0)
		cmd_error("stack", "%s lists no process of this machine (%s); run parastack stack on "
			  "the ranks' hosts", file, host);
	return n ? n : -1;
}

int cmd_stack(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "tree", no_argument, NULL, 't' },
		{ "launcher", required_argument, NULL, 'L' },
		{ "pids-file", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, tree = false;
	const char *launcher = NULL, *file = NULL;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(stack_usage, stdout);
			return 0;
		}
		if (c == 'j' || c == 't') {
			*(c == 'j' ? &json : &tree) = true;
			continue;
		}
		if (c == 'L' || c == 'F') {
			*(c == 'L' ? &launcher : &file) = optarg;
			continue;
		}
		if (optopt >= '0' && optopt <= '9')
			cmd_error("stack", "'%s' is not a process id (a positive whole number)", argv[optind - 1]);
		else
			option_unknown("stack", argv, longopts);
		return EXIT_USAGE;
	}
	if ((optind == argc) == !(launcher || file) || (launcher && file)) {
		cmd_error("stack", "name the processes once: PIDs, --launcher PID or --pids-file FILE; "
			  "see 'parastack stack --help'");
		return EXIT_USAGE;
	}

	pid_t *pids = NULL;
	int npids = argc - optind;

	if (launcher || file) {
		if ((npids = job_pids(launcher, file, &pids)) < 0)
			return EXIT_INPUT;
	} else {
		pids = calloc((size_t)npids, sizeof(pid_t));
		for (int i = optind; pids && i < argc; i++)
			if (parse_pid(argv[i], &pids[i - optind]) < 0) {
				cmd_error("stack", "'%s' is not a process id (a positive whole number)", argv[i]);
				free(pids);
				return EXIT_USAGE;
			}
	}
	if (!pids)
		return EXIT_INPUT;
	if (tree) {
		int rc = stack_tree(pids, npids, json);

		free(pids);
		return rc;
	}

	json_t *out = json ? json_array() : NULL;
	struct symbolizer_pool syms = { 0 };
	int failed = 0;

	for (int i = 0; i < npids; i++) {
		if (!json && i > 0)
			putchar('\n');
		failed += stack_one(pids[i], &syms, out) < 0;
	}
	if (out) {
		json_dumpf(out, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
		putchar('\n');
		json_decref(out);
	}
	symbolizer_pool_free(&syms);
	free(pids);
	return failed ? EXIT_INPUT : 0;
}
