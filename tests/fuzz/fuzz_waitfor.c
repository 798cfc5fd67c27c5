/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_waitfor — libFuzzer target for the wait-for analysis and the report on forged records:
 * the three ranks' records (forged_areas.h) go through the parser as the monitor's would, into
 * a snapshot of a job that hung in MPI, then the report is built and printed. Cycles, sinks and
 * culprits of any forged record must come out bounded, naming only ranks of the job. */
#include <stdio.h>
#include <stdlib.h>

#include "../../monitor/sample/record/mpirecord.h"
#include "../../monitor/hang/report.h"
#include "forged_areas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *forged_snapshot(const struct psrec_area *areas)
{
	json_t *snap = json_array();

	for (int r = 0; r < FORGED_RANKS; r++) {
		json_t *rank = json_pack("{s:i, s:s, s:i, s:s, s:s, s:s, s:b}", "rank", r, "host", "node", "pid",
					 100 + r, "state", "IN_MPI", "mpi_call", "MPI_Recv", "path",
					 "main > MPI_Recv", "recording_layer", 1);
		json_t *rec = mpirecord_area_json(&areas[r], FORGED_RANKS, r);
		json_t *unreadable = json_object_get(rec, "unreadable");

		if (unreadable)
			json_object_set(rank, "record_unreadable", unreadable);
		else
			json_object_set(rank, "record", rec);
		json_decref(rec);
		json_array_append_new(snap, rank);
	}
	return snap;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct psrec_area areas[FORGED_RANKS];

	for (int r = 0; r < FORGED_RANKS; r++)
		forged_base(&areas[r], r);
	forged_patch(areas, FORGED_RANKS, data, size);

	json_t *snap = forged_snapshot(areas), *none = json_array();
	json_t *report = report_build(snap, none, 0, json_object(), "none");
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(report, "faulty_ranks"), i, f)
		if (json_integer_value(f) < 0 || json_integer_value(f) >= FORGED_RANKS)
			__builtin_trap();

	FILE *out = fopen("/dev/null", "w");

	if (out) {
		report_print(out, report);
		fclose(out);
	}
	json_decref(report);
	json_decref(none);
	json_decref(snap);
	return 0;
}
