/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the Python frame walker (monitor/sample/stop/pyframes.c) on memory images: a line table
 * CPython 3.11 wrote (its lines checked against co_lines()), a well-formed chain, and corrupt
 * ones (a frame chain that loops, pointers out of the image, a huge table length): each stops
 * cleanly with what it read. */
#include <stdint.h>
#include <string.h>

#include "../../monitor/sample/stop/pyframes.h"
#include "../lib/fakemem.h"
#include "suites.h"

/* def f(a): x = a + 1 / y = x * 2 / (blank) / for i in range(3): y += i / return y, defined
 * at line 2: its co_linetable from python3.11. */
static const uint8_t table_f[] = { 128, 0, 216, 8, 9, 136, 65, 137, 5, 128, 65, 216, 8, 9, 136, 65, 137, 5, 128,
				   65, 229, 13, 18, 144, 49, 137, 88, 140, 88, 240, 0, 1, 5, 15, 240, 0, 1, 5, 15, 136,
				   1, 216, 8, 9, 136, 81, 137, 6, 136, 1, 136, 1, 216, 11, 12, 128, 72 };

START_TEST(line_table_of_cpython_311)
{
	/* code unit -> line, as co_lines() says */
	static const int want[][2] = { { 0, 2 }, { 1, 3 }, { 4, 3 }, { 6, 4 }, { 10, 4 }, { 11, 6 }, { 27, 6 },
				       { 28, 7 }, { 33, 7 }, { 34, 8 }, { 35, 8 } };

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_int_eq(pyframes_line(table_f, sizeof(table_f), 2, (uint64_t)want[i][0]), want[i][1]);
	ck_assert_int_eq(pyframes_line(table_f, sizeof(table_f), 2, 36), -1);
	ck_assert_int_eq(pyframes_line(table_f, 5, 2, 30), -1); /* cut short */

	/* Forged: entries whose line deltas are as large as a varint says (the fuzzer's find: a
	 * signed overflow); bounded, no line. */
	uint8_t forged[40 * 12];

	for (int e = 0; e < 40; e++) {
		forged[e * 12] = 0x80 | (13 << 3);
		memset(forged + e * 12 + 1, 0x7e, 10);
		forged[e * 12 + 11] = 0x3e;
	}
	ck_assert_int_eq(pyframes_line(forged, sizeof(forged), 1, 1000), -1);
}
END_TEST

#define BASE 0x10000ULL
static uint8_t mem[4096];

static struct fakemem remote = { BASE, mem, sizeof(mem) };

static void p64(size_t off, uint64_t v)
{
	fakemem_put64(&remote, off, v);
}

/* runtime at 0 -> interpreter at 256 -> thread 42 at 512 -> cframe at 768 -> frames at 1024 and
 * 1280 (the second an entry frame), both running code at 2048 ("f.py", line table of f). */
static void image(uint64_t second_previous)
{
	uint32_t state = (1u << 5) | (1u << 6) | (1u << 2), first = 2;
	int64_t tlen = sizeof(table_f);

	memset(mem, 0, sizeof(mem));
	p64(40, BASE + 256);
	p64(256 + 16, BASE + 512);
	p64(512 + 160, 42);
	p64(512 + 56, BASE + 768);
	p64(768 + 8, BASE + 1024);
	p64(1024 + 32, BASE + 2048);
	p64(1024 + 56, BASE + 2048 + 184 + 2 * 28); /* unit 28: line 7 */
	p64(1024 + 48, BASE + 1280);
	p64(1280 + 32, BASE + 2048);
	p64(1280 + 56, BASE + 2048 + 184 + 2 * 6); /* unit 6: line 4 */
	mem[1280 + 68] = 1;
	p64(1280 + 48, second_previous);
	p64(2048 + 112, BASE + 3072);
	p64(2048 + 128, BASE + 3072);
	memcpy(mem + 2048 + 72, &first, 4);
	p64(2048 + 136, BASE + 3584);
	p64(3072 + 16, 4);
	memcpy(mem + 3072 + 32, &state, 4);
	memcpy(mem + 3072 + 48, "f.py", 4);
	memcpy(mem + 3584 + 16, &tlen, 8);
	memcpy(mem + 3584 + 32, table_f, sizeof(table_f));
}

