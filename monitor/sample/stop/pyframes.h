/* SPDX-License-Identifier: BSD-3-Clause */
/* pyframes — a CPython rank's Python frames, read from its memory (design.md §8), as py-spy
 * reads them: the interpreter's runtime state through its exported symbol _PyRuntime, the
 * thread state of the sampled thread, and its chain of frames. The chain is read while the
 * thread is held (snapshot.h's while_held), the frames' code objects (immutable) after; nothing
 * runs in the target. One layout table per CPython minor version. Everything read is untrusted:
 * every loop is bounded by fixed sizes and every pointer read through a reader that fails
 * cleanly. */
#ifndef PARASTACK_PYFRAMES_H
#define PARASTACK_PYFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../addr/maps.h"

#define PY_MAX_FRAMES 64

/* How a version chains its frames: heap frame objects (3.8-3.10: PyFrameObject.f_back, one
 * evaluation-loop call each), or interpreter frames on the thread's data stack (3.11+:
 * _PyInterpreterFrame.previous, several per evaluation-loop call). */
enum py_frames { PY_FRAME_OBJECTS, PY_INTERP_FRAMES };
/* How a code object maps an instruction to its line: co_lnotab (3.8, 3.9), 3.10's
 * co_linetable, the location table of 3.11+. */
enum py_lines { PY_LNOTAB, PY_LINETABLE_310, PY_LOCATIONS };

#define PY_NO_FIELD ((size_t)-1) /* a field this version has not */

/* Where CPython keeps what the walk reads, for one minor version: offsetof on that version's
 * own (internal) headers, x86_64 — pylayouts.c, held to them by tests/tools/pyoffsets.c. */
struct py_layout {
	int minor;                                /* 3.minor */
	enum py_frames frames;
	enum py_lines lines;
	size_t runtime_interp_head;               /* _PyRuntimeState.interpreters.head */
	size_t interp_next, interp_threads_head;  /* PyInterpreterState.next, .threads.head (tstate_head) */
	size_t tstate_next;                       /* PyThreadState.next */
	size_t tstate_native_id;                  /* .native_thread_id (3.11+), or PY_NO_FIELD */
	size_t tstate_thread_id;                  /* .thread_id: the thread's pthread_t */
	size_t tstate_frame;                      /* .frame (3.8-3.10), .cframe (3.11, 3.12), .current_frame (3.13+) */
	size_t cframe_current;                    /* _PyCFrame.current_frame, or PY_NO_FIELD (no cframe) */
	size_t tstate_chunk, tstate_top;          /* .datastack_chunk, .datastack_top (3.11+) */
	size_t frame_code, frame_previous;        /* f_code (f_executable 3.13), previous (f_back) */
	size_t frame_instr;                       /* prev_instr (3.11, 3.12), instr_ptr (3.13), f_lasti (3.8-3.10) */
	size_t frame_entry;                       /* is_entry (3.11), or PY_NO_FIELD */
	size_t frame_owner;                       /* owner (3.12+: a C stack's shim frame), or PY_NO_FIELD */
	size_t code_filename, code_qualname, code_firstlineno, code_linetable; /* co_name before 3.11 */
	size_t code_adaptive;                     /* co_code_adaptive (3.11+), or PY_NO_FIELD */
	size_t bytes_size, bytes_data;            /* PyBytesObject: ob_size, ob_sval */
	size_t str_length, str_state, str_ascii_data, str_compact_data; /* PyUnicodeObject */
};

/* The fields of struct py_layout by name, as tests/tools/pyoffsets.c prints them: X(name). */
#define PY_LAYOUT_FIELDS(X) \
	X(runtime_interp_head) X(interp_next) X(interp_threads_head) X(tstate_next) X(tstate_native_id) \
	X(tstate_thread_id) X(tstate_frame) X(cframe_current) X(tstate_chunk) X(tstate_top) X(frame_code) \
	X(frame_previous) X(frame_instr) X(frame_entry) X(frame_owner) X(code_filename) X(code_qualname) \
	X(code_firstlineno) X(code_linetable) X(code_adaptive) X(bytes_size) X(bytes_data) X(str_length) \
	X(str_state) X(str_ascii_data) X(str_compact_data)

/* Reads len bytes at addr of the target into buf; false when it cannot. */
typedef bool (*py_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* One Python frame as the walk saw it: its code object and instruction. */
struct pyframe_raw {
	uint64_t code, instr;
	bool entry; /* the first frame a C call of the evaluation loop runs */
};

/* An interpreted process: its layout and runtime, or why it has none. */
struct pyproc {
	const struct py_layout *layout; /* NULL: not CPython, or a version without a table */
	uint64_t runtime;               /* address of _PyRuntime */
	char module[64];                /* the interpreter's file ("python3.11"), "" when none */
	int minor;                      /* its version, -1 unknown */
};

/* Why a CPython process has no Python frames, one line ("" when it has them): an interpreter
 * version without a layout table, or no _PyRuntime symbol found. */
void pyframes_why_not(const struct pyproc *p, char *buf, size_t len);

/* The layout of CPython 3.minor, or NULL. */
const struct py_layout *pyframes_layout(int minor);

/* Does the process run CPython (its executable or a libpython mapped)? Fills p: with a layout
 * and runtime when this version is known. Returns whether it is CPython at all. */
bool pyframes_probe(const struct maps *mp, struct pyproc *p);

/* The Python frames of thread tid, innermost first, into out (at most max); their count, 0
 * when the thread runs no Python. The thread is known by its native id (3.11+) or, before, by
 * its pthread_t (on x86_64 glibc the thread's fs base). Bounded whatever memory says. */
int pyframes_walk(const struct py_layout *L, uint64_t runtime, pid_t tid, uint64_t pthread, py_read_fn rd,
		  void *ctx, struct pyframe_raw *out, int max);

/* A frame's file, qualified name and line (-1 unknown) from its code object; false when the
 * code object cannot be read. */
bool pyframes_describe(const struct py_layout *L, py_read_fn rd, void *ctx, const struct pyframe_raw *f,
		       char *file, size_t flen, char *func, size_t fnlen, int *line);

/* Line of the instruction at code unit lasti in a CPython 3.11+ location table, from the
 * first line; -1 when the table does not say. Pure: for tests. */
int pyframes_line(const uint8_t *table, size_t len, int firstlineno, uint64_t lasti);

/* The same for 3.8-3.9's co_lnotab and 3.10's co_linetable, at byte offset addr. */
int pyframes_line_lnotab(const uint8_t *table, size_t len, int firstlineno, uint64_t addr);
int pyframes_line_310(const uint8_t *table, size_t len, int firstlineno, uint64_t addr);

/* The oldest and newest minor versions with a layout. */
#define PY_MINOR_FIRST 8
#define PY_MINOR_LAST 13

/* process_vm_readv of pid, as a py_read_fn (ctx: a pid_t *). */
bool pyframes_read_process(void *ctx, uint64_t addr, void *buf, size_t len);

#endif
