/* SPDX-License-Identifier: BSD-3-Clause */
/* pyoffsets — the offsets parastack's layout table needs (monitor/sample/stop/pyframes.h's
 * struct py_layout), from one CPython's own headers: compiled by tests/cli/test-python.sh against
 * each interpreter the machine has (`cc -I INCLUDE -I INCLUDE/internal`), its output compared
 * with `pylayout MINOR` (parastack's table) field by field. "none": a field this version has not. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_MINOR_VERSION >= 11
#include <internal/pycore_frame.h>
#include <internal/pycore_interp.h>
#include <internal/pycore_runtime.h>
#elif PY_MINOR_VERSION >= 9
#include <frameobject.h>
#include <internal/pycore_interp.h>
#include <internal/pycore_runtime.h>
#else
#include <frameobject.h>
#include <internal/pycore_pystate.h>
#endif

#define AT(name, expr) printf("%s %zu\n", #name, (size_t)(expr))
#define NONE(name) printf("%s none\n", #name)

int main(void)
{
	printf("minor %d\n", PY_MINOR_VERSION);
	AT(runtime_interp_head, offsetof(_PyRuntimeState, interpreters.head));
	AT(interp_next, offsetof(PyInterpreterState, next));
#if PY_MINOR_VERSION >= 11
	AT(interp_threads_head, offsetof(PyInterpreterState, threads.head));
#else
	AT(interp_threads_head, offsetof(PyInterpreterState, tstate_head));
#endif
	AT(tstate_next, offsetof(PyThreadState, next));
#if PY_MINOR_VERSION >= 11
	AT(tstate_native_id, offsetof(PyThreadState, native_thread_id));
#else
	NONE(tstate_native_id);
#endif
	AT(tstate_thread_id, offsetof(PyThreadState, thread_id));
#if PY_MINOR_VERSION >= 13
	AT(tstate_frame, offsetof(PyThreadState, current_frame));
	NONE(cframe_current);
#elif PY_MINOR_VERSION >= 11
	AT(tstate_frame, offsetof(PyThreadState, cframe));
	AT(cframe_current, offsetof(_PyCFrame, current_frame));
#else
	AT(tstate_frame, offsetof(PyThreadState, frame));
	NONE(cframe_current);
#endif
#if PY_MINOR_VERSION >= 11
	AT(tstate_chunk, offsetof(PyThreadState, datastack_chunk));
	AT(tstate_top, offsetof(PyThreadState, datastack_top));
#if PY_MINOR_VERSION >= 13
	AT(frame_code, offsetof(_PyInterpreterFrame, f_executable));
	AT(frame_previous, offsetof(_PyInterpreterFrame, previous));
	AT(frame_instr, offsetof(_PyInterpreterFrame, instr_ptr));
#else
	AT(frame_code, offsetof(_PyInterpreterFrame, f_code));
	AT(frame_previous, offsetof(_PyInterpreterFrame, previous));
	AT(frame_instr, offsetof(_PyInterpreterFrame, prev_instr));
#endif
#if PY_MINOR_VERSION >= 12
	NONE(frame_entry);
	AT(frame_owner, offsetof(_PyInterpreterFrame, owner));
#else
	AT(frame_entry, offsetof(_PyInterpreterFrame, is_entry));
	NONE(frame_owner);
#endif
	AT(code_filename, offsetof(PyCodeObject, co_filename));
	AT(code_qualname, offsetof(PyCodeObject, co_qualname));
	AT(code_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	AT(code_linetable, offsetof(PyCodeObject, co_linetable));
	AT(code_adaptive, offsetof(PyCodeObject, co_code_adaptive));
#else
	NONE(tstate_chunk);
	NONE(tstate_top);
	AT(frame_code, offsetof(PyFrameObject, f_code));
	AT(frame_previous, offsetof(PyFrameObject, f_back));
	AT(frame_instr, offsetof(PyFrameObject, f_lasti));
	NONE(frame_entry);
	NONE(frame_owner);
	AT(code_filename, offsetof(PyCodeObject, co_filename));
	AT(code_qualname, offsetof(PyCodeObject, co_name));
	AT(code_firstlineno, offsetof(PyCodeObject, co_firstlineno));
#if PY_MINOR_VERSION >= 10
	AT(code_linetable, offsetof(PyCodeObject, co_linetable));
#else
	AT(code_linetable, offsetof(PyCodeObject, co_lnotab));
#endif
	NONE(code_adaptive);
#endif
	AT(bytes_size, offsetof(PyVarObject, ob_size));
	AT(bytes_data, offsetof(PyBytesObject, ob_sval));
	AT(str_length, offsetof(PyASCIIObject, length));
	AT(str_state, offsetof(PyASCIIObject, state));
	AT(str_ascii_data, sizeof(PyASCIIObject));
	AT(str_compact_data, sizeof(PyCompactUnicodeObject));
	return 0;
}
