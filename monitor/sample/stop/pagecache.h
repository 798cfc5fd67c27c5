/* SPDX-License-Identifier: BSD-3-Clause */
/* pagecache — pages of the files the ranks map, held once per monitor, not once per rank: the
 * unwind tables of a node's ranks are the same bytes of the same files (an executable and its
 * libraries). A page is known by its file (device, inode) and its offset in it, so a rank whose
 * file at the same path is another file (a rebuilt binary, a library replaced in place) never
 * shares its pages. Only pages of read-only file mappings that hold unwind tables are put here
 * (unwind_libunwind.c): a relocated read-only page (RELRO) differs from rank to rank. Bounded:
 * PAGECACHE_PAGES pages in sets of PAGECACHE_WAYS, the least recently used one evicted, the
 * evictions counted for the report. */
#ifndef PARASTACK_PAGECACHE_H
#define PARASTACK_PAGECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAGECACHE_PAGE 4096
#define PAGECACHE_PAGES 512 /* 2 MiB for the monitor, whatever its number of ranks */
#define PAGECACHE_WAYS 8

struct pagecache_key {
	uint64_t dev, ino, off; /* off: a multiple of PAGECACHE_PAGE */
};

/* Reads a page into buf from where ctx says (a rank's memory); false when it cannot. */
typedef bool (*pagecache_fill)(void *ctx, void *buf);

/* The page of key, read by fill when it is not held (NULL when fill fails or memory ran out).
 * Valid until the next call. */
const unsigned char *pagecache_get(const struct pagecache_key *key, pagecache_fill fill, void *ctx);

struct pagecache_stats {
	long pages;     /* held now */
	long hits, misses, evictions;
};
void pagecache_stats(struct pagecache_stats *st);
/* Every page dropped (tests). */
void pagecache_clear(void);

#endif
