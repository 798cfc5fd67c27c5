/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_pidlist — libFuzzer target for the PID-file and --pids parsers (base/pidlist.c):
 * any bytes must give entries or a one-line error, never a crash, a leak or undefined
 * behaviour; accepted entries hold valid PIDs and no (host, pid) twice. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/pidlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pid_entry entries[1024];

static void check(int n, const char *err)
{
	if (n < 0 && (!err[0] || strchr(err, '\n')))
		__builtin_trap();
	for (int i = 0; i < n; i++) {
		if (entries[i].pid < 1 || entries[i].rank < -1)
			__builtin_trap();
		for (int k = 0; k < i; k++)
			if (entries[k].pid == entries[i].pid && !strcmp(entries[k].host, entries[i].host))
				__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[600] = "";
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	check(pidlist_parse_text((const char *)data, size, entries, 1024, err, sizeof(err)), err);
	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	check(pidlist_parse_list(text, entries, 1024, err, sizeof(err)), err);
	free(text);
	return 0;
}
