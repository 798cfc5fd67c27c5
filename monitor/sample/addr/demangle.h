/* SPDX-License-Identifier: BSD-3-Clause */
/* demangle — function names as their authors wrote them, for reports and `parastack stack`.
 *
 * C++ (the Itanium ABI's "_Z…", GCC and Clang) by libstdc++'s __cxa_demangle, run in a helper
 * process with a deadline per name and a cap on its memory: a symbol read from a rank's files is
 * hostile input to a monitor that may run as root, and a demangler's time and memory can grow
 * far faster than its input (back-references). A name the helper does not answer in time is
 * shown as it is; after DEMANGLE_MAX_FAILURES such names no more are tried. Fortran module
 * procedures by rule, in this process (linear, bounded): gfortran's __mod_MOD_proc, Intel's
 * mod_mp_proc_ and LLVM Flang's _QMmodPproc all read mod::proc.
 *
 * Contract: never blocks longer than the deadline per name; never changes a name it cannot
 * read in full (out is then left as it was); the raw symbol is the caller's to keep. */
#ifndef PARASTACK_DEMANGLE_H
#define PARASTACK_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define DEMANGLE_MAX_IN 1024       /* longer names are shown as they are */
#define DEMANGLE_MAX_FAILURES 3    /* helpers killed before C++ names are left alone */
#define DEMANGLE_HELPER_MEM (256L << 20) /* the helper's memory beyond what it was forked with */

/* The readable name of raw into out (len bytes): true when there is one that differs from raw. */
bool demangle_name(const char *raw, char *out, size_t len);

/* The Fortran rules alone (no helper): true when raw is a module procedure's symbol. */
bool demangle_fortran(const char *raw, char *out, size_t len);

/* The C++ helper's deadline per name (default 2000 ms), and its end (at exit, or in tests: the
 * failures are forgotten, C++ names tried again). */
void demangle_set_deadline_ms(int ms);
void demangle_stop(void);

/* Helpers killed for taking too long or dying, and the one running now or -1 (tests). */
int demangle_failures(void);
pid_t demangle_helper_pid(void);

#endif
