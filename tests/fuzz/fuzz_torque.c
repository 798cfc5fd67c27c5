/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_torque — libFuzzer target for what a Torque/PBS job hands parastack (sched/torque): the
 * node file ($PBS_NODEFILE), a job id ($PBS_JOBID) and a nodes request (-l nodes=N:ppn=P). Any
 * bytes: hosts or a one-line error, never a crash; every host accepted is one slot or more. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sched/lookup/lookup_torque.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct torque_job job;
	char err[600] = "";
	char *text = malloc(size + 1);
	int nodes, ppn;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	FILE *f = fmemopen(text, size ? size : 1, "r");

	if (f) {
		int rc = lookup_torque_parse_nodefile(f, "nodefile", &job, err, sizeof(err));

		if (rc < 0 && (!err[0] || strchr(err, '\n')))
			__builtin_trap();
		if (rc == 0 && (job.nhosts < 1 || job.slots < job.nhosts))
			__builtin_trap();
		lookup_torque_free(&job);
		fclose(f);
	}
	lookup_torque_valid_jobid(text);
	if (lookup_torque_parse_nodes(text, &nodes, &ppn) == 1 && (nodes < 1 || ppn < 1))
		__builtin_trap();
	free(text);
	return 0;
}
