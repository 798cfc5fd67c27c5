/* SPDX-License-Identifier: BSD-3-Clause */
/* record_area — where a rank's recording layer keeps its area, and whether the area says the
 * rank is the program. Apart from target.c because the readers of what a rank records
 * (mpirecord.c, and the fuzzers of it) need only this of a target, not its sampling. */
#include "target.h"

#include <sys/uio.h>

#include "../../../record/record_format.h"
#include "../safe/fscreds.h"

uint64_t target_record_area(const struct target *t)
{
	struct fscreds saved;
	uint64_t addr = t->record_addr;

	if (addr)
		return addr;
	fscreds_enter(t->uid, t->gid, &saved);
	addr = maps_symbol_address(&t->maps, "libparastack-mpi", PSREC_SYMBOL);
	fscreds_leave(&saved);
	return addr;
}

bool target_note_program(struct target *t)
{
	uint64_t magic = 0;
	struct iovec local = { &magic, sizeof(magic) }, remote = { (void *)(uintptr_t)t->record_addr, sizeof(magic) };

	if (!t->was_program && t->record_addr &&
	    process_vm_readv(t->pid, &local, 1, &remote, 1, 0) == (ssize_t)sizeof(magic))
		t->was_program = magic == PSREC_MAGIC;
	return t->was_program;
}
