/* report_text — the hang report as the job's output shows it (report_print): the headline,
 * the faulty ranks, the stack groups and tree, the layer's coverage, the diagnosis, the faulty
 * ranks' frames, the model, the three steps, the next step and the action. From the JSON report
 * alone (report.c builds it). */
#include "report.h"
#include "ranges.h"
#include "report_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A JSON Unix time as UTC text in format; false (buf untouched) when it is not a time. */
static bool utc_text(json_t *t, const char *format, char *buf, size_t len)
{
	time_t secs = (time_t)json_number_value(t);
	struct tm tm;

	return json_is_number(t) && secs > 0 && gmtime_r(&secs, &tm) && strftime(buf, len, format, &tm);
}

/* The three steps, in one line: when it was suspected, and how it was confirmed. */
static void report_print_confirmation(FILE *out, json_t *c)
{
	double window = json_real_value(json_object_get(c, "window_s"));

	if (!json_is_object(c))
		return;
	if (same(str(c, "basis"), "progress evidence"))
		fprintf(out, "  confirmed: no rank waiting in MPI moved for %.0f s (the hang began before a "
			"model could judge it: no model verdict needed)\n",
			window);
	else if (window > 0)
		fprintf(out, "  confirmed: no rank waiting in MPI moved in the %.0f s after the suspicion\n",
			window);
	else
		fprintf(out, "  confirmed at once (--confirm 0)\n");

	char when[64];

	if (utc_text(json_object_get(c, "last_progress_at"), "%H:%M:%S UTC", when, sizeof(when)))
		fprintf(out, "  last progress seen at %s (sampled ranks computing): the hang began after it\n",
			when);
}

/* When the stall model suspected: what it knew of the job's standstills. */
static void report_print_stall(FILE *out, json_t *c, json_t *st)
{
	if (!json_is_object(st) || !same(str(c, "basis"), "stall model"))
		return;
	fprintf(out, "  suspected by the stall model: no sampled rank moved for %.1f s; in %.0f healthy samples "
		"%.1f %% were quiet (at most %.3f), so %lld quiet samples in a row reach alpha; the longest "
		"healthy standstill lasted %.1f s\n",
		json_number_value(json_object_get(st, "quiet_s")),
		json_number_value(json_object_get(st, "history")),
		100 * json_number_value(json_object_get(st, "p_hat")),
		json_number_value(json_object_get(st, "q")),
		(long long)json_integer_value(json_object_get(st, "k")),
		json_number_value(json_object_get(st, "longest_healthy_s")));
}

/* One level of the merged stack tree, indented by depth; *lines counts what was printed. */
static void print_tree_level(FILE *out, json_t *children, int depth, int max, int *lines, int *left)
{
	size_t i;
	json_t *c;

	json_array_foreach(children, i, c) {
		if (*lines >= max) {
			(*left)++;
		} else {
			fprintf(out, "    %*s%-*s %s\n", depth * 2, "", 40 - depth * 2 > 8 ? 40 - depth * 2 : 8,
				str(c, "frame"), str(c, "ranks"));
			(*lines)++;
		}
		print_tree_level(out, json_object_get(c, "children"), depth + 1, max, lines, left);
	}
}

void report_print_tree(FILE *out, json_t *tree, int max_lines)
{
	int lines = 0, left = 0;

	print_tree_level(out, tree, 0, max_lines, &lines, &left);
	if (left)
		fprintf(out, "    ... %d more frame(s) (the JSON has them all)\n", left);
}

/* For a communication hang: the live ranks the recording layer was not in, whose waits are
 * read from their stacks alone (a launch line it could not be placed through, --no-record). */
static void print_layer_coverage(FILE *out, json_t *report)
{
	json_t *ranks = json_object_get(report, "ranks"), *r;
	int *without = calloc(json_array_size(ranks) + 1, sizeof(int)), n = 0;
	size_t i;

	if (!without || !same(str(report, "hang_type"), "communication")) {
		free(without);
		return;
	}
	json_array_foreach(ranks, i, r)
		if (json_is_false(json_object_get(r, "recording_layer")) && !same(str(r, "state"), "EXITED"))
			without[n++] = rank_of(r);
	if (n) {
		char *rr = ranges_dup(without, n);

		fprintf(out, "  recording layer: not loaded in rank%s %s: %s from stacks alone\n",
			n > 1 ? "s" : "", rr ? rr : "?",
			(size_t)n == json_array_size(ranks) ? "the diagnosis comes" : "their waits are read");
		free(rr);
	}
	free(without);
	json_array_foreach(ranks, i, r)
		if (str(r, "record_unreadable"))
			fprintf(out, "  recording layer: rank %d's record is unreadable (%s): its wait is read from its stack\n",
				rank_of(r), str(r, "record_unreadable"));
}

/* Python ranks whose frames could not be read: one line for them all. */
static void print_python_coverage(FILE *out, json_t *report)
{
	json_t *ranks = json_object_get(report, "ranks"), *r;
	int *without = calloc(json_array_size(ranks) + 1, sizeof(int)), n = 0;
	const char *why = NULL;
	size_t i;

	json_array_foreach(ranks, i, r) {
		json_t *py = json_object_get(r, "python");

		if (without && json_is_false(json_object_get(py, "frames"))) {
			without[n++] = rank_of(r);
			why = str(py, "why");
		}
	}
	if (n) {
		char *rr = ranges_dup(without, n);

		fprintf(out, "  Python: rank%s %s: %s\n", n > 1 ? "s" : "", rr ? rr : "?", why ? why : "?");
		free(rr);
	}
	free(without);
}

/* The report's merged stack tree, at most 40 lines. */
static void print_tree(FILE *out, json_t *tree)
{
	if (!json_array_size(tree))
		return;
	fprintf(out, "  stack tree (each distinct call path once, with its ranks):\n");
	report_print_tree(out, tree, 40);
}

