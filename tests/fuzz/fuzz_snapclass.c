/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_snapclass — libFuzzer target for the class form of a snapshot (hang/snapclass.h) as a
 * monitor receives it from its children: any text, parsed as JSON, merged, made into a form
 * again, expanded and read as the checks read it. Rank sets must stay within their bound and
 * every rank expanded must be one the form named. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/hang/report.h"
#include "../../monitor/hang/snapclass.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *part = json_loadb((const char *)data, size, 0, NULL);
	struct snapclass *s = snapclass_new();

	if (!part || !s) {
		json_decref(part);
		snapclass_free(s);
		return 0;
	}
	snapclass_add_form(s, part);
	snapclass_add_form(s, part); /* the same part twice: each rank once in the expansion */

	json_t *form = snapclass_form(s), *ranks = snapclass_expand(form);
	struct snapview v;
	char why[256];
	size_t i;
	json_t *r;
	long last = -1;

	json_array_foreach(ranks, i, r) {
		long rank = (long)json_integer_value(json_object_get(r, "rank"));

		if (rank <= last || rank >= SNAPCLASS_MAX_RANKS)
			__builtin_trap();
		last = rank;
		snapclass_restore(r);
	}
	if (snapview_open(&v, form) == 0) {
		if (v.size > 0 && (size_t)v.size - 1 != (size_t)last)
			__builtin_trap();
		snapview_close(&v);
	}
	report_moved(form, ranks, why, sizeof(why));
	json_decref(ranks);
	json_decref(form);
	snapclass_free(s);
	json_decref(part);
	return 0;
}
