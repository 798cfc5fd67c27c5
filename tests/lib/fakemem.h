/* SPDX-License-Identifier: BSD-3-Clause */
/* fakemem — a rank's memory for the unit tests of the readers that take a read callback (Python
 * frames, interpreter layouts): a buffer placed at a remote base address, read with the bounds
 * the real process_vm_readv would enforce (nothing outside the buffer is readable). */
#ifndef PARASTACK_TEST_FAKEMEM_H
#define PARASTACK_TEST_FAKEMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fakemem {
	uint64_t base; /* the remote address of mem[0] */
	uint8_t *mem;
	size_t size;
};

/* A read callback (ctx: the struct fakemem): false where [addr, addr + len) leaves the buffer. */
bool fakemem_read(void *ctx, uint64_t addr, void *buf, size_t len);

/* A 64-bit value at offset off of the buffer. */
void fakemem_put64(struct fakemem *m, size_t off, uint64_t v);

#endif
