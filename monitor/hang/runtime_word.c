/* SPDX-License-Identifier: BSD-3-Clause */
/* runtime_word — what a snapshot's ranks wait in, in a report's words (runtime_word.h). */
#include "runtime_word.h"

#include <stdio.h>

#include "report_util.h"
#include "snapclass.h"
#include "../../base/runtimes.h"

const char *report_runtime_word(json_t *snap, char *buf, size_t len)
{
	const char *seen[4];
	int n = 0;
	size_t o = 0;
	struct snapview v;

	/* An array of ranks or its class form (a large job's): the ranks' objects either way. */
	if (snapview_open(&v, snap) == 0) {
		for (int r = 0; r < v.size; r++) {
			const char *w = v.at[r] ? str(v.at[r], "runtime") : NULL;
			const struct runtime *rt;

			/* A report made before ranks said (a replayed one): its call's library. */
			if (!w && v.at[r] && str(v.at[r], "mpi_call") &&
			    (rt = runtime_of_library(str(v.at[r], "mpi_call"))))
				w = rt->word;
			int k = 0;

			while (k < n && !same(seen[k], w))
				k++;
			if (w && k == n && n < 4)
				seen[n++] = w;
		}
		snapview_close(&v);
	}
	if (!n)
		seen[n++] = "MPI";
	buf[0] = '\0';
	for (int k = 0; k < n && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? k == n - 1 ? " and " : ", " : "", seen[k]);
	return buf;
}
