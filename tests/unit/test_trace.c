/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the trace parser: good input, and every malformed line named by number. */
#include <stdio.h>
#include <string.h>

#include "../../stats/replay.h"
#include "../../stats/timeline.h"
#include "../../stats/trace.h"
#include "suites.h"

static int parse_text(const char *text, struct trace *tr, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	ck_assert_ptr_nonnull(f);

	int rc = trace_parse(f, tr, err, errlen);

	fclose(f);
	return rc;
}

START_TEST(parses_samples_comments_and_blank_lines)
{
	struct trace tr;
	char err[256] = "";

	ck_assert_int_eq(parse_text("# recorded by parastack\n\n0 3 10\n400.5 0 10  # low\n"
				    "\t800 10 10\r\n",
				    &tr, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(tr.len, 3);
	ck_assert_double_eq(tr.points[1].t_ms, 400.5);
	ck_assert_int_eq(tr.points[1].s, 0);
	ck_assert_int_eq(tr.points[2].s, 10);
	ck_assert_int_eq(tr.points[2].c, 10);
	ck_assert_uint_eq(trace_find(&tr, 0, 0.0), 0);
	ck_assert_uint_eq(trace_find(&tr, 0, 1.0), 1);
	ck_assert_uint_eq(trace_find(&tr, 0, 400.5), 1);
	ck_assert_uint_eq(trace_find(&tr, 0, 801), 3);
	trace_free(&tr);
}
END_TEST

struct bad_case {
	const char *text;
	const char *message; /* a part of the expected message */
};

static const struct bad_case bad_cases[] = {
	{ "", "no samples" },
	{ "# only a comment\n\n", "no samples" },
	{ "0 1 10\nx 1 10\n", "line 2: expected a time" },
	{ "-5 1 10\n", "line 1: expected a time" },
	{ "nan 1 10\n", "line 1: expected a time" },
	{ "0 1.5 10\n", "line 1: expected S" },
	{ "0 1\n", "line 1: expected C" },
	{ "0 1 10 7\n", "line 1: the progress field has 1 letters, not one per sampled rank (C = 10)" },
	{ "0 1 4 ssa\n", "line 1: the progress field has 3 letters" },
	{ "0 1 4 ssax\n", "line 1: progress letter 'x' is not one of" },
	{ "0 1 4 ssaa 5\n", "line 1: unexpected text" },
	{ "#! watch sets=3 confirm=60\n0 1 10\n", "line 1: expected \"#! watch" },
	{ "#! watch sets=2\n0 1 10\n", "line 1: expected \"#! watch" },
	{ "0 11 10\n", "line 1: S = 11 is outside 0..C" },
	{ "0 -1 10\n", "line 1: S = -1 is outside" },
	{ "0 0 0\n", "line 1: set size C = 0" },
	{ "0 0 99999999999\n", "line 1: set size C = 99999999999 is out of range" },
	{ "0 1 1000000\n", "line 1: set size C = 1000000 is out of range (1..4096)" },
	{ "0 1 10\n1 1 10\n2 1 12\n", "line 3: set size C = 12 differs" },
	{ "100 1 10\n50 1 10\n", "line 2: time 50 ms goes back" },
	{ "#! model alpha=0.001 interval=400\n0 1 10\n", "line 1: expected \"#! model" },
	{ "#! model alpha=1.5 interval=400 max_interval=800\n0 1 10\n", "line 1: expected \"#! model" },
	{ "#! model alpha=0.01 interval=400 max_interval=200\n0 1 10\n", "line 1: expected \"#! model" },
	{ "0 1 10\n#! hang\n", "line 2: expected \"#! hang T_MS\"" },
	{ "0 1 10\n#! slowdown 5 ms\n", "line 2: expected \"#! slowdown T_MS\"" },
	{ "0 1 10\n#! suspect\n", "line 2: expected \"#! suspect T_MS\"" },
};

START_TEST(malformed_lines_are_named)
{
	const struct bad_case *bc = &bad_cases[_i];
	struct trace tr;
	char err[256] = "";

	ck_assert_int_eq(parse_text(bc->text, &tr, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, bc->message), "for %s: got '%s', want '%s'", bc->text, err,
		      bc->message);
	ck_assert_ptr_null(tr.points);
}
END_TEST

/* The progress field: each letter counted as the monitor counted it (moved, still, ...). */
START_TEST(progress_letters_are_counted)
{
	struct trace tr;
	char err[256] = "";

	ck_assert_int_eq(parse_text("#! watch sets=1 confirm=15\n0 2 8 masiouk-\n1 0 8 SIUsssss\n2 1 8\n", &tr,
				    err, sizeof(err)), 0);
	ck_assert_int_eq(tr.has_watch, 1);
	ck_assert_int_eq(tr.nsets, 1);
	ck_assert_double_eq(tr.confirm_s, 15);
	ck_assert(tr.points[0].has_progress);
	ck_assert_int_eq(tr.points[0].live, 7);
	ck_assert_int_eq(tr.points[0].moved, 2);
	ck_assert_int_eq(tr.points[0].still, 2);
	ck_assert_int_eq(tr.points[0].kernel, 1);
	ck_assert_int_eq(tr.points[0].init, 0);
	ck_assert_int_eq(tr.points[1].init, 3);
	ck_assert_int_eq(tr.points[1].still, 7);
	ck_assert(!tr.points[2].has_progress);
	trace_free(&tr);
}
END_TEST

START_TEST(write_then_parse_round_trip)
{
	char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct trace tr;
	char err[256];

	ck_assert_int_eq(trace_write_point(f, 12.5, 3, 10, NULL), 0);
	ck_assert_int_eq(trace_write_point(f, 400, 0, 10, NULL), 0);
	fclose(f);
	ck_assert_int_eq(parse_text(buf, &tr, err, sizeof(err)), 0);
	ck_assert_uint_eq(tr.len, 2);
	ck_assert_double_eq(tr.points[0].t_ms, 12.5);
	trace_free(&tr);
}
END_TEST

START_TEST(directives_carry_the_model_and_the_checks)
{
	char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct trace tr;
	char err[256] = "";

	ck_assert_int_eq(trace_write_model(f, 0.01, 200, 3200), 0);
	ck_assert_int_eq(trace_write_point(f, 0, 3, 10, NULL), 0);
	ck_assert_int_eq(trace_write_event(f, 0, TRACE_EVENT_SLOWDOWN), 0);
	ck_assert_int_eq(trace_write_point(f, 400, 0, 10, NULL), 0);
	ck_assert_int_eq(trace_write_event(f, 400, TRACE_EVENT_SUSPECT), 0);
	ck_assert_int_eq(trace_write_event(f, 400, TRACE_EVENT_HANG), 0);
	fputs("#! someday-more 1 2 3\n", f);
	fclose(f);
	ck_assert_int_eq(parse_text(buf, &tr, err, sizeof(err)), 0);
	ck_assert_uint_eq(tr.len, 2);
	ck_assert_int_eq(tr.has_model, 1);
	ck_assert_double_eq(tr.alpha, 0.01);
	ck_assert_double_eq(tr.interval_ms, 200);
	ck_assert_double_eq(tr.max_interval_ms, 3200);
	ck_assert_uint_eq(tr.nevents, 3);
	ck_assert_int_eq(tr.events[0].kind, TRACE_EVENT_SLOWDOWN);
	ck_assert_double_eq(tr.events[1].t_ms, 400);
	ck_assert_int_eq(tr.events[1].kind, TRACE_EVENT_SUSPECT);
	ck_assert_int_eq(tr.events[2].kind, TRACE_EVENT_HANG);
	trace_free(&tr);
}
END_TEST

/* A trace of `points` samples `step` ms apart: a healthy first `healthy` of them alternating high
 * and low, then S = 0 for good. */
static void hang_trace(struct trace *tr, char *buf, size_t len, bool recorded, int points,
		       int healthy, double step)
{
	FILE *f = fmemopen(buf, len, "w");
	char err[256];

	if (recorded)
		trace_write_model(f, 0.001, 400, 30000);
	for (int i = 0; i < points; i++)
		trace_write_point(f, i * step, i < healthy ? (i * 7 % 5) * 2 + (i % 2) : 0, 10, NULL);
	fclose(f);
	ck_assert_int_eq(parse_text(buf, tr, err, sizeof(err)), 0);
}

START_TEST(timeline_follows_every_recorded_sample)
{
	static char buf[8192];
	struct trace tr;
	struct timeline tl;
	struct detector_config cfg;
	size_t first = 0;

	hang_trace(&tr, buf, sizeof(buf), true, 200, 60, 400.0);
	detector_config_default(&cfg);
	ck_assert_int_eq(timeline_build(&tr, &cfg, false, &tl), 0);
	ck_assert_uint_eq(tl.len, tr.len);
	ck_assert_int_eq(tl.rows[0].threshold, -1); /* the model is still building */
	ck_assert(tl.first_hang_ms > 60 * 400.0);
	while (tl.rows[first].verdict != DETECTOR_HANG)
		first++;
	ck_assert_double_eq(tl.rows[first].t_ms, tl.first_hang_ms);
	ck_assert_int_ge(tl.rows[first].threshold, 0);
	timeline_free(&tl);
	trace_free(&tr);
}
END_TEST

/* The last sample that showed the job computing before the hang: before the hang began (the
 * 60th sample), above its threshold, and nothing above the threshold after it until the verdict. */
START_TEST(timeline_marks_the_last_progress_before_the_hang)
{
	static char buf[8192];
	struct trace tr;
	struct timeline tl;
	struct detector_config cfg;

	hang_trace(&tr, buf, sizeof(buf), true, 200, 60, 400.0);
	detector_config_default(&cfg);
	ck_assert_int_eq(timeline_build(&tr, &cfg, false, &tl), 0);
	ck_assert(tl.last_progress_ms >= 0 && tl.last_progress_ms < 60 * 400.0);
	for (size_t i = 0; i < tl.len && tl.rows[i].t_ms < tl.first_hang_ms; i++) {
		const struct timeline_row *r = &tl.rows[i];

		if (r->t_ms == tl.last_progress_ms)
			ck_assert_int_gt(r->s, r->threshold);
		if (r->t_ms > tl.last_progress_ms)
			ck_assert_int_le(r->s, r->threshold);
	}
	timeline_free(&tl);
	trace_free(&tr);
	/* No hang, no mark. */
	hang_trace(&tr, buf, sizeof(buf), true, 200, 200, 400.0);
	ck_assert_int_eq(timeline_build(&tr, &cfg, false, &tl), 0);
	ck_assert(tl.first_hang_ms < 0 && tl.last_progress_ms < 0);
	timeline_free(&tl);
	trace_free(&tr);
}
END_TEST

/* A suspicion dismissed (the job moved on), progress after it, then the hang the monitor
 * reported: the mark is the progress before that hang's suspicion, as the report's
 * last_progress_at is, never one before the dismissed suspicion; samples inside the dismissed
 * suspicion's confirmation do not count. */
START_TEST(timeline_marks_progress_after_a_dismissed_suspicion)
{
	static char buf[16384];
	struct trace tr;
	struct timeline tl;
	struct detector_config cfg;
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	char err[256];
	const double step = 400.0;

	trace_write_model(f, 0.001, 400, 30000);
	for (int i = 0; i < 200; i++) {
		bool still = (i >= 60 && i < 80) || i >= 120;

		trace_write_point(f, i * step, still ? 0 : (i * 7 % 5) * 2 + (i % 2), 10, NULL);
		if (i == 70 || i == 130)
			trace_write_event(f, i * step, TRACE_EVENT_SUSPECT);
		if (i == 80)
			trace_write_event(f, i * step, TRACE_EVENT_SLOWDOWN);
		if (i == 150)
			trace_write_event(f, i * step, TRACE_EVENT_HANG);
	}
	fclose(f);
	ck_assert_int_eq(parse_text(buf, &tr, err, sizeof(err)), 0);
	detector_config_default(&cfg);
	ck_assert_int_eq(timeline_build(&tr, &cfg, false, &tl), 0);
	ck_assert_msg(tl.last_progress_ms >= 80 * step && tl.last_progress_ms < 120 * step,
		      "last progress at %.0f ms, want the healthy stretch after the dismissal (32000-48000)",
		      tl.last_progress_ms);
	timeline_free(&tl);
	trace_free(&tr);
}
END_TEST

START_TEST(timeline_resamples_a_dense_trace_like_replay)
{
	static char buf[65536];
	struct trace tr;
	struct timeline tl;
	struct detector_config cfg;
	struct replay_trace rt;
	struct replay_source src;
	struct replay_result res;

	hang_trace(&tr, buf, sizeof(buf), false, 2000, 1000, 100.0);
	detector_config_default(&cfg);
	cfg.seed = 5;
	ck_assert_int_eq(timeline_build(&tr, &cfg, true, &tl), 0);
	ck_assert_uint_lt(tl.len, tr.len / 2);
	replay_trace_source(&src, &rt, &tr);
	ck_assert_int_eq(replay_run(&src, &cfg, &res), 0);
	ck_assert(res.hang);
	ck_assert_double_eq(tl.first_hang_ms, res.detected_at_ms);
	timeline_free(&tl);
	trace_free(&tr);
}
END_TEST

START_TEST(missing_file_is_an_error)
{
	struct trace tr;
	char err[256];

	ck_assert_int_eq(trace_load("/nonexistent/parastack.trace", &tr, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "cannot open"));
}
END_TEST

Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, parses_samples_comments_and_blank_lines);
	tcase_add_loop_test(tc, malformed_lines_are_named, 0, sizeof(bad_cases) / sizeof(bad_cases[0]));
	tcase_add_test(tc, write_then_parse_round_trip);
	tcase_add_test(tc, progress_letters_are_counted);
	tcase_add_test(tc, missing_file_is_an_error);
	tcase_add_test(tc, directives_carry_the_model_and_the_checks);
	tcase_add_test(tc, timeline_follows_every_recorded_sample);
	tcase_add_test(tc, timeline_resamples_a_dense_trace_like_replay);
	tcase_add_test(tc, timeline_marks_the_last_progress_before_the_hang);
	tcase_add_test(tc, timeline_marks_progress_after_a_dismissed_suspicion);
	suite_add_tcase(s, tc);
	return s;
}
