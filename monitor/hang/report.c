/* SPDX-License-Identifier: BSD-3-Clause */
/* report — diagnosis on snapshots. */
#include "report.h"
#include "../sample/record/mpirecord.h"
#include "../sample/addr/maps.h"
#include "../../base/runtimes.h"
#include "../sample/print/mpiname.h"
#include "../../base/ranges.h"
#include "snapclass.h"
#include "report_path.h"
#include "report_util.h"
#include "runtime_word.h"
#include "waitfor.h"
#include "culprits.h"
#include "torchwait.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Collectives the recording layer's description (record/mpi.api) does not number. */
static const char *const collectives[] = { "MPI_Win_fence", NULL };

static const char *const busy_wait_calls[] = {
	"MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Iprobe", "MPI_Improbe",
	"MPI_Test_cancelled", NULL,
};

static bool in_list(const char *s, const char *const *list)
{
	for (int i = 0; s && list[i]; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

static bool in_kernel(json_t *r)
{
	return json_is_true(json_object_get(r, "in_kernel"));
}



void report_compact_rank(json_t *rank)
{
	static const char *const kept[] = { "rank", "host", "pid", "state", "mpi_call", "path", "runtime", "site", "stopped",
					    "in_kernel", "wchan" };
	const char *k;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(rank, tmp, k, v) {
		bool keep = false;

		for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]) && !keep; i++)
			keep = !strcmp(k, kept[i]);
		if (!keep)
			json_object_del(rank, k);
	}
}

bool report_moved(json_t *before, json_t *after, char *why, size_t len)
{
	struct snapview vb, va;
	bool moved = false;

	if (snapview_open(&vb, before) < 0 || snapview_open(&va, after) < 0) {
		snapview_close(&vb);
		return false;
	}
	for (int rank = 0; rank < vb.size && !moved; rank++) {
		json_t *a = vb.at[rank], *b = rank < va.size ? va.at[rank] : NULL;
		const char *sa = str(a, "state"), *sb = b ? str(b, "state") : NULL;
		const char *ca = str(a, "mpi_call"), *cb = b ? str(b, "mpi_call") : NULL;

		if (!a || !b || !sa || !sb || strcmp(sa, "IN_MPI"))
			continue;
		/* A busy-wait loop alternates between its test calls without getting anywhere. */
		bool both_busy = in_list(ca, busy_wait_calls) && in_list(cb, busy_wait_calls);

		if (!strcmp(sb, "IN_MPI") && !same(ca, cb) && !both_busy) {
			snprintf(why, len, "rank %d went from %s to %s", rank, ca ? ca : "?", cb ? cb : "?");
			moved = true;
		} else if (!strcmp(sb, "OUT_MPI") && !in_list(ca, busy_wait_calls)) {
			snprintf(why, len, "rank %d returned from %s into application code", rank, ca ? ca : "MPI");
			moved = true;
		}
	}
	snapview_close(&va);
	snapview_close(&vb);
	return moved;
}

/* Out of MPI, frozen (SIGSTOP) or dead in every snapshot that sampled it: the others wait for it.
 * A snapshot that could not sample the rank (UNKNOWN) says nothing either way. Out of MPI inside
 * the start-up is waiting there, not computing: torch's TCPStore waits for its workers in a
 * sleep loop of libtorch_cpu's own. */
static bool faulty_in_all(const struct snapview *v, int nsnaps, int rank)
{
	bool always_out = true, always_stopped = true, always_gone = true;
	int seen = 0;

	for (int k = 0; k < nsnaps; k++) {
		json_t *r = rank < v[k].size ? v[k].at[rank] : NULL;

		if (r && same(str(r, "state"), "UNKNOWN"))
			continue;
		seen++;
		always_out &= r && same(str(r, "state"), "OUT_MPI") && !json_is_true(json_object_get(r, "in_init"));
		always_stopped &= r && json_is_true(json_object_get(r, "stopped"));
		always_gone &= r && same(str(r, "state"), "EXITED");
	}
	return seen && (always_out || always_stopped || always_gone);
}

json_t *report_faulty(json_t *const *snaps, int nsnaps)
{
	json_t *faulty = json_array();
	struct snapview *v = nsnaps > 0 ? calloc((size_t)nsnaps, sizeof(*v)) : NULL;
	int opened = 0;

	while (v && opened < nsnaps && snapview_open(&v[opened], snaps[opened]) == 0)
		opened++;
	for (int rank = 0; v && opened == nsnaps && rank < v[0].size; rank++)
		if (v[0].at[rank] && faulty_in_all(v, nsnaps, rank))
			json_array_append_new(faulty, json_integer(rank));
	for (int k = 0; k < opened; k++)
		snapview_close(&v[k]);
	free(v);
	return faulty;
}

