/* SPDX-License-Identifier: BSD-3-Clause */
/* pylayouts — where each CPython minor version keeps what pyframes.c reads (pyframes.h's struct
 * py_layout): offsetof on each version's own headers, internal ones included, for x86_64 and a
 * release build (no Py_TRACE_REFS). Written once per version; tests/cli/test-python.sh compiles
 * tests/tools/pyoffsets.c against every interpreter the machine has and holds these tables to
 * it field by field. */
#include "pyframes.h"

#define NO PY_NO_FIELD

/* 3.8-3.10: PyFrameObject chains; they differ in where f_lasti is (and what it counts: bytes,
 * then 3.10's code units) and in the line table's format. */
#define FRAME_OBJECTS_LAYOUT(m, line_format, lasti)                                                              \
	{                                                                                                        \
		.minor = m, .frames = PY_FRAME_OBJECTS, .lines = line_format,                                    \
		.runtime_interp_head = 32, .interp_next = 0, .interp_threads_head = 8,                           \
		.tstate_next = 8, .tstate_native_id = NO, .tstate_thread_id = 176, .tstate_frame = 24,           \
		.cframe_current = NO, .tstate_chunk = NO, .tstate_top = NO,                                      \
		.frame_code = 32, .frame_previous = 24, .frame_instr = lasti, .frame_entry = NO, .frame_owner = NO, \
		.code_filename = 104, .code_qualname = 112, .code_firstlineno = 40, .code_linetable = 120,       \
		.code_adaptive = NO, .bytes_size = 16, .bytes_data = 32, .str_length = 16, .str_state = 32,      \
		.str_ascii_data = 48, .str_compact_data = 72,                                                    \
	}

static const struct py_layout layout_38 = FRAME_OBJECTS_LAYOUT(8, PY_LNOTAB, 104);
static const struct py_layout layout_39 = FRAME_OBJECTS_LAYOUT(9, PY_LNOTAB, 104);
static const struct py_layout layout_310 = FRAME_OBJECTS_LAYOUT(10, PY_LINETABLE_310, 96);

/* 3.11: _PyInterpreterFrame on the data stack, reached through the thread's _PyCFrame. */
static const struct py_layout layout_311 = {
	.minor = 11, .frames = PY_INTERP_FRAMES, .lines = PY_LOCATIONS,
	.runtime_interp_head = 40, .interp_next = 0, .interp_threads_head = 16,
	.tstate_next = 8, .tstate_native_id = 160, .tstate_thread_id = 152, .tstate_frame = 56, .cframe_current = 8,
	.tstate_chunk = 296, .tstate_top = 304,
	.frame_code = 32, .frame_previous = 48, .frame_instr = 56, .frame_entry = 68, .frame_owner = NO,
	.code_filename = 112, .code_qualname = 128, .code_firstlineno = 72, .code_linetable = 136, .code_adaptive = 184,
	.bytes_size = 16, .bytes_data = 32, .str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
};

/* 3.12: f_code first in the frame, the owner marks a C call's shim frame; no wstr in str. */
static const struct py_layout layout_312 = {
	.minor = 12, .frames = PY_INTERP_FRAMES, .lines = PY_LOCATIONS,
	.runtime_interp_head = 40, .interp_next = 0, .interp_threads_head = 72,
	.tstate_next = 8, .tstate_native_id = 144, .tstate_thread_id = 136, .tstate_frame = 56, .cframe_current = 0,
	.tstate_chunk = 232, .tstate_top = 240,
	.frame_code = 0, .frame_previous = 8, .frame_instr = 56, .frame_entry = NO, .frame_owner = 70,
	.code_filename = 112, .code_qualname = 128, .code_firstlineno = 68, .code_linetable = 136, .code_adaptive = 192,
	.bytes_size = 16, .bytes_data = 32, .str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
};

/* 3.13: no _PyCFrame (the thread state's current_frame), f_executable, instr_ptr. */
static const struct py_layout layout_313 = {
	.minor = 13, .frames = PY_INTERP_FRAMES, .lines = PY_LOCATIONS,
	.runtime_interp_head = 632, .interp_next = 7264, .interp_threads_head = 7344,
	.tstate_next = 8, .tstate_native_id = 160, .tstate_thread_id = 152, .tstate_frame = 72, .cframe_current = NO,
	.tstate_chunk = 232, .tstate_top = 240,
	.frame_code = 0, .frame_previous = 8, .frame_instr = 56, .frame_entry = NO, .frame_owner = 70,
	.code_filename = 112, .code_qualname = 128, .code_firstlineno = 68, .code_linetable = 136, .code_adaptive = 200,
	.bytes_size = 16, .bytes_data = 32, .str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
};

const struct py_layout *pyframes_layout(int minor)
{
	static const struct py_layout *const by_minor[] = { &layout_38, &layout_39, &layout_310,
							     &layout_311, &layout_312, &layout_313 };

	return minor >= PY_MINOR_FIRST && minor <= PY_MINOR_LAST ? by_minor[minor - PY_MINOR_FIRST] : NULL;
}
