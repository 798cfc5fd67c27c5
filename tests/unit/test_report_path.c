/* SPDX-License-Identifier: BSD-3-Clause */
/* report_path — a path as the text report shows it (issue 67): C++ template arguments
 * shortened, and frames dropped from the outside in, native ones before Python ones, the call
 * and the program's own line never; whatever the input, the result fits. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "../../monitor/hang/report_path.h"

START_TEST(templates_shortened)
{
	char out[300];

	report_frame_short("c10d::ProcessGroupGloo::AsyncWork::execute(c10::intrusive_ptr<c10d::ProcessGroupGloo::"
			   "AsyncWork, c10::detail::intrusive_target_default_null_type<c10d::ProcessGroupGloo::"
			   "AsyncWork>>)", out, sizeof(out));
	ck_assert_str_eq(out, "c10d::ProcessGroupGloo::AsyncWork::execute(c10::intrusive_ptr<…>)");
	report_frame_short("std::vector<int, std::allocator<int> >::push_back(int const&)", out, sizeof(out));
	ck_assert_str_eq(out, "std::vector<…>::push_back(int const&)");
	/* Not templates: Python's <module>, operators, a comparison in a name. */
	report_frame_short("<module> (train.py:3)", out, sizeof(out));
	ck_assert_str_eq(out, "<module> (train.py:3)");
	report_frame_short("operator<<(std::ostream&, int)", out, sizeof(out));
	ck_assert_str_eq(out, "operator<<(std::ostream&, int)");
	/* Cut before it closed: shortened to there. */
	report_frame_short("f(std::map<int, std::vector<int", out, sizeof(out));
	ck_assert_str_eq(out, "f(std::map<…>");
	report_frame_short("x<", out, sizeof(out));
	ck_assert_str_eq(out, "x<");
}
END_TEST

START_TEST(short_path_kept_whole)
{
	char out[300];

	report_path_short("main (t.py:4) > all_reduce (c10d.py:9) > gloo::wait", NULL, 200, out, sizeof(out));
	ck_assert_str_eq(out, "main (t.py:4) > all_reduce (c10d.py:9) > gloo::wait");
	report_path_short("", NULL, 200, out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(native_frames_dropped_first)
{
	char out[400];
	const char *path = "__clone3 > start_thread > libstdc++.so.6+0xd44a3 > <module> (t.py:118) > main (t.py:106) > "
			   "backward (__init__.py:197) > torch::autograd::Engine::thread_main(std::shared_ptr<torch::"
			   "autograd::GraphTask> const&) > c10d::Reducer::finalize_backward() > "
			   "[gloo worker: waits in libgloo.so.0.5.0]";

	report_path_short(path, "main (t.py:106)", 124, out, sizeof(out));
	ck_assert_msg(strlen(out) <= 124, "%zu: %s", strlen(out), out);
	ck_assert_str_eq(out, "… > <module> (t.py:118) > main (t.py:106) > backward (__init__.py:197) > … > "
			      "[gloo worker: waits in libgloo.so.0.5.0]");
	/* Tighter: Python frames go too, from the outside, the program's own line last. */
	report_path_short(path, "main (t.py:106)", 90, out, sizeof(out));
	ck_assert_msg(strlen(out) <= 90, "%zu: %s", strlen(out), out);
	ck_assert_str_eq(out, "… > main (t.py:106) > … > [gloo worker: waits in libgloo.so.0.5.0]");
}
END_TEST

START_TEST(any_length_fits)
{
	static char path[64 * 1024], out[256];
	size_t o = 0;

	for (int i = 0; o + 40 < sizeof(path); i++)
		o += (size_t)snprintf(path + o, sizeof(path) - o, "%sf%d<int, g<char>>(x)", i ? " > " : "", i);
	report_path_short(path, NULL, 200, out, sizeof(out));
	ck_assert_uint_lt(strlen(out), sizeof(out));
	report_path_short(path, NULL, 10000, out, sizeof(out));
	ck_assert_uint_lt(strlen(out), sizeof(out));
}
END_TEST

Suite *report_path_suite(void)
{
	Suite *s = suite_create("report_path");
	TCase *tc = tcase_create("short");

	tcase_add_test(tc, templates_shortened);
	tcase_add_test(tc, short_path_kept_whole);
	tcase_add_test(tc, native_frames_dropped_first);
	tcase_add_test(tc, any_length_fits);
	suite_add_tcase(s, tc);
	return s;
}
