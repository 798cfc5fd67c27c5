/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_demangle — libFuzzer target for the demangler (monitor/sample/addr/demangle.c): a symbol
 * read from a rank's binary is hostile input to a root monitor. Any bytes: a printable name
 * that fits, or the name left alone, never a crash; a C++ name the helper cannot answer in time
 * costs one helper, and the fuzzing goes on (the rules for Fortran stay on in this process). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/sample/addr/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_name(const char *raw, size_t len)
{
	char out[256];

	memset(out, 0x7f, sizeof(out));
	if (!demangle_name(raw, out, len))
		return;
	size_t n = strnlen(out, len);

	if (n >= len || n == 0)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < ' ' || (unsigned char)out[i] > '~')
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int started;
	char *raw = malloc(size + 1);

	if (!raw)
		return 0;
	if (!started++)
		demangle_set_deadline_ms(200);
	memcpy(raw, data, size);
	raw[size] = '\0';
	check_name(raw, 256);
	check_name(raw, 8);

	char out[256];

	if (demangle_fortran(raw, out, sizeof(out)) && !strcmp(out, raw))
		__builtin_trap();
	free(raw);
	return 0;
}