START_TEST(a_chain_read_and_described)
{
	struct pyframe_raw f[PY_MAX_FRAMES];
	const struct py_layout *L = pyframes_layout(11);
	char file[64], func[64];
	int line = 0;

	image(0);
	ck_assert_int_eq(pyframes_walk(L, BASE, 42, 0, fakemem_read, &remote, f, PY_MAX_FRAMES), 2);
	ck_assert(!f[0].entry && f[1].entry);
	ck_assert(pyframes_describe(L, fakemem_read, &remote, &f[0], file, sizeof(file), func, sizeof(func), &line));
	ck_assert_str_eq(file, "f.py");
	ck_assert_int_eq(line, 7);
	ck_assert(pyframes_describe(L, fakemem_read, &remote, &f[1], file, sizeof(file), func, sizeof(func), &line));
	ck_assert_int_eq(line, 4);
	/* The same frames read through the thread's data-stack chunk in one piece. */
	p64(512 + 296, BASE + 1024);
	p64(512 + 304, BASE + 1024 + 512);
	ck_assert_int_eq(pyframes_walk(L, BASE, 42, 0, fakemem_read, &remote, f, PY_MAX_FRAMES), 2);
	ck_assert(f[0].code == BASE + 2048 && f[1].entry);
	/* A chunk the reader refuses (out of the image): frame by frame still. */
	p64(512 + 304, BASE + 1024 + 100000);
	ck_assert_int_eq(pyframes_walk(L, BASE, 42, 0, fakemem_read, &remote, f, PY_MAX_FRAMES), 2);
	/* Another thread: none of its frames. */
	ck_assert_int_eq(pyframes_walk(L, BASE, 43, 0, fakemem_read, &remote, f, PY_MAX_FRAMES), 0);
	ck_assert_ptr_null(pyframes_layout(99));
}
END_TEST

START_TEST(corrupt_memory_stops_cleanly)
{
	struct pyframe_raw f[PY_MAX_FRAMES];
	const struct py_layout *L = pyframes_layout(11);
	char file[64], func[64];
	int line = 0;
	int64_t huge = INT64_MAX;

	/* A chain that loops: bounded by the frames asked for. */
	image(BASE + 1024);
	ck_assert_int_eq(pyframes_walk(L, BASE, 42, 0, fakemem_read, &remote, f, PY_MAX_FRAMES), PY_MAX_FRAMES);
	/* A previous pointer out of the image: the frames read so far. */
	image(0xdeadbeef);
	ck_assert_int_eq(pyframes_walk(L, BASE, 42, 0, fakemem_read, &remote, f, PY_MAX_FRAMES), 2);
	/* A huge line table: no line, the names still. */
	image(0);
	memcpy(mem + 3584 + 16, &huge, 8);
	ck_assert_int_eq(pyframes_walk(L, BASE, 42, 0, fakemem_read, &remote, f, PY_MAX_FRAMES), 2);
	ck_assert(pyframes_describe(L, fakemem_read, &remote, &f[0], file, sizeof(file), func, sizeof(func), &line));
	ck_assert_int_eq(line, -1);
	/* A string longer than the buffer, of garbage: cut, printable. */
	p64(3072 + 16, 1000000);
	ck_assert(pyframes_describe(L, fakemem_read, &remote, &f[0], file, sizeof(file), func, sizeof(func), &line));
	ck_assert_uint_lt(strlen(file), sizeof(file));
	/* A code pointer out of the image: refused. */
	p64(1024 + 32, 0x1);
	ck_assert(!pyframes_describe(L, fakemem_read, &remote, &f[0], file, sizeof(file), func, sizeof(func), &line) ||
		  f[0].code != 0x1);
	/* No runtime: nothing. */
	ck_assert_int_eq(pyframes_walk(L, 0, 42, 0, fakemem_read, &remote, f, PY_MAX_FRAMES), 0);
	ck_assert_int_eq(pyframes_walk(NULL, BASE, 42, 0, fakemem_read, &remote, f, PY_MAX_FRAMES), 0);
}
END_TEST

Suite *pyframes_suite(void)
{
	Suite *s = suite_create("pyframes");
	TCase *tc = tcase_create("walk");

	tcase_add_test(tc, line_table_of_cpython_311);
	tcase_add_test(tc, a_chain_read_and_described);
	tcase_add_test(tc, corrupt_memory_stops_cleanly);
	suite_add_tcase(s, tc);
	return s;
}
