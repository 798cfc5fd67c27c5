/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_options — libFuzzer target for the options parser every watching command shares
 * (base/options.c): the input is a command line, words separated by NUL bytes, parsed
 * as `parastack run` and `attach` parse theirs (getopt_long over WATCH_LONGOPTS, then the
 * cross-option checks, an unknown word named with a suggestion). Any command line must give a
 * value or a one-line error, never a crash, a read past a word, or a hang. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../base/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WORDS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct option longopts[] = { WATCH_LONGOPTS, { NULL, 0, NULL, 0 } };
	char *buf = malloc(size + 1), *argv[MAX_WORDS + 2];
	int argc = 1, c, index = 0;
	struct watch_options w;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "parastack";
	for (char *p = buf; p < buf + size && argc <= MAX_WORDS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	memset(&w, 0, sizeof(w));
	common_options_default(&w.opt);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", longopts, &index)) != -1) {
		if (c == '?' || c == ':') {
			option_unknown("run", argv, longopts);
			break;
		}
		if (watch_option_apply("run", &w, c, longopts[index].name, optarg) < 0)
			break;
	}
	common_options_check("run", &w.opt);
	watch_options_release(&w);
	free(buf);
	return 0;
}
