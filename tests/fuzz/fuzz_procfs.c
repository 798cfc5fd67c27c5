/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_procfs — libFuzzer target for the readers of what a watched process's /proc files say
 * (monitor/sample/addr/maps.c, monitor/sample/safe/procfs.c): a maps line per input line, a stat line's fields, a status
 * file's numbers, an environment block's variables. A hostile target controls much of this
 * text (its command name, its environment, its mapped file names): any bytes must give a value
 * or a refusal, never a crash, a read past the end, or undefined behaviour. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/sample/addr/maps.h"
#include "../../monitor/sample/safe/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void maps_lines(char *text)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		struct mapping m;
		char *name;

		if (maps_parse_line(line, &m, &name) == 0 &&
		    (m.end <= m.start || name < line || name > line + strlen(line)))
			__builtin_trap();
		if (maps_parse_line(line, &m, &name) == 0)
			maps_classify_path(name, "/bin/app");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PBS_JOBID", "", "=", NULL };
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* The environment block as read: NUL-separated, possibly without a final NUL. */
	for (int i = 0; names[i]; i++) {
		const char *v = procfs_env_lookup((const char *)data, size, names[i]);

		if (v && (v < (const char *)data || v > (const char *)data + size ||
			  !memchr(v, '\0', size - (size_t)(v - (const char *)data))))
			__builtin_trap();
	}
	for (int n = 3; n <= 60; n++) {
		const char *f = procfs_parse_stat_field(text, n);

		if (f && (f < text || f > text + size))
			__builtin_trap();
	}
	procfs_parse_status_number(text, "TracerPid");
	procfs_parse_status_number(text, "State");
	maps_lines(text);
	free(text);
	return 0;
}
