/* ranges — "0-2,4-7" (see ranges.h). */
#include "ranges.h"

#include <stdio.h>
#include <stdlib.h>

char *ranges_dup(const int *ranks, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (int i = 0; i < n;) {
		int j = i;

		while (j + 1 < n && (long long)ranks[j + 1] == (long long)ranks[j] + 1)
			j++;
		fprintf(f, "%s%d", i ? "," : "", ranks[i]);
		if (j > i)
			fprintf(f, "-%d", ranks[j]);
		i = j + 1;
	}
	fclose(f);
	return buf;
}

void ranges_format(const int *ranks, int n, char *buf, size_t len)
{
	char *all = ranges_dup(ranks, n);

	snprintf(buf, len, "%s", all ? all : "");
	free(all);
}
