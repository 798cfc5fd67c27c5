/* SPDX-License-Identifier: BSD-3-Clause */
/* modreg — the files the ranks map, one entry per file for the whole monitor: its path and
 * what one ELF scan of it found (the address ranges of MPI's functions, in the file's own
 * addresses). Ranks of one executable and one MPI library (all of a node's ranks, usually) hold
 * references to the same entries and keep only their own load addresses (maps.h), so a node of
 * 256 ranks holds each path and each scan once, not 256 times.
 *
 * An entry is the file as the map names it (path, device, inode) and as the monitor opened it
 * (its device, inode, size and time of change as fstat saw them): a rank whose file under the
 * same path is another file, a rebuilt binary or a library replaced and mapped again, gets an
 * entry of its own. What an entry holds comes from the file, never from a rank's memory, so
 * nothing one rank writes steers how another is read. Entries go with their last reference. */
#ifndef PARASTACK_MODREG_H
#define PARASTACK_MODREG_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct addr_ranges {
	struct { uint64_t start, end; } *r;
	int n, cap;
};

/* The file as the monitor opened it (all 0: it could not be opened). */
struct file_id {
	uint64_t dev, ino, size;
	int64_t mtime_ns;
};

struct module {
	char *path;
	uint64_t map_dev, map_ino; /* as /proc/PID/maps names it */
	struct file_id file;
	int refs;
	/* The scan (modreg_scan): the first PT_LOAD's page-aligned address, and the ranges of the
	 * file's MPI_*, start-up, progress-engine and polling functions in the file's addresses. */
	bool scanned;
	uint64_t vaddr0;
	struct addr_ranges mpi, init, progress, polling;
	struct module *next;
};

/* The identity of an open file. */
void modreg_file_id(const struct stat *st, struct file_id *id);
/* The entry of this file, with a reference taken; NULL when memory ran out. */
struct module *modreg_get(const char *path, uint64_t map_dev, uint64_t map_ino, const struct file_id *file);
/* Let go of a reference (NULL: nothing). */
void modreg_put(struct module *m);
/* Scan the module's symbols once, from fd (the file, as a rank sees it: checked against the
 * entry's identity and left open). Later calls return at once. */
void modreg_scan(struct module *m, int fd);
/* The first PT_LOAD's page-aligned address (a process's bias is where it maps the file's
 * offset 0, less it); false when the file has none. */
bool modreg_first_load(Elf *elf, uint64_t *vaddr);
/* Entries held now. */
long modreg_count(void);

bool ranges_hold(const struct addr_ranges *rs, uint64_t addr);

#endif
