/* SPDX-License-Identifier: BSD-3-Clause */
/* outfile — the files parastack writes for its user (the JSON report, the trace): never written
 * through a symbolic link or into something that is not a regular file, and a report replaced
 * whole (a unique temporary file beside it, then rename), so a reader never sees half of one
 * and a planted "REPORT.tmp" link cannot redirect the write (parastack may run as root). They
 * are created as their owner o, through a directory walk that follows no untrusted link
 * (ownedfile.h). */
#ifndef PARASTACK_OUTFILE_H
#define PARASTACK_OUTFILE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "../sample/safe/ownedfile.h"

/* Write j (indented) to path, replacing it whole. 0, or -1 with a one-line reason in err. */
int outfile_replace_json(const char *path, json_t *j, const struct file_owner *o, char *err, size_t len);
/* A file of the site's (--report-dir, --metrics-dir): JSON j, or n bytes of text, replacing
 * path whole, with mode. A root monitor writes it as root, its group the directory's, where
 * root alone can change the path (trustedpath.h); elsewhere as job_owner, as the
 * user's own files. 0, or -1 with a one-line reason in err. */
int outfile_replace_site(const char *path, json_t *j, const char *text, size_t n, const struct file_owner *job_owner,
			 mode_t mode, char *err, size_t len);
/* A stream writing path from its start, opened without following a final symbolic link and
 * only onto a regular file; NULL with a one-line reason in err. */
FILE *outfile_open_stream(const char *path, const struct file_owner *o, char *err, size_t len);
/* Text of o's own file written by outfile_replace_text, read back with o's credentials and the
 * same walk: never through a final link, only a regular file owned by o, at most cap - 1
 * bytes (NUL-terminated). The length; -2 when there is no such file (ENOENT); -1 with a
 * one-line reason in err. */
ssize_t outfile_read_text(const char *path, const struct file_owner *o, char *buf, size_t cap, char *err, size_t len);
/* n bytes of text to path, replaced whole, as o's (outfile_replace_json's rules). */
int outfile_replace_text(const char *path, const char *text, size_t n, const struct file_owner *o, char *err,
			 size_t len);

#endif
