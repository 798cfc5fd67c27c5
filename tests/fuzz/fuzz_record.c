/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_record — libFuzzer target for the record parser (monitor/sample/record/record_check.c and
 * mpirecord.c): one rank's record forged by the input (forged_areas.h) into the report's JSON.
 * Whatever the rank wrote, the parser must return a record or "unreadable", bounded in size
 * (the members pool, the tables), never loop, crash or read past the area. */
#include <stdlib.h>

#include "../../monitor/sample/record/mpirecord.h"
#include "forged_areas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one record may weigh in the report: its tables at full width. */
#define RECORD_JSON_MAX (16u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct psrec_area a;

	forged_base(&a, 0);
	forged_patch(&a, 1, data, size);

	json_t *j = mpirecord_area_json(&a, FORGED_RANKS, 0);
	size_t len = j ? json_dumpb(j, NULL, 0, JSON_COMPACT) : 0;

	if (!j || len == 0 || len > RECORD_JSON_MAX)
		__builtin_trap();
	json_decref(j);
	return 0;
}
