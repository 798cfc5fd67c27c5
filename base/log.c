/* SPDX-License-Identifier: BSD-3-Clause */
/* log — parastack's lines in the job's output (log.h). */
#include "log.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool log_speaks = true, log_quiet;

void log_setup(bool speaks, bool quiet)
{
	log_speaks = speaks;
	log_quiet = quiet;
}

FILE *log_stream(void)
{
	const char *v = getenv("PARASTACK_REPORT_STREAM");

	return v && !strcmp(v, "stdout") ? stdout : stderr;
}

static void log_line(const char *fmt, va_list ap)
{
	FILE *out = log_stream();

	char *text = NULL;

	if (!log_speaks)
		return;
	/* One write a line: stderr is unbuffered, and a line written in pieces is forwarded in
	 * pieces (mpirun's relay, the job's output file), the job's own lines in between. */
	if (vasprintf(&text, fmt, ap) >= 0) {
		fprintf(out, "parastack: %s\n", text);
		free(text);
	}
	fflush(out);
}

void log_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	if (log_quiet)
		return;
	va_start(ap, fmt);
	log_line(fmt, ap);
	va_end(ap);
}
