/* SPDX-License-Identifier: BSD-3-Clause */
/* ehframe — where a loaded module's unwind table lies in the target's memory: its program
 * headers (read at the address its file offset 0 is mapped at) name the code's range and the
 * .eh_frame_hdr (PT_GNU_EH_FRAME), whose sorted table of FDEs libunwind searches through its
 * memory accessor. The module's file is never opened: a rank can replace the file behind a
 * mapping by a FIFO (an open would block) or by another file (its tables would lie), but not
 * what it has mapped. Everything read is checked against fixed bounds: the memory is the job's. */
#ifndef PARASTACK_EHFRAME_H
#define PARASTACK_EHFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct eh_table {
	uint64_t start_ip, end_ip; /* the module's executable segments, from the first to the last */
	uint64_t hdr;              /* address of .eh_frame_hdr */
	uint64_t table;            /* of its sorted (start, FDE) pairs, 8 bytes each */
	uint64_t count;            /* pairs */
};

/* Read len bytes of the target at addr into buf; false when they cannot be read. */
typedef bool (*eh_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* The table of the module whose ELF header is mapped at base; false when it has none that
 * libunwind can search (no PT_GNU_EH_FRAME, an encoding other than the one linkers write). */
bool ehframe_find(uint64_t base, eh_read_fn read, void *ctx, struct eh_table *out);

#endif