#define PRINTED_CULPRITS 8

/* Each culprit with its evidence in words: what the report knows, and how well. */
static void print_culprits(FILE *out, json_t *culprits)
{
	size_t i;
	json_t *c;

	json_array_foreach(culprits, i, c) {
		const char *e = str(c, "evidence");

		/* Bounded: the JSON report's faulty_ranks and culprits have them all. */
		if (i == PRINTED_CULPRITS && json_array_size(culprits) > PRINTED_CULPRITS + 1) {
			fprintf(out, "    … and %zu more (every culprit, with why, is in the JSON report)\n",
				json_array_size(culprits) - i);
			break;
		}
		fprintf(out, "    rank %d, %s: %s\n", rank_of(c),
			same(e, "certain") ? "certain" : same(e, "likely") ? "likely" : "from the stacks alone",
			str(c, "why") ? str(c, "why") : "?");
	}
}

void report_print(FILE *out, json_t *report)
{
	char when[64] = "?";
	json_t *m = json_object_get(report, "model"), *v;
	size_t i;

	utc_text(json_object_get(report, "detected_at"), "%Y-%m-%d %H:%M:%S UTC", when, sizeof(when));
	fprintf(out, "\nparastack: HANG DETECTED at %s — %s error%s\n", when,
		str(report, "hang_type"), json_array_size(json_object_get(report, "dead_ranks")) ?
		", after a rank died (a crash, not an ordinary hang)" : "");
	if (json_array_size(json_object_get(report, "faulty_ranks"))) {
		json_t *fr = json_object_get(report, "faulty_ranks");
		int *ranks = calloc(json_array_size(fr) + 1, sizeof(int)), n = 0;
		char *r;

		json_array_foreach(fr, i, v)
			if (ranks)
				ranks[n++] = (int)json_integer_value(v);
		r = ranges_dup(ranks, n);
		fprintf(out, "  faulty rank(s): %s\n", r ? r : "?");
		if (str(report, "culprits_note"))
			fprintf(out, "    (%s)\n", str(report, "culprits_note"));
		free(r);
		free(ranks);
		print_culprits(out, json_object_get(report, "culprits"));
	} else {
		fprintf(out, "  faulty rank(s): none in application code: every live rank waits in MPI\n");
	}
	fprintf(out, "  stack groups:\n");
	json_array_foreach(json_object_get(report, "groups"), i, v)
		fprintf(out, "    rank%s %-12s %-8s %s\n",
			json_integer_value(json_object_get(v, "count")) > 1 ? "s" : " ",
			str(v, "ranks"), str(v, "state"), str(v, "path"));
	print_tree(out, json_object_get(report, "tree"));
	print_layer_coverage(out, report);
	print_python_coverage(out, report);
	fprintf(out, "  diagnosis:\n");
	json_array_foreach(json_object_get(report, "diagnosis"), i, v)
		fprintf(out, "    - %s\n", json_string_value(v));
	json_array_foreach(json_object_get(report, "faulty_ranks"), i, v) {
		json_t *rank = report_find_rank(json_object_get(report, "ranks"), (int)json_integer_value(v));
		size_t k;
		json_t *f;

		if (!rank || same(str(rank, "state"), "EXITED"))
			continue;
		fprintf(out, "  rank %d on %s, pid %lld:\n", rank_of(rank), str(rank, "host"),
			(long long)json_integer_value(json_object_get(rank, "pid")));
		json_array_foreach(json_object_get(rank, "frames"), k, f) {
			if (k >= 16)
				break;
			fprintf(out, "      #%-2zu %s", k, str(f, "func"));
			if (str(f, "file"))
				fprintf(out, " at %s:%lld", str(f, "file"),
					(long long)json_integer_value(json_object_get(f, "line")));
			fprintf(out, " [%s]\n", str(f, "module") ? str(f, "module") : "?");
			if (same(str(f, "func"), "main") || same(str(f, "func"), "MAIN__"))
				break; /* what lies above main is the C runtime */
		}
	}
	if (json_is_object(m) && json_is_false(json_object_get(m, "usable")))
		fprintf(out, "  model: %lld samples, still building (no threshold yet: the samples look alike)\n",
			(long long)json_integer_value(json_object_get(m, "samples")));
	else if (json_is_object(m))
		fprintf(out, "  model: %lld samples, I = %.0f ms, suspicion when S <= %lld (p_hat %.3f, e %.2f, q %.3f), alpha %g\n",
			(long long)json_integer_value(json_object_get(m, "samples")),
			json_real_value(json_object_get(m, "interval_ms")),
			(long long)json_integer_value(json_object_get(m, "threshold")),
			json_real_value(json_object_get(m, "p_hat")),
			json_real_value(json_object_get(m, "e")), json_real_value(json_object_get(m, "q")),
			json_real_value(json_object_get(m, "alpha")));
	report_print_stall(out, json_object_get(report, "confirmation"), json_object_get(m, "stall"));
	report_print_confirmation(out, json_object_get(report, "confirmation"));
	json_array_foreach(json_object_get(report, "cores"), i, v)
		fprintf(out, "  core of rank %lld (host %s, pid %lld): %s%s\n",
			(long long)json_integer_value(json_object_get(v, "rank")), str(v, "host"),
			(long long)json_integer_value(json_object_get(v, "pid")),
			str(v, "core") ? str(v, "core") : "not written: ",
			str(v, "core") ? "" : str(v, "error"));
	if (str(report, "next_step"))
		fprintf(out, "  next step: %s\n", str(report, "next_step"));
	if (str(report, "action"))
		fprintf(out, "  action: %s\n", str(report, "action"));
	fflush(out);
}
