/* Tests of the trace parser: good input, and every malformed line named by number. */
#include <stdio.h>
#include <string.h>

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
	{ "0 1 10 7\n", "line 1: unexpected text" },
	{ "0 11 10\n", "line 1: S = 11 is outside 0..C" },
	{ "0 -1 10\n", "line 1: S = -1 is outside" },
	{ "0 0 0\n", "line 1: set size C = 0" },
	{ "0 0 99999999999\n", "line 1: set size C = 99999999999 is out of range" },
	{ "0 1 10\n1 1 10\n2 1 12\n", "line 3: set size C = 12 differs" },
	{ "100 1 10\n50 1 10\n", "line 2: time 50 ms goes back" },
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

START_TEST(write_then_parse_round_trip)
{
	char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct trace tr;
	char err[256];

	ck_assert_int_eq(trace_write_point(f, 12.5, 3, 10), 0);
	ck_assert_int_eq(trace_write_point(f, 400, 0, 10), 0);
	fclose(f);
	ck_assert_int_eq(parse_text(buf, &tr, err, sizeof(err)), 0);
	ck_assert_uint_eq(tr.len, 2);
	ck_assert_double_eq(tr.points[0].t_ms, 12.5);
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
	tcase_add_test(tc, missing_file_is_an_error);
	suite_add_tcase(s, tc);
	return s;
}
