/* SPDX-License-Identifier: BSD-3-Clause */
/* report_path — a call path as a line of the text report and the diagnosis: C++ template
 * arguments shortened ("intrusive_ptr<…>"), and where it is still too long, frames dropped
 * from the outside in (the C runtime's and the thread's start first, Python frames last, the
 * call never), each run of them one "…". The JSON's paths and frames stay whole. Private to
 * monitor/hang/. */
#ifndef PARASTACK_REPORT_PATH_H
#define PARASTACK_REPORT_PATH_H

#include <stddef.h>

/* The longest a line of paths is meant to be read at (two terminals wide): a stack group's, a
 * tree's, a diagnosis sentence's. */
#define REPORT_LINE_MAX 200

/* One frame's name with its template arguments shortened, into out (len bytes). */
void report_frame_short(const char *frame, char *out, size_t len);
/* path (frames joined by " > ") in at most max characters (bytes) into out (len bytes); the
 * frame keep (the program's own Python line, a group's "site"; NULL: none) is dropped last. */
void report_path_short(const char *path, const char *keep, size_t max, char *out, size_t len);

#endif
