/* SPDX-License-Identifier: BSD-3-Clause */
/* report_text — the hang report as the job's output shows it (report_print): the headline,
 * the faulty ranks, the stack groups and tree, the layer's coverage, the diagnosis, the faulty
 * ranks' frames, the model, the three steps, the next step and the action. From the JSON report
 * alone (report.c builds it). Bounded whatever the job's size (REPORT_TEXT_MAX_LINES lines, none
 * longer than REPORT_TEXT_MAX_LINE): rank lists as ranges, the largest parts first, "and K more"
 * for the rest, which the JSON report holds whole. */
#include "report.h"
#include "../../base/ranges.h"
#include "report_path.h"
#include "report_util.h"
#include "../sample/print/frames.h"

#include <ctype.h>
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
/* What the job's ranks wait in, for sentences (report_runtime_word): "MPI", "gloo". */
static const char *job_word(json_t *report)
{
	return str(report, "runtime") ? str(report, "runtime") : "MPI";
}

static void report_print_confirmation(FILE *out, json_t *c, const char *word)
{
	double window = json_real_value(json_object_get(c, "window_s"));

	if (!json_is_object(c))
		return;
	if (same(str(c, "basis"), "records"))
		fprintf(out, "  confirmed: proven by the records — %s; the same, no rank's record changed, on a "
			"second snapshot %.0f s later (the window is kept for hangs only the stacks show)\n",
			str(c, "proof") ? str(c, "proof") : "?", json_number_value(json_object_get(c, "recheck_s")));
	else if (json_is_number(json_object_get(c, "start_up_still_s")))
		fprintf(out, "  confirmed: at start-up — the rank(s) that have not reached it stood still (stack, CPU "
			"time and I/O unchanged) for %.0f s while the others waited (a rank still loading is given "
			"%.0f s)\n", json_number_value(json_object_get(c, "start_up_still_s")),
			json_number_value(json_object_get(c, "start_up_grace_s")));
	else if (same(str(c, "basis"), "progress evidence"))
		fprintf(out, "  confirmed: no rank waiting in %s moved for %.0f s (the hang began before a "
			"model could judge it: no model verdict needed)\n",
			word, window);
	else if (window > 0)
		fprintf(out, "  confirmed: no rank waiting in %s moved in the %.0f s after the suspicion\n",
			word, window);
	else
		fprintf(out, "  confirmed at once (--confirm 0)\n");

	char when[64], began[64], suspected[64], confirmed[64];

	if (utc_text(json_object_get(c, "last_progress_at"), "%H:%M:%S UTC", when, sizeof(when)))
		fprintf(out, "  last progress seen at %s (sampled ranks computing): the hang began after it\n",
			when);
	/* The headline's time is the decision's; when it began is said apart. */
	if (utc_text(json_object_get(c, "began_at"), "%H:%M:%S", began, sizeof(began)) &&
	    utc_text(json_object_get(c, "suspected_at"), "%H:%M:%S", suspected, sizeof(suspected)) &&
	    utc_text(json_object_get(c, "confirmed_at"), "%H:%M:%S UTC", confirmed, sizeof(confirmed))) {
		double b = json_number_value(json_object_get(c, "began_at"));
		const char *since = same(str(c, "basis"), "progress evidence") || same(str(c, "basis"), "records") ?
				    "nothing has moved since" :
				    b == json_number_value(json_object_get(c, "last_progress_at")) ?
				    "the last progress seen" : "when the suspicion's window opened";

		fprintf(out, "  times: began about %s (%s), suspected at %s, confirmed at %s\n", began, since,
			suspected, confirmed);
	}
}

/* When the stall model suspected: what it knew of the job's standstills. */
static void report_print_stall(FILE *out, json_t *c, json_t *st)
{
	if (!json_is_object(st) || !same(str(c, "basis"), "stall model"))
		return;
	/* The stretch as the suspicion line gave it, and as it stood at the report: the two differ
	 * by the confirmation window, and the suspicion line is what the reader saw first. */
	fprintf(out, "  suspected by the stall model: no sampled rank had moved for %.1f s (%.1f s by the report); "
		"in %.0f healthy samples %.1f %% were quiet (at most %.3f), so %lld quiet samples in a row reach "
		"alpha; the longest healthy standstill lasted %.1f s\n",
		json_number_value(json_object_get(c, "quiet_at_suspicion_s")),
		json_number_value(json_object_get(st, "quiet_s")),
		json_number_value(json_object_get(st, "history")),
		100 * json_number_value(json_object_get(st, "p_hat")),
		json_number_value(json_object_get(st, "q")),
		(long long)json_integer_value(json_object_get(st, "k")),
		json_number_value(json_object_get(st, "longest_healthy_s")));
}

