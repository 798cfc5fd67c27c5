/* SPDX-License-Identifier: BSD-3-Clause */
/* symbolize — names for addresses, only when a report or `parastack stack` needs them (never on
 * the sampling path): function and offset from the symbol table, source file and line from
 * DWARF, and inlined calls expanded into frames of their own. Backed by elfutils' libdw. */
#ifndef PARASTACK_SYMBOLIZE_H
#define PARASTACK_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "maps.h"

struct sym_frame {
	uint64_t pc;      /* the address looked up */
	char func[256];   /* "" when unknown */
	uint64_t offset;  /* pc - start of func (physical frames with a symbol) */
	char module[512]; /* file name of the module, "" when unknown */
	char file[512];   /* source file, "" without debug info */
	int line;         /* 0 without debug info */
	bool inlined;     /* a call inlined into the next frame */
};

struct symbolizer;

/* Report the modules of pid (from /proc/PID/maps), read as pid's owner; NULL on failure. */
struct symbolizer *symbolizer_open(pid_t pid);
void symbolizer_close(struct symbolizer *sy);

/* Symbolizers shared by executable and owner: the ranks of one job use one, so a report's
 * memory does not grow with debug information loaded once per rank. */
struct symbolizer_pool {
	struct symbolizer **s;
	int n, cap;
};

/* The pool's symbolizer for the process laid out as mp, opened on it when none fits; NULL if
 * none can be. Owned by the pool. */
struct symbolizer *symbolizer_pool_get(struct symbolizer_pool *pool, const struct maps *mp);
void symbolizer_pool_free(struct symbolizer_pool *pool);
/* Logical frames for one physical frame at pc of the process laid out as mp (NULL: the one sy
 * was opened on), innermost first; return_address says pc is a return address (every frame
 * but the innermost), so the call instruction is looked up. Returns the number written
 * (>= 1, at most max). */
int symbolize(struct symbolizer *sy, const struct maps *mp, uint64_t pc, bool return_address,
	      struct sym_frame *out, int max);

#endif