static int compare_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Sort a JSON array in place with a qsort comparator over json_t pointers. */
static void sort_array(json_t *arr, int (*cmp)(const void *, const void *))
{
	size_t n = json_array_size(arr);
	json_t **v = calloc(n + 1, sizeof(json_t *));

	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof(json_t *), cmp);
	json_array_clear(arr);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
}

static int compare_count(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "count"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "count"));

	return (x < y) - (x > y);
}

static int compare_groups(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t cx = json_integer_value(json_object_get(x, "count"));
	json_int_t cy = json_integer_value(json_object_get(y, "count"));

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return (int)(json_integer_value(json_array_get(json_object_get(x, "rank_list"), 0)) -
		     json_integer_value(json_array_get(json_object_get(y, "rank_list"), 0)));
}

json_t *report_groups(json_t *snap)
{
	json_t *byk = json_object(), *list = json_array();
	size_t i;
	json_t *o;
	const char *key;
	json_t *g;

	json_array_foreach(snap, i, o) {
		char k[2300];

		snprintf(k, sizeof(k), "%s|%s", str(o, "state"), str(o, "path") ? str(o, "path") : "");
		g = json_object_get(byk, k);
		if (!g) {
			g = json_pack("{s:[], s:s?, s:s?, s:O, s:s?, s:s?}", "rank_list", "state", str(o, "state"),
				      "path", str(o, "path"), "mpi_call", json_object_get(o, "mpi_call"), "runtime",
				      str(o, "runtime"), "site", str(o, "site"));
			json_object_set_new(byk, k, g);
		}
		json_array_append_new(json_object_get(g, "rank_list"), json_integer(rank_of(o)));
	}

	json_object_foreach(byk, key, g) {
		json_t *rl = json_object_get(g, "rank_list");
		size_t nr = json_array_size(rl);
		int *ranks = calloc(nr ? nr : 1, sizeof(int));

		for (size_t r = 0; r < nr; r++)
			ranks[r] = (int)json_integer_value(json_array_get(rl, r));
		qsort(ranks, nr, sizeof(int), compare_int);
		json_array_clear(rl);
		for (size_t r = 0; r < nr; r++)
			json_array_append_new(rl, json_integer(ranks[r]));

		char *ranges = ranges_dup(ranks, (int)nr);

		json_object_set_new(g, "ranks", json_string(ranges ? ranges : "?"));
		free(ranges);
		json_object_set_new(g, "count", json_integer((json_int_t)nr));
		free(ranks);
		json_array_append(list, g);
	}
	sort_array(list, compare_groups);
	json_decref(byk);
	return list;
}

static int compare_rank_objects(const void *a, const void *b)
{
	int x = rank_of(*(json_t *const *)a), y = rank_of(*(json_t *const *)b);

	return (x > y) - (x < y);
}

void report_sort_by_rank(json_t *ranks)
{
	sort_array(ranks, compare_rank_objects);
}

