/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the frame walk for every CPython layout parastack knows (issue 66): one memory image
 * built from each version's own offsets (pyframes.h's struct py_layout) — its runtime, an
 * interpreter, the thread, two frames of one code object, with a C call's shim frame between
 * them where the version has them (3.12+) — walked and described with its line table's format
 * (3.8-3.9's co_lnotab, 3.10's co_linetable, 3.11+'s locations); 3.8-3.10's thread known by its
 * pthread_t, the others' by their native id; a chain that loops and a pointer out of the image
 * stop cleanly, for every version. */
#include <stdint.h>
#include <string.h>

#include "../../monitor/sample/stop/pyframes.h"
#include "../lib/fakemem.h"
#include "suites.h"

#define BASE 0x100000ULL
#define TID 42
#define PTHREAD 0x7f0000001000ULL
/* Where the image keeps each object (offsets from BASE): room for 3.13's interpreter state. */
enum { RUNTIME = 0, INTERP = 1024, TSTATE = 9000, CFRAME = 9400, F0 = 9600, SHIM = 9800, F1 = 10000,
       CODE = 10400, FILE_STR = 11000, NAME_STR = 11200, TABLE = 11600, IMAGE = 16384 };

static uint8_t mem[IMAGE];

static struct fakemem remote = { BASE, mem, sizeof(mem) };

static void p64(size_t off, uint64_t v)
{
	fakemem_put64(&remote, off, v);
}

/* A compact ASCII str object at off. */
static void str_at(const struct py_layout *L, size_t off, const char *text)
{
	uint32_t state = (1u << 5) | (1u << 6) | (1u << 2);

	p64(off + L->str_length, strlen(text));
	memcpy(mem + off + L->str_state, &state, 4);
	memcpy(mem + off + L->str_ascii_data, text, strlen(text));
}

/* A line table in L's format where frame 0's instruction is at line 7 and frame 1's at line 4
 * (first line 2), and the instruction values that say so. */
static const uint8_t table_311[] = { 128, 0, 216, 8, 9, 136, 65, 137, 5, 128, 65, 216, 8, 9, 136, 65, 137, 5, 128,
				     65, 229, 13, 18, 144, 49, 137, 88, 140, 88, 240, 0, 1, 5, 15, 240, 0, 1, 5, 15, 136,
				     1, 216, 8, 9, 136, 81, 137, 6, 136, 1, 136, 1, 216, 11, 12, 128, 72 };
static const uint8_t lnotab[] = { 10, 2, 20, 3 };   /* bytes 10-29: line 4, from 30: line 7 */
/* bytes [0, 12): line 4, [12, 32): line 7, [32, 72): line 8 */
static const uint8_t table_310[] = { 12, 2, 20, 3, 40, 1 };

static void lines_of(const struct py_layout *L, uint64_t *instr0, uint64_t *instr1)
{
	const uint8_t *t = L->lines == PY_LNOTAB ? lnotab : L->lines == PY_LINETABLE_310 ? table_310 : table_311;
	size_t n = L->lines == PY_LNOTAB ? sizeof(lnotab) : L->lines == PY_LINETABLE_310 ? sizeof(table_310) :
										     sizeof(table_311);

	p64(TABLE + L->bytes_size, n);
	memcpy(mem + TABLE + L->bytes_data, t, n);
	if (L->lines == PY_LNOTAB)
		*instr0 = 40, *instr1 = 12;       /* f_lasti in bytes */
	else if (L->lines == PY_LINETABLE_310)
		*instr0 = 10, *instr1 = 3;        /* f_lasti in code units: bytes 20 and 6 */
	else
		*instr0 = BASE + CODE + L->code_adaptive + 2 * 28, *instr1 = BASE + CODE + L->code_adaptive + 2 * 6;
}

/* Frame at off: code, previous, instruction; owner 0 (a thread's) where the version has one. */
static void frame_at(const struct py_layout *L, size_t off, uint64_t previous, uint64_t instr)
{
	p64(off + L->frame_code, BASE + CODE);
	p64(off + L->frame_previous, previous);
	if (L->frames == PY_FRAME_OBJECTS) {
		int32_t lasti = (int32_t)instr;

		memcpy(mem + off + L->frame_instr, &lasti, 4);
	} else {
		p64(off + L->frame_instr, instr);
	}
}

/* The image of a thread running two frames of one code object ("f.py", "f"); frame 1's previous
 * is last (0: none). 3.11 marks frame 1 an entry; 3.12+ put a shim frame before it. */
static void image(const struct py_layout *L, uint64_t last)
{
	uint64_t i0, i1, f1_from = BASE + F1;
	int32_t first = 2;

	memset(mem, 0, sizeof(mem));
	p64(RUNTIME + L->runtime_interp_head, BASE + INTERP);
	p64(INTERP + L->interp_threads_head, BASE + TSTATE);
	if (L->tstate_native_id != PY_NO_FIELD)
		p64(TSTATE + L->tstate_native_id, TID);
	p64(TSTATE + L->tstate_thread_id, PTHREAD);
	if (L->cframe_current != PY_NO_FIELD) {
		p64(TSTATE + L->tstate_frame, BASE + CFRAME);
		p64(CFRAME + L->cframe_current, BASE + F0);
	} else {
		p64(TSTATE + L->tstate_frame, BASE + F0);
	}
	lines_of(L, &i0, &i1);
	if (L->frame_owner != PY_NO_FIELD) {
		f1_from = BASE + SHIM;
		p64(SHIM + L->frame_code, BASE + CODE);
		p64(SHIM + L->frame_previous, BASE + F1);
		mem[SHIM + L->frame_owner] = 3;
	}
	frame_at(L, F0, f1_from, i0);
	frame_at(L, F1, last, i1);
	if (L->frame_entry != PY_NO_FIELD)
		mem[F1 + L->frame_entry] = 1;
	p64(CODE + L->code_filename, BASE + FILE_STR);
	p64(CODE + L->code_qualname, BASE + NAME_STR);
	memcpy(mem + CODE + L->code_firstlineno, &first, 4);
	p64(CODE + L->code_linetable, BASE + TABLE);
	str_at(L, FILE_STR, "f.py");
	str_at(L, NAME_STR, "f");
}

static void expect_line(const struct py_layout *L, const struct pyframe_raw *f, int want)
{
	char file[64], func[64];
	int line = 0;

	ck_assert(pyframes_describe(L, fakemem_read, &remote, f, file, sizeof(file), func, sizeof(func), &line));
	ck_assert_str_eq(file, "f.py");
	ck_assert_str_eq(func, "f");
	ck_assert_msg(line == want, "CPython 3.%d: line %d, want %d", L->minor, line, want);
}

START_TEST(every_version_walks_and_describes_its_frames)
{
	for (int minor = PY_MINOR_FIRST; minor <= PY_MINOR_LAST; minor++) {
		const struct py_layout *L = pyframes_layout(minor);
		struct pyframe_raw f[PY_MAX_FRAMES];
		bool by_pthread = L->tstate_native_id == PY_NO_FIELD;

		ck_assert_ptr_nonnull(L);
		ck_assert_int_eq(L->minor, minor);
		image(L, 0);
		ck_assert_msg(pyframes_walk(L, BASE, TID, PTHREAD, fakemem_read, &remote, f, PY_MAX_FRAMES) == 2,
			      "CPython 3.%d: two frames (the shim left out)", minor);
		expect_line(L, &f[0], 7);
		expect_line(L, &f[1], 4);
		/* Which frame ends an evaluation-loop call: every frame object; 3.11's entry flag;
		 * the frame before a shim in 3.12+. */
		if (L->frames == PY_FRAME_OBJECTS)
			ck_assert(f[0].entry && f[1].entry);
		else
			ck_assert_msg(f[0].entry == (L->frame_owner != PY_NO_FIELD) && f[1].entry == (L->frame_entry != PY_NO_FIELD),
				      "CPython 3.%d: entry flags %d %d", minor, f[0].entry, f[1].entry);
		/* Another thread: by its native id, or (3.8-3.10) its pthread_t. */
		ck_assert_int_eq(pyframes_walk(L, BASE, by_pthread ? TID : TID + 1, by_pthread ? PTHREAD + 64 : PTHREAD,
					       fakemem_read, &remote, f, PY_MAX_FRAMES), 0);
	}
	ck_assert_ptr_null(pyframes_layout(PY_MINOR_FIRST - 1));
	ck_assert_ptr_null(pyframes_layout(PY_MINOR_LAST + 1));
}
END_TEST

START_TEST(every_version_stops_cleanly_on_forged_chains)
{
	for (int minor = PY_MINOR_FIRST; minor <= PY_MINOR_LAST; minor++) {
		const struct py_layout *L = pyframes_layout(minor);
		struct pyframe_raw f[PY_MAX_FRAMES];
		int64_t huge = INT64_MAX;
		char file[64], func[64];
		int line = 0;

		/* A chain that loops back to its first frame: bounded by the frames asked for. */
		image(L, BASE + F0);
		int n = pyframes_walk(L, BASE, TID, PTHREAD, fakemem_read, &remote, f, PY_MAX_FRAMES);

		ck_assert_msg(n > 2 && n <= PY_MAX_FRAMES, "CPython 3.%d: %d frames of a loop", minor, n);
		/* A previous pointer into unmapped memory: the frames read so far. */
		image(L, 0xdeadbeef000ULL);
		ck_assert_int_eq(pyframes_walk(L, BASE, TID, PTHREAD, fakemem_read, &remote, f, PY_MAX_FRAMES), 2);
		/* A huge line table: no line, the names still. */
		memcpy(mem + TABLE + L->bytes_size, &huge, 8);
		ck_assert(pyframes_describe(L, fakemem_read, &remote, &f[0], file, sizeof(file), func, sizeof(func), &line));
		ck_assert_int_eq(line, -1);
		/* The thread list looping on itself: bounded, no frames of another thread. */
		image(L, 0);
		p64(TSTATE + L->tstate_next, BASE + TSTATE);
		ck_assert_int_eq(pyframes_walk(L, BASE, TID + 7, PTHREAD + 64, fakemem_read, &remote, f, PY_MAX_FRAMES), 0);
	}
}
END_TEST

START_TEST(old_line_tables)
{
	/* 3.8-3.9's co_lnotab: (address, line) increments; a negative line increment too. */
	static const uint8_t neg[] = { 6, 3, 4, 0xfe }; /* bytes 6-9: line 5, from 10: line 3 */

	ck_assert_int_eq(pyframes_line_lnotab(lnotab, sizeof(lnotab), 2, 0), 2);
	ck_assert_int_eq(pyframes_line_lnotab(lnotab, sizeof(lnotab), 2, 12), 4);
	ck_assert_int_eq(pyframes_line_lnotab(lnotab, sizeof(lnotab), 2, 40), 7);
	ck_assert_int_eq(pyframes_line_lnotab(neg, sizeof(neg), 2, 7), 5);
	ck_assert_int_eq(pyframes_line_lnotab(neg, sizeof(neg), 2, 11), 3);
	/* 3.10's co_linetable: ranges with a line delta; -128: no line. */
	static const uint8_t none[] = { 4, 1, 4, 0x80, 4, 2 }; /* [0,4): 3, [4,8): none, [8,12): 5 */

	ck_assert_int_eq(pyframes_line_310(table_310, sizeof(table_310), 2, 6), 4);
	ck_assert_int_eq(pyframes_line_310(table_310, sizeof(table_310), 2, 20), 7);
	ck_assert_int_eq(pyframes_line_310(table_310, sizeof(table_310), 2, 40), 8);
	ck_assert_int_eq(pyframes_line_310(table_310, sizeof(table_310), 2, 72), -1); /* past the code */
	ck_assert_int_eq(pyframes_line_310(none, sizeof(none), 2, 5), -1);
	ck_assert_int_eq(pyframes_line_310(none, sizeof(none), 2, 9), 5);
	ck_assert_int_eq(pyframes_line_310(none, 3, 2, 9), -1); /* cut short */
}
END_TEST

Suite *pylayouts_suite(void)
{
	Suite *s = suite_create("pylayouts");
	TCase *t = tcase_create("versions");

	tcase_add_test(t, every_version_walks_and_describes_its_frames);
	tcase_add_test(t, every_version_stops_cleanly_on_forged_chains);
	tcase_add_test(t, old_line_tables);
	suite_add_tcase(s, t);
	return s;
}
