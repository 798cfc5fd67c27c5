/* SPDX-License-Identifier: BSD-3-Clause */
/* frames — a thread's frames as users read them, shared by the reports (capture.c) and
 * `parastack stack` (pstack.c): native frames symbolized, named as their authors wrote them
 * (C++ and Fortran module names demangled, demangle.h; compilers' clone suffixes and symbol
 * versions cut), every one named (a frame without a symbol is module+0xOFFSET, never blank; a
 * run of them in one module is one entry, "module (N frames)"; in a stripped program the frame
 * the C library's start calls is "main", or "main (+N frames)"), and in a CPython rank the
 * interpreter's frames
 * replaced by the Python frames its evaluation loop runs (pyframes.h), as py-spy's --native
 * shows them. */
#ifndef PARASTACK_FRAMES_H
#define PARASTACK_FRAMES_H

#include <stdbool.h>
#include <string.h>

#include "../addr/symbolize.h"
#include "../stop/target.h"

struct frame_view {
	struct sym_frame f; /* a Python frame: func is its qualified name, module its file's name */
	bool in_mpi;
	bool python;
	bool library;       /* a Python frame of the standard library or an installed package */
	bool recorder;      /* a frame of parastack's own wrapper around a torch.distributed call
			     * (record/python): in the frames, left out of paths */
	bool unnamed;       /* no symbol: func is module+0xOFFSET, or "module (N frames)" */
	int count;          /* frames it stands for: consecutive nameless frames of one module are
			     * one entry (a Cython or stripped module's 3 frames, not 3 addresses) */
	char symbol[256];   /* the symbol as the binary has it where func reads otherwise (a C++
			     * or Fortran module name demangled), else "" */
};

/* Is name main's frame ("main", "main (+N frames)" of a stripped program, Fortran's MAIN__), or
 * the C runtime's start that calls it (__libc_start_call_main since glibc 2.34,
 * __libc_start_main before)? Paths start below the runtime. Inline: the report's reader
 * (monitor/hang) asks it of JSON names without the symbolizer. */
static inline bool frames_is_main(const char *name)
{
	return name && (!strcmp(name, "main") || !strncmp(name, "main (+", 7) || !strcmp(name, "MAIN__"));
}

static inline bool frames_is_c_start(const char *name)
{
	return !strcmp(name, "__libc_start_call_main") || !strcmp(name, "__libc_start_main");
}

/* th's frames, innermost first, into out (at most max); their count. sy may be NULL. */
int frames_view(struct target *t, struct symbolizer *sy, const struct thread_stack *th, struct frame_view *out,
		int max);

#endif
