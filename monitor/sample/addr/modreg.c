/* SPDX-License-Identifier: BSD-3-Clause */
/* modreg — one entry per mapped file for the whole monitor, and the ELF scan that finds the
 * ranges of MPI's functions in it (modreg.h). */
#include "modreg.h"
#include "../../../base/runtimes.h"

#include <ctype.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BUCKETS 1024

static struct module *table[BUCKETS];
static long held;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void modreg_file_id(const struct stat *st, struct file_id *id)
{
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

static unsigned bucket_of(const char *path, uint64_t dev, uint64_t ino)
{
	uint64_t h = 1469598103934665603ull ^ dev ^ (ino * 0x9e3779b97f4a7c15ull);

	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return (unsigned)(h % BUCKETS);
}

static bool same_file(const struct file_id *a, const struct file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns;
}

struct module *modreg_get(const char *path, uint64_t map_dev, uint64_t map_ino, const struct file_id *file)
{
	unsigned b = bucket_of(path, map_dev, map_ino);
	struct module *m;

	pthread_mutex_lock(&lock);
	for (m = table[b]; m; m = m->next)
		if (m->map_dev == map_dev && m->map_ino == map_ino && same_file(&m->file, file) &&
		    !strcmp(m->path, path))
			break;
	if (!m && (m = calloc(1, sizeof(*m)))) {
		if (!(m->path = strdup(path))) {
			free(m);
			m = NULL;
		} else {
			m->map_dev = map_dev;
			m->map_ino = map_ino;
			m->file = *file;
			m->next = table[b];
			table[b] = m;
			held++;
		}
	}
	if (m)
		m->refs++;
	pthread_mutex_unlock(&lock);
	return m;
}

static void ranges_free(struct addr_ranges *rs)
{
	free(rs->r);
	memset(rs, 0, sizeof(*rs));
}

void modreg_put(struct module *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&lock);
	if (--m->refs > 0) {
		pthread_mutex_unlock(&lock);
		return;
	}

	struct module **p = &table[bucket_of(m->path, m->map_dev, m->map_ino)];

	while (*p && *p != m)
		p = &(*p)->next;
	if (*p)
		*p = m->next;
	held--;
	pthread_mutex_unlock(&lock);
	ranges_free(&m->mpi);
	ranges_free(&m->init);
	ranges_free(&m->progress);
	ranges_free(&m->polling);
	free(m->path);
	free(m);
}

long modreg_count(void)
{
	pthread_mutex_lock(&lock);

	long n = held;

	pthread_mutex_unlock(&lock);
	return n;
}

static int ranges_push(struct addr_ranges *rs, uint64_t start, uint64_t end)
{
	if (rs->n == rs->cap) {
		int ncap = rs->cap ? rs->cap * 2 : 16;
		void *nr = realloc(rs->r, (size_t)ncap * sizeof(rs->r[0]));

		if (!nr)
			return -1;
		rs->r = nr;
		rs->cap = ncap;
	}
	rs->r[rs->n].start = start;
	rs->r[rs->n].end = end;
	rs->n++;
	return 0;
}

bool ranges_hold(const struct addr_ranges *rs, uint64_t addr)
{
	for (int i = 0; i < rs->n; i++)
		if (addr >= rs->r[i].start && addr < rs->r[i].end)
			return true;
	return false;
}

static bool is_mpi_symbol(const char *name)
{
	return !strncmp(name, "MPI_", 4) || !strncmp(name, "PMPI_", 5) ||
	       !strncmp(name, "mpi_", 4) || !strncmp(name, "pmpi_", 5);
}

/* MPI's polling calls (MPI_Test*, MPI_Iprobe, ...; their PMPI_ and Fortran names): a rank that
 * loops over them waits as surely as one blocked in MPI_Wait. */
static bool is_polling_symbol(const char *name)
{
	static const char *const calls[] = { "test", "testall", "testany", "testsome", "iprobe",
					     "improbe", "test_cancelled", NULL };
	char base[64];
	size_t n;

	const char *stem;

	if ((n = runtime_mpi_stem(name, &stem)))
		snprintf(base, sizeof(base), "mpi_%.*s", (int)n, stem);
	else
		snprintf(base, sizeof(base), "%s", name + (tolower((unsigned char)name[0]) == 'p'));
	n = strlen(base);
	while (n && base[n - 1] == '_')
		base[--n] = '\0';
	if (strncasecmp(base, "mpi_", 4))
		return false;
	for (int i = 0; calls[i]; i++)
		if (!strcasecmp(base + 4, calls[i]))
			return true;
	return false;
}

bool modreg_first_load(Elf *elf, uint64_t *vaddr)
{
	size_t nph;

	if (elf_getphdrnum(elf, &nph) != 0)
		return false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			*vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
			return true;
		}
	}
	return false;
}

/* One function symbol into the lists it belongs to. */
static void scan_symbol(struct module *m, const char *name, uint64_t start, uint64_t end)
{
	if (runtime_is_startup_symbol(name))
		ranges_push(&m->init, start, end);
	if (runtime_is_progress_symbol(name))
		ranges_push(&m->progress, start, end);
	if (is_polling_symbol(name))
		ranges_push(&m->polling, start, end);
	if (is_mpi_symbol(name))
		ranges_push(&m->mpi, start, end);
}

static void scan_elf(struct module *m, Elf *elf)
{
	Elf_Scn *scn = NULL;

	if (!modreg_first_load(elf, &m->vaddr0))
		m->vaddr0 = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;

		Elf_Data *data = elf_getdata(scn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

		for (size_t i = 0; data && i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_value || !sym.st_size || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			scan_symbol(m, name, sym.st_value, sym.st_value + sym.st_size);
		}
	}
}

void modreg_scan(struct module *m, int fd)
{
	struct stat st;
	struct file_id id;

	pthread_mutex_lock(&lock);
	if (m->scanned || fd < 0 || elf_version(EV_CURRENT) == EV_NONE || fstat(fd, &st) < 0) {
		pthread_mutex_unlock(&lock);
		return;
	}
	modreg_file_id(&st, &id);
	/* Another file than the entry's (replaced since the map was read): not this entry's. */
	if (same_file(&id, &m->file)) {
		Elf *elf = elf_begin(fd, ELF_C_READ, NULL);

		if (elf) {
			scan_elf(m, elf);
			elf_end(elf);
		}
		m->scanned = true;
	}
	pthread_mutex_unlock(&lock);
}
