/* SPDX-License-Identifier: BSD-3-Clause */
/* fakemem — see fakemem.h. */
#include "fakemem.h"

#include <string.h>

bool fakemem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct fakemem *m = ctx;

	if (addr < m->base || addr - m->base > m->size || len > m->size - (addr - m->base))
		return false;
	memcpy(buf, m->mem + (addr - m->base), len);
	return true;
}

void fakemem_put64(struct fakemem *m, size_t off, uint64_t v)
{
	memcpy(m->mem + off, &v, sizeof(v));
}
