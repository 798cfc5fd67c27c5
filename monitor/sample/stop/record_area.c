/* SPDX-License-Identifier: BSD-3-Clause */
/* record_area — where a rank's recording layer keeps its area, and whether the area says the
 * rank is the program. Apart from target.c because the readers of what a rank records
 * (mpirecord.c, and the fuzzers of it) need only this of a target, not its sampling. */
#include "target.h"

#include <stddef.h>
#include <sys/uio.h>
#include <time.h>

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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Is the area the one this monitor reads (magic, version, size)? Asked once per target. */
static bool record_version_ok(struct target *t)
{
	struct { uint64_t magic; uint32_t version, size; } h = { 0 };
	struct iovec local = { &h, sizeof(h) }, remote = { (void *)(uintptr_t)t->record_addr, sizeof(h) };

	if (!t->record_ok && process_vm_readv(t->pid, &local, 1, &remote, 1, 0) == (ssize_t)sizeof(h) &&
	    h.magic == PSREC_MAGIC)
		t->record_ok = h.version == PSREC_VERSION && h.size == sizeof(struct psrec_area) ? 1 : -1;
	return t->record_ok > 0;
}

int target_wait_share(struct target *t)
{
	uint64_t v[2], now;
	struct iovec local = { v, sizeof(v) },
		     remote = { (void *)(uintptr_t)(t->record_addr + offsetof(struct psrec_area, calls[0].mpi_ns)),
				sizeof(v) };

	if (!t->record_addr || !record_version_ok(t) ||
	    process_vm_readv(t->pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(v))
		return -1;
	now = mono_ns();

	uint64_t total = psrec_mpi_ns(v[0], v[1], now), was = t->mpi_ns_seen, at = t->mpi_seen_at_ns;

	t->mpi_ns_seen = total;
	t->mpi_seen_at_ns = now;
	/* A first reading, or a thread's time that went back (another process at the address, a
	 * torn copy): nothing to say yet. */
	if (!at || total < was || now <= at)
		return -1;

	double share = (double)(total - was) / (double)(now - at);

	return share >= 1 ? 100 : (int)(share * 100 + 0.5);
}