static void add(json_t *diag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(json_t *diag, const char *fmt, ...)
{
	char *buf = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	json_array_append_new(diag, json_string(buf));
	free(buf);
}

/* "FUNC (WHERE)", then ", in LIB_FUNC (LIB)" when the rank is inside a system library's call. */
static void position_format(char *buf, size_t len, const char *func, const char *where,
			    const char *lib_func, const char *lib)
{
	int n = snprintf(buf, len, "%s (%s)", func, where);

	if (lib_func && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", in %s (%s)", lib_func, lib);
}

/* Where a rank stays: its innermost frame of application code with a source position (not
 * MPI, not a system library such as libc, whose own position says nothing to the user), then
 * the library call it is in, if any: "faulty_sleep (faults.h:132), in pause (libc.so.6)".
 * A code built without -g (most installed codes) has no position: its innermost named frame
 * and module then, "LAMMPS_NS::PairLJCut::compute(int, int) (liblammps.so.0)". */
static void app_position(json_t *rank, char *buf, size_t len)
{
	size_t i;
	json_t *f;
	const char *lib_func = NULL, *lib = NULL;
	bool named = false;

	snprintf(buf, len, "application code");
	json_array_foreach(json_object_get(rank, "frames"), i, f) {
		const char *file = str(f, "file"), *mod = str(f, "module"), *func = str(f, "func");
		char where[512];

		if (json_is_true(json_object_get(f, "in_mpi")))
			continue;
		if (mod && maps_classify_path(mod, NULL) == MODULE_RUNTIME) {
			if (!lib_func) {
				lib_func = func;
				lib = mod;
			}
			continue;
		}
		if (!func)
			continue;
		if (file) {
			snprintf(where, sizeof(where), "%s:%lld", file,
				 (long long)json_integer_value(json_object_get(f, "line")));
			position_format(buf, len, func, where, lib_func, lib);
			return;
		}
		if (named)
			continue;
		named = true;
		/* Nameless frames of a stripped module are named by it ("cp2k.psmp (2 frames)",
		 * "cp2k.psmp+0x24c4469", frames.c): the module is said once. */
		if (mod && !strncmp(func, mod, strlen(mod)))
			snprintf(buf, len, "%s", func);
		else
			position_format(buf, len, func, mod ? mod : "?", lib_func, lib);
	}
}

static void diagnose_computation(json_t *snap, json_t *faulty, json_t *diag)
{
	size_t i;
	json_t *r;
	const char *start_up = report_start_up_call(snap, faulty);

	json_array_foreach(faulty, i, r) {
		json_t *rank = report_find_rank(snap, (int)json_integer_value(r));
		char pos[1024];

		if (!rank || same(str(rank, "state"), "EXITED"))
			continue;
		app_position(rank, pos, sizeof(pos));
		if (json_is_true(json_object_get(rank, "in_kernel")))
			add(diag, "rank %lld (host %s, pid %lld) is blocked in the kernel (uninterruptible sleep, wait "
			    "channel %s) in every snapshot: a hung file system or device, not the job's communication",
			    (long long)json_integer_value(r), str(rank, "host"),
			    (long long)json_integer_value(json_object_get(rank, "pid")),
			    str(rank, "wchan") ? str(rank, "wchan") : "?");
		else if (json_is_true(json_object_get(rank, "stopped")))
			add(diag, "rank %lld (host %s, pid %lld) is stopped (SIGSTOP: a frozen node?) in every "
			    "snapshot, %s %s; parastack leaves it stopped", (long long)json_integer_value(r),
			    str(rank, "host"), (long long)json_integer_value(json_object_get(rank, "pid")),
			    same(str(rank, "state"), "IN_MPI") ? "in" : "at",
			    same(str(rank, "state"), "IN_MPI") && str(rank, "mpi_call") ? str(rank, "mpi_call") : pos);
		else if (start_up)
			add(diag, "rank %lld (host %s, pid %lld) has not reached %s: it waits at %s in every "
			    "snapshot, while the others wait in %s for it",
			    (long long)json_integer_value(r), str(rank, "host"),
			    (long long)json_integer_value(json_object_get(rank, "pid")), start_up, pos, start_up);
		else
			add(diag, "rank %lld (host %s, pid %lld) stays in application code in every snapshot, at %s",
			    (long long)json_integer_value(r), str(rank, "host"),
			    (long long)json_integer_value(json_object_get(rank, "pid")), pos);
	}
}

/* Sentences about what the ranks in MPI wait for. */
static void diagnose_waits(json_t *groups, json_t *diag, bool computation, const char *word, bool recorded)
{
	size_t i;
	json_t *g;
	const char *first_coll = NULL, *final_ranks = NULL, *exited = NULL, *lib = NULL;
	char api[96];
	bool mixed_colls = false;
	int np2p = 0, ngroups_mpi = 0;
	char *colls = NULL;
	size_t colls_len = 0;
	FILE *cf = open_memstream(&colls, &colls_len); /* grows: any number of groups */

	json_array_foreach(groups, i, g) {
		const char *call = str(g, "mpi_call"), *state = str(g, "state");

		if (same(state, "EXITED")) {
			exited = str(g, "ranks");
			continue;
		}
		if (!same(state, "IN_MPI") || !call)
			continue;
		ngroups_mpi++;

		char head[400], path[REPORT_LINE_MAX + 1];
		int hn = snprintf(head, sizeof(head), "rank%s %s %s blocked in %s%s%s",
				  json_integer_value(json_object_get(g, "count")) > 1 ? "s" : "", str(g, "ranks"),
				  json_integer_value(json_object_get(g, "count")) > 1 ? "are" : "is", call,
				  str(g, "site") ? ", called at " : "", str(g, "site") ? str(g, "site") : "");

		/* Below the call site, which the sentence names already; in what is left of the line
		 * once the text prints it after "    - ". */
		const char *below = str(g, "site") ? strstr(str(g, "path"), str(g, "site")) : NULL;

		below = below && strstr(below, " > ") ? strstr(below, " > ") + 3 : str(g, "path");
		report_path_short(below, NULL, hn + 50 < REPORT_LINE_MAX ? REPORT_LINE_MAX - (size_t)hn - 9 : 40,
				  path, sizeof(path));
		add(diag, "%s (%s)", head, path);
		if (!mpiname_of(call, api, sizeof(api))) {
			/* Named from a frame of a library with no MPI routine in it (gloo's, a
			 * stripped MPI's): a library the rank waits in, not an MPI call. */
			lib = lib ? lib : call;
		} else if (!strcmp(call, "MPI_Finalize")) {
			final_ranks = str(g, "ranks");
		} else if (in_list(call, collectives) || mpirecord_kind_of(call) == PSREC_KIND_COLL ||
			   mpirecord_kind_of(call) == PSREC_KIND_CTOR) {
			if (cf && (!first_coll || strcmp(first_coll, call)))
				fprintf(cf, "%s%s in %s", ftell(cf) ? ", " : "", str(g, "ranks"), call);
			mixed_colls |= first_coll && strcmp(first_coll, call);
			first_coll = first_coll ? first_coll : call;
		} else {
			np2p++;
		}
	}
	if (cf)
		fclose(cf);
	if (mixed_colls)
		add(diag, "mismatched collectives: ranks %s — every rank must call the same collectives in the same order",
		    colls ? colls : "?");
	free(colls);
	if (final_ranks && ngroups_mpi > 1)
		add(diag, "rank(s) %s already called MPI_Finalize while others still wait: they left the computation early",
		    final_ranks);
	if (exited)
		add(diag, "rank(s) %s died while the others still wait in %s: a crash, not an ordinary hang",
		    exited, word);
	if (first_coll && np2p > 0 && !computation)
		add(diag, "some ranks wait in a collective while others wait in point-to-point calls: a rank skipped the collective, or waits for a message from a rank inside it");
	if (!first_coll && np2p > 0 && !final_ranks && !exited && !computation)
		add(diag, "every waiting rank is in point-to-point communication: a communication deadlock or a message that was never sent — check that each receive has a matching send");
	/* Where a collective record names each call, the frames need not be pointed to. */
	bool unnamed = lib && !computation && !recorded;

	if (unnamed && runtime_about(word))
		add(diag, "ranks wait in %s (%s), not at a call it names: %s; which call each waits in is "
		    "its own frames' (a Python rank's line)", word, lib, runtime_about(word));
	else if (unnamed)
		add(diag, "ranks wait in %s, not at an MPI call: which call each waits in is its own frames' "
		    "(a Python rank's line)", lib);
	if (computation && ngroups_mpi > 0)
		add(diag, "the ranks waiting in %s wait for the faulty rank(s): they are not the cause", word);
}

/* One line per dead rank: how it ended. */
static void diagnose_dead(json_t *snap, json_t *diag)
{
	size_t i;
	json_t *r;

	json_array_foreach(snap, i, r)
		if (same(str(r, "state"), "EXITED"))
			add(diag, "rank %d (host %s, pid %lld) died: %s", rank_of(r), str(r, "host"),
			    (long long)json_integer_value(json_object_get(r, "pid")),
			    str(r, "exit") ? str(r, "exit") : "how is unknown");
}

json_t *report_diagnose(json_t *snap, json_t *groups, json_t *faulty)
{
	json_t *diag = json_array();

	diagnose_dead(snap, diag);

	if (json_array_size(faulty) > 0)
		diagnose_computation(snap, faulty, diag);
	char word[64];

	diagnose_waits(groups, diag, json_array_size(faulty) > 0, report_runtime_word(snap, word, sizeof(word)),
		       torchwait_any_record(snap));
	return diag;
}

/* The developer's next step: a debugger on the faulty rank, or on the odd group out. */
/* The first rank of snap with a process left (not EXITED): among the ranks listed (a JSON array
 * of numbers), or among all when ranks is NULL. */
static json_t *first_live(json_t *snap, json_t *ranks)
{
	size_t i;
	json_t *v;

	json_array_foreach(ranks ? ranks : snap, i, v) {
		json_t *r = ranks ? report_find_rank(snap, (int)json_integer_value(v)) : v;

		if (r && !same(str(r, "state"), "EXITED"))
			return r;
	}
	return NULL;
}

static json_t *next_step(json_t *snap, json_t *groups, json_t *faulty)
{
	json_t *target = NULL;
	char buf[512];

	if (json_array_size(faulty) > 0) {
		/* A dead rank has no process to debug: then a rank that waits for it. */
		target = first_live(snap, faulty);
		if (!target)
			target = first_live(snap, NULL);
	} else if (json_array_size(groups) > 1) {
		json_t *small = json_array_get(groups, json_array_size(groups) - 1);

		target = report_find_rank(snap, (int)json_integer_value(
						 json_array_get(json_object_get(small, "rank_list"), 0)));
	} else if (json_array_size(snap) > 0) {
		target = json_array_get(snap, 0);
	}
	if (!target)
		return json_null();
	snprintf(buf, sizeof(buf), "gdb -p %lld   (rank %d, on host %s)",
		 (long long)json_integer_value(json_object_get(target, "pid")), rank_of(target),
		 str(target, "host"));
	return json_string(buf);
}

/* The node named frame among children (created empty when absent). */
static json_t *tree_child(json_t *children, const char *frame)
{
	size_t i;
	json_t *c;

	json_array_foreach(children, i, c)
		if (same(str(c, "frame"), frame))
			return c;
	c = json_pack("{s:s, s:[], s:[]}", "frame", frame, "rank_list", "children");
	json_array_append_new(children, c);
	return c;
}

/* Each node's rank_list into "ranks" (ranges) and "count"; children largest first. */
static void tree_finish(json_t *children)
{
	size_t i;
	json_t *c;

	json_array_foreach(children, i, c) {
		json_t *rl = json_object_get(c, "rank_list");
		size_t n = json_array_size(rl);
		int *ranks = calloc(n + 1, sizeof(int));
		char *r;

		for (size_t k = 0; ranks && k < n; k++)
			ranks[k] = (int)json_integer_value(json_array_get(rl, k));
		size_t u = 0;

		if (ranks)
			qsort(ranks, n, sizeof(int), compare_int);
		for (size_t k = 0; ranks && k < n; k++)
			if (u == 0 || ranks[u - 1] != ranks[k])
				ranks[u++] = ranks[k]; /* the same rank from two jobs: once */
		r = ranks ? ranges_dup(ranks, (int)u) : NULL;
		json_object_set_new(c, "ranks", json_string(r ? r : "?"));
		json_object_set_new(c, "count", json_integer((json_int_t)n));
		json_object_del(c, "rank_list");
		free(r);
		free(ranks);
		tree_finish(json_object_get(c, "children"));
	}
	sort_array(children, compare_count);
}

json_t *report_tree(json_t *groups)
{
	json_t *roots = json_array(), *g;
	size_t i;

	json_array_foreach(groups, i, g) {
		char *path = strdup(str(g, "path") ? str(g, "path") : "?"), *next = NULL;
		json_t *level = roots, *node = NULL;

		/* Frames are separated by " > ": a name may hold '>' itself (<module>, templates). */
		for (char *f = path; f; f = next) {
			if ((next = strstr(f, " > "))) {
				*next = '\0';
				next += 3;
			}
			node = tree_child(level, f);
			json_array_extend(json_object_get(node, "rank_list"), json_object_get(g, "rank_list"));
			level = json_object_get(node, "children");
		}
		free(path);
	}
	tree_finish(roots);
	return roots;
}

json_t *report_build(json_t *snap, json_t *faulty, double detected_at, json_t *model,
		     const char *action)
{
	return report_build_listing(snap, faulty, detected_at, model, action, true);
}

/* The ranks a summary report details besides the culprits (report_summary.c): the faulty ones
 * and each group's first. */
static json_t *summary_listed(json_t *groups, json_t *faulty)
{
	json_t *listed = json_deep_copy(faulty), *g;
	size_t i;

	json_array_foreach(groups, i, g)
		json_array_append(listed, json_array_get(json_object_get(g, "rank_list"), 0));
	return listed;
}

json_t *report_build_listing(json_t *snap, json_t *faulty, double detected_at, json_t *model,
			     const char *action, bool all_ranks)
{
	json_t *groups = report_groups(snap);
	json_t *diag = report_diagnose(snap, groups, faulty);
	json_t *tree = report_tree(groups);
	size_t i;
	json_t *g;

	json_t *dead = json_array();
	bool live_faulty = false, all_in_kernel = true;

	json_array_foreach(faulty, i, g) {
		json_t *r = report_find_rank(snap, (int)json_integer_value(g));

		if (r && same(str(r, "state"), "EXITED")) {
			json_array_append(dead, g);
		} else {
			live_faulty = true;
			all_in_kernel &= r && in_kernel(r);
		}
	}
	/* A dead rank leaves the others waiting for messages: a communication hang, with its cause. */
	const char *type = !live_faulty ? "communication" : all_in_kernel ? "io" : "computation";
	json_t *listed = all_ranks || live_faulty ? NULL : summary_listed(groups, faulty);
	json_t *wf = !live_faulty ? torchwait_merge(waitfor_analyze_listing(snap, listed), snap) : NULL;

	json_decref(listed);

	if (wf) {
		json_t *lines = json_object_get(wf, "diagnosis");

		/* The recording layer's reasons first; the stack groups' sentences after them. */
		json_array_extend(lines, diag);
		json_decref(diag);
		diag = json_incref(lines);
		json_object_del(wf, "diagnosis");
	}

	/* One truth: faulty_ranks is the culprits' list, whatever named them. */
	char *note = NULL;
	json_t *culprits = culprits_find(snap, groups, faulty, wf, &note);
	json_t *report_faulty = culprits_ranks(culprits);
	json_t *next = next_step(snap, groups, report_faulty);
	/* rank_list served the diagnosis and the culprits; the report keeps the compact ranges. */
	json_array_foreach(groups, i, g)
		json_object_del(g, "rank_list");

	json_t *report = json_pack("{s:s, s:s, s:o, s:o, s:f, s:O, s:o, s:o, s:o, s:o, s:s}", "verdict",
				   "hang", "hang_type", type, "dead_ranks", dead, "faulty_ranks",
				   report_faulty, "detected_at", detected_at, "ranks", snap, "groups", groups,
				   "diagnosis", diag, "model", model, "next_step", next, "action", action);

	char word[64];

	json_object_set_new(report, "runtime", json_string(report_runtime_word(snap, word, sizeof(word))));
	json_object_set_new(report, "tree", tree);
	json_object_set_new(report, "culprits", culprits);
	if (note)
		json_object_set_new(report, "culprits_note", json_string(note));
	free(note);
	if (wf)
		json_object_set_new(report, "wait_for", wf);
	return report;
}

/* Sorted ranks of snap (either form, snapclass.h) whose object satisfies pred, as ranges; their
 * count. */
static int ranks_where(json_t *snap, bool (*pred)(json_t *), char *buf, size_t len)
{
	struct snapview v;
	int *ranks = NULL, k = 0;

	if (snapview_open(&v, snap) == 0 && (ranks = calloc((size_t)v.size + 1, sizeof(int))))
		for (int r = 0; r < v.size; r++)
			if (v.at[r] && pred(v.at[r]))
				ranks[k++] = r;
	report_ranges(ranks, k, buf, len);
	free(ranks);
	snapview_close(&v);
	return k;
}

static bool out_of_mpi(json_t *r)
{
	return !in_kernel(r) && ((same(str(r, "state"), "OUT_MPI") && !json_is_true(json_object_get(r, "in_init"))) ||
				 json_is_true(json_object_get(r, "stopped")));
}

void report_summary(json_t *snap, char *buf, size_t len)
{
	char ranks[256];
	int n;

	if ((n = ranks_where(snap, in_kernel, ranks, sizeof(ranks))) > 0)
		snprintf(buf, len, "rank%s %s blocked in the kernel (uninterruptible sleep)", n > 1 ? "s" : "", ranks);
	else if ((n = ranks_where(snap, out_of_mpi, ranks, sizeof(ranks))) > 0)
		snprintf(buf, len, "computation error, rank%s %s", n > 1 ? "s" : "", ranks);
	else
		snprintf(buf, len, "communication error: every rank waits in %s",
			 report_runtime_word(snap, ranks, sizeof(ranks)));
}

json_t *report_none(json_t *model, bool watched)
{
	return json_pack("{s:s, s:n, s:[], s:[], s:n, s:[], s:[], s:[], s:o}", "verdict",
			 watched ? "none" : "unwatched",
			 "hang_type", "faulty_ranks", "culprits", "detected_at", "ranks", "groups", "diagnosis",
			 "model", model);
}

