/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_trace — libFuzzer target for the trace parser (stats/trace.c): any bytes must give a
 * trace or a one-line error, never a crash, a leak or undefined behaviour. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../stats/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace tr = { 0 };
	char err[256] = "";
	FILE *in = fmemopen((void *)data, size ? size : 1, "r");

	if (!in)
		return 0;
	if (size == 0)
		fgetc(in); /* fmemopen wants a size >= 1: read the one byte, leaving EOF */
	if (trace_parse(in, &tr, err, sizeof(err)) < 0 && (!err[0] || strchr(err, '\n')))
		__builtin_trap(); /* an error must be one non-empty line */
	for (size_t i = 1; i < tr.len; i++)
		if (tr.points[i].t_ms < tr.points[i - 1].t_ms)
			__builtin_trap(); /* accepted times never decrease */
	trace_free(&tr);
	fclose(in);
	return 0;
}
