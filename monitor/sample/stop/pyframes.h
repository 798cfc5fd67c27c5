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

/* Where CPython keeps what the walk reads, for one minor version. */
struct py_layout {
	int minor;                                /* 3.minor */
	size_t runtime_interp_head;               /* _PyRuntimeState.interpreters.head */
	size_t interp_next, interp_threads_head;  /* PyInterpreterState.next, .threads.head */
	size_t tstate_next, tstate_native_id;     /* PyThreadState.next, .native_thread_id */
	size_t tstate_cframe, cframe_current;     /* PyThreadState.cframe, _PyCFrame.current_frame */
	size_t tstate_chunk, tstate_top;          /* PyThreadState.datastack_chunk, .datastack_top */
	size_t frame_code, frame_previous, frame_instr, frame_entry; /* _PyInterpreterFrame */
	size_t code_filename, code_qualname, code_firstlineno, code_linetable, code_adaptive;
	size_t bytes_size, bytes_data;            /* PyBytesObject: ob_size, ob_sval */
	size_t str_length, str_state, str_ascii_data, str_compact_data; /* PyUnicodeObject */
};

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
 * when the thread runs no Python. Bounded whatever memory says. */
int pyframes_walk(const struct py_layout *L, uint64_t runtime, pid_t tid, py_read_fn rd, void *ctx,
		  struct pyframe_raw *out, int max);

/* A frame's file, qualified name and line (-1 unknown) from its code object; false when the
 * code object cannot be read. */
bool pyframes_describe(const struct py_layout *L, py_read_fn rd, void *ctx, const struct pyframe_raw *f,
		       char *file, size_t flen, char *func, size_t fnlen, int *line);

/* Line of the instruction at code unit lasti in a CPython 3.11+ location table, from the
 * first line; -1 when the table does not say. Pure: for tests. */
int pyframes_line(const uint8_t *table, size_t len, int firstlineno, uint64_t lasti);

/* process_vm_readv of pid, as a py_read_fn (ctx: a pid_t *). */
bool pyframes_read_process(void *ctx, uint64_t addr, void *buf, size_t len);

#endif