/* s on one line of at most REPORT_TEXT_MAX_LINE characters (cut at a character's start). */
static void print_bounded(FILE *out, const char *prefix, const char *s)
{
	size_t room = REPORT_TEXT_MAX_LINE - strlen(prefix), n = strlen(s);

	if (n <= room) {
		fprintf(out, "%s%s\n", prefix, s);
		return;
	}
	n = room - 40;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	fprintf(out, "%s%.*s … (cut: the JSON report has it whole)\n", prefix, (int)n, s);
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
			char line[REPORT_TEXT_MAX_LINE], frame[REPORT_LINE_MAX + 1];
			int pad = 40 - depth * 2 > 8 ? 40 - depth * 2 : 8;

			/* One frame in what is left of a line once indented and followed by its ranks. */
			report_path_short(str(c, "frame"), NULL, REPORT_LINE_MAX > depth * 2 + 64 ? REPORT_LINE_MAX - depth * 2 - 64 : 40,
					  frame, sizeof(frame));
			snprintf(line, sizeof(line), "%*s%-*s %s", depth * 2, "", pad, frame, str(c, "ranks"));
			print_bounded(out, "    ", line);
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
	n = 0;
	json_array_foreach(ranks, i, r)
		if (str(r, "record_unreadable") && n++ < 4) {
			char line[REPORT_TEXT_MAX_LINE];

			snprintf(line, sizeof(line), "rank %d's record is unreadable (%s): its wait is read from its stack",
				 rank_of(r), str(r, "record_unreadable"));
			print_bounded(out, "  recording layer: ", line);
		}
	if (n > 4)
		fprintf(out, "  recording layer: %d more ranks' records are unreadable (the JSON report names them)\n", n - 4);
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
		char line[REPORT_TEXT_MAX_LINE];

		snprintf(line, sizeof(line), "rank %d, %s: %s", rank_of(c),
			 same(e, "certain") ? "certain" : same(e, "likely") ? "likely" : "from the stacks alone",
			 str(c, "why") ? str(c, "why") : "?");
		print_bounded(out, "    ", line);
	}
}

#define PRINTED_GROUPS 20    /* stack groups, the largest first as report.c orders them */
#define PRINTED_DIAGNOSIS 30 /* diagnosis lines */
#define PRINTED_STACKS 4     /* faulty ranks whose frames are shown: one per distinct path */
#define PRINTED_FRAMES 16

/* The state a group's line shows: IN_MPI in the words of the runtime it waits in (IN_GLOO);
 * the JSON keeps IN_MPI. */
static const char *group_state(json_t *g)
{
	static __thread char buf[32];
	const char *w = str(g, "runtime");

	if (!same(str(g, "state"), "IN_MPI") || !w || same(w, "MPI"))
		return str(g, "state") ? str(g, "state") : "?";
	snprintf(buf, sizeof(buf), "IN_%s", w);
	for (char *c = buf; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	return buf;
}

static void print_groups(FILE *out, json_t *groups)
{
	size_t i;
	json_t *v;
	char line[REPORT_TEXT_MAX_LINE];

	fprintf(out, "  stack groups:\n");
	json_array_foreach(groups, i, v) {
		if (i == PRINTED_GROUPS && json_array_size(groups) > PRINTED_GROUPS + 1) {
			fprintf(out, "    … and %zu more groups (the JSON report has them all)\n", json_array_size(groups) - i);
			break;
		}
		char path[REPORT_LINE_MAX + 1];
		int head = snprintf(line, sizeof(line), "rank%s %-12s %-8s ",
				    json_integer_value(json_object_get(v, "count")) > 1 ? "s" : " ", str(v, "ranks"),
				    group_state(v));

		report_path_short(str(v, "path"), str(v, "site"), head + 44 < REPORT_LINE_MAX ? REPORT_LINE_MAX - 4 - (size_t)head : 40,
				  path, sizeof(path));
		snprintf(line + head, sizeof(line) - (size_t)head, "%s", path);
		print_bounded(out, "    ", line);
	}
}

static void print_diagnosis(FILE *out, json_t *diagnosis)
{
	size_t i;
	json_t *v;

	fprintf(out, "  diagnosis:\n");
	json_array_foreach(diagnosis, i, v) {
		if (i == PRINTED_DIAGNOSIS && json_array_size(diagnosis) > PRINTED_DIAGNOSIS + 1) {
			fprintf(out, "    … and %zu more (the JSON report's diagnosis has them all)\n",
				json_array_size(diagnosis) - i);
			break;
		}
		print_bounded(out, "    - ", json_string_value(v) ? json_string_value(v) : "?");
	}
}

static void print_frames(FILE *out, json_t *rank)
{
	size_t k;
	json_t *f;
	char line[REPORT_TEXT_MAX_LINE];

	fprintf(out, "  rank %d on %s, pid %lld:\n", rank_of(rank), str(rank, "host"),
		(long long)json_integer_value(json_object_get(rank, "pid")));
	json_array_foreach(json_object_get(rank, "frames"), k, f) {
		if (k >= PRINTED_FRAMES)
			break;
		snprintf(line, sizeof(line), "#%-2zu %s", k, str(f, "func"));
		if (str(f, "file"))
			snprintf(line + strlen(line), sizeof(line) - strlen(line), " at %s:%lld", str(f, "file"),
				 (long long)json_integer_value(json_object_get(f, "line")));
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " [%s]", str(f, "module") ? str(f, "module") : "?");
		print_bounded(out, "      ", line);
		if (frames_is_main(str(f, "func")))
			break; /* what lies above main is the C runtime */
	}
}

