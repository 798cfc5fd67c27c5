/* SPDX-License-Identifier: BSD-3-Clause */
/* pylayout MINOR — parastack's layout table of CPython 3.MINOR (monitor/sample/stop/
 * pylayouts.c), printed as tests/tools/pyoffsets.c prints an interpreter's headers, field by
 * field in the same order: test-python.sh compares the two. Exit 1 for a version without one. */
#include <stdio.h>
#include <stdlib.h>

#include "../../monitor/sample/stop/pyframes.h"

#define PRINT(name)                                              \
	if (L->name == PY_NO_FIELD)                              \
		printf("%s none\n", #name);                      \
	else                                                     \
		printf("%s %zu\n", #name, L->name);

int main(int argc, char **argv)
{
	const struct py_layout *L = argc == 2 ? pyframes_layout(atoi(argv[1])) : NULL;

	if (!L) {
		fprintf(stderr, "pylayout: no layout for CPython 3.%s (usage: pylayout MINOR)\n", argc == 2 ? argv[1] : "?");
		return 1;
	}
	printf("minor %d\n", L->minor);
	PY_LAYOUT_FIELDS(PRINT)
	return 0;
}
