/* SPDX-License-Identifier: BSD-3-Clause */
/* source_ptrace — the installed monitor's ranks (source.h): real processes, reached through
 * ptrace (job.c's job_source_ptrace), captured with their frames symbolized and their record
 * read from their memory. */
#include "source.h"

#include "../sample/record/mpirecord.h"
#include "../sample/record/torchrecord.h"
#include "../job/job.h"
#include "../sample/addr/maps.h"
#include "../sample/print/capture.h"

/* A record that fails its check is left out and said to be unreadable: the rank is read from
 * its stack. */
static json_t *ptrace_capture(struct monitor *m, int k, bool with_record, int job_size)
{
	struct target *t = &m->job.targets[k];

	/* A rank found as its wrapper that has exec'd the program since it was last sampled. */
	job_refind_exec(&m->job, k);

	struct symbolizer *sy = symbolizer_pool_get(&m->job.syms, &t->maps);
	json_t *rank = capture_rank(t, sy, m->comm.host);
	json_t *rec = with_record ? mpirecord_json(t, sy, job_size) : NULL;
	json_t *unreadable = json_object_get(rec, "unreadable");

	if (unreadable)
		json_object_set(rank, "record_unreadable", unreadable);
	if (rec && !unreadable)
		json_object_set(rank, "record", rec);
	json_decref(rec);
	/* torch.distributed's calls per process group (record/python/parastack_torchrec.py). */
	if (with_record && (rec = torchrecord_json(t->pid)))
		json_object_set_new(rank, "collectives", rec);
	/* Was the layer there at all: a diagnosis from stacks alone is never mistaken for one with
	 * records (a layer the launch line could not place, --no-record). */
	json_object_set_new(rank, "recording_layer", json_boolean(maps_has_module(&t->maps, "libparastack-mpi")));
	return rank;
}

const struct rank_source rank_source = {
	.job = &job_source_ptrace,
	.capture = ptrace_capture,
};