/* The faulty ranks' frames: one rank per distinct call path, at most PRINTED_STACKS of them. */
static void print_faulty_stacks(FILE *out, json_t *report)
{
	json_t *ranks = json_object_get(report, "ranks"), *faulty = json_object_get(report, "faulty_ranks"), *v;
	const char *shown[PRINTED_STACKS];
	int nshown = 0, same_path = 0, left = 0;
	size_t i;

	json_array_foreach(faulty, i, v) {
		json_t *rank = report_find_rank(ranks, (int)json_integer_value(v));
		bool seen = false;

		if (!rank || same(str(rank, "state"), "EXITED"))
			continue;
		for (int k = 0; k < nshown && !seen; k++)
			seen = same(shown[k], str(rank, "path"));
		if (seen) {
			same_path++;
		} else if (nshown == PRINTED_STACKS) {
			left++;
		} else {
			shown[nshown++] = str(rank, "path");
			print_frames(out, rank);
		}
	}
	if (same_path || left)
		fprintf(out, "  (%d more faulty rank(s)%s: their frames are in the JSON report)\n", same_path + left,
			left ? "" : " with the same stacks as above");
}

/* The monitors that stopped answering: their ranks are not in this report. */
static void print_missing_monitors(FILE *out, json_t *missing)
{
	size_t i;
	json_t *v;
	char line[REPORT_TEXT_MAX_LINE];

	json_array_foreach(missing, i, v) {
		if (i == 4 && json_array_size(missing) > 5) {
			fprintf(out, "  … and %zu more monitors left out (the JSON report's missing_monitors names them)\n",
				json_array_size(missing) - i);
			break;
		}
		snprintf(line, sizeof(line), "the monitor on %s (monitor %lld) did not answer: its %lld rank(s)%s%s%s are "
			 "left out of this report", str(v, "host") ? str(v, "host") : "an unknown host",
			 (long long)json_integer_value(json_object_get(v, "monitor")),
			 (long long)json_integer_value(json_object_get(v, "count")), str(v, "ranks") ? " (" : "",
			 str(v, "ranks") ? str(v, "ranks") : "", str(v, "ranks") ? ")" : "");
		print_bounded(out, "  ", line);
	}
}

void report_print(FILE *out, json_t *report)
{
	char when[64] = "?";
	json_t *m = json_object_get(report, "model"), *v;
	json_t *unknown = json_object_get(json_object_get(report, "wait_for"), "unknown");
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
		print_bounded(out, "  faulty rank(s): ", r ? r : "?");
		if (str(report, "culprits_note")) {
			char note[REPORT_TEXT_MAX_LINE];

			snprintf(note, sizeof(note), "(%s)", str(report, "culprits_note"));
			print_bounded(out, "    ", note);
		}
		free(r);
		free(ranks);
		print_culprits(out, json_object_get(report, "culprits"));
	} else if (json_array_size(unknown)) {
		json_array_foreach(unknown, i, v)
			print_bounded(out, "  faulty rank(s): unknown — ", str(v, "why"));
	} else {
		fprintf(out, "  faulty rank(s): none in application code: every live rank waits in %s\n",
			job_word(report));
	}
	print_groups(out, json_object_get(report, "groups"));
	print_tree(out, json_object_get(report, "tree"));
	print_layer_coverage(out, report);
	print_python_coverage(out, report);
	print_missing_monitors(out, json_object_get(report, "missing_monitors"));
	print_diagnosis(out, json_object_get(report, "diagnosis"));
	print_faulty_stacks(out, report);
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
	if (json_is_string(json_object_get(m, "remembered_from")))
		fprintf(out, "  the model started from this program's last healthy run: %s (--no-memory to start afresh)\n",
			json_string_value(json_object_get(m, "remembered_from")));
	report_print_stall(out, json_object_get(report, "confirmation"), json_object_get(m, "stall"));
	report_print_confirmation(out, json_object_get(report, "confirmation"), job_word(report));
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
