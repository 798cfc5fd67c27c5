/* SPDX-License-Identifier: BSD-3-Clause */
/* maps — parsing /proc/PID/maps, classifying modules by file name, and collecting the address
 * ranges of MPI_* functions from the symbol tables of application modules (libelf). */
#include "maps.h"
#include "../../../base/runtimes.h"
#include "../safe/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Libraries that hold no application code: a thread whose whole stack lies in these (and in
 * MPI) is a runtime helper thread and does not decide a rank's state. */
static const char *const runtime_prefixes[] = {
	"libc.so", "libc-", "ld-linux", "ld-", "libpthread", "libdl", "librt", "libm.so", "libm-",
	"libgcc_s", "libstdc++", "libgomp", "libevent", "libpmix", "libhwloc", "libudev",
	"libibverbs", "librdmacm", "libnl-", "libz.so", "libmunge", "libltdl", "libnuma",
	"libsystemd", "libcap", "liblzma", "libzstd", "libgfortran", "libquadmath", "[vdso]",
	"[vsyscall]", NULL,
};

/* Where every stack begins: the C library (a thread's clone) and its loader; the program's own
 * _start is the other place (maps_load marks both). */
static const char *const stack_base_prefixes[] = { "libc.so", "libc-", "ld-linux", "ld-musl", NULL };

static char *extra_mpi;     /* colon-separated extra MPI prefixes */
static bool extra_mpi_set; /* set explicitly, or read from PARASTACK_MPI_LIBS once */

void maps_set_extra_mpi(const char *colon_list)
{
	free(extra_mpi);
	extra_mpi = colon_list && *colon_list ? strdup(colon_list) : NULL;
	extra_mpi_set = true;
}

/* The file name of path: what follows its last '/'. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool has_prefix_in(const char *name, const char *const *prefixes)
{
	for (int i = 0; prefixes[i]; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static bool has_extra_mpi_prefix(const char *name)
{
	if (!extra_mpi_set)
		maps_set_extra_mpi(getenv("PARASTACK_MPI_LIBS"));
	if (!extra_mpi)
		return false;
	for (const char *p = extra_mpi; *p;) {
		size_t n = strcspn(p, ":");

		if (n && !strncmp(name, p, n))
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

enum module_kind maps_classify_path(const char *path, const char *exe)
{
	if (!path)
		return MODULE_APP;
	if (exe && !strcmp(path, exe))
		return MODULE_APP;

	const char *base = base_name(path);

	if (runtime_of_library(base) || has_extra_mpi_prefix(base))
		return MODULE_MPI;
	if (has_prefix_in(base, runtime_prefixes))
		return MODULE_RUNTIME;
	return MODULE_APP;
}

/* The index of path among the names read so far (names, *n of them), added if new; -1 when
 * memory ran out. */
static int intern_name(char ***names, int *n, const char *path)
{
	for (int i = *n - 1; i >= 0; i--)
		if (!strcmp((*names)[i], path))
			return i;

	char **nn = realloc(*names, (size_t)(*n + 1) * sizeof(char *));

	if (!nn)
		return -1;
	*names = nn;
	if (!(nn[*n] = strdup(path)))
		return -1;
	return (*n)++;
}

static int maps_push(struct maps *mp, const struct mapping *m, int *cap)
{
	if (mp->len == *cap) {
		int ncap = *cap ? *cap * 2 : 256;
		struct mapping *nm = realloc(mp->m, (size_t)ncap * sizeof(*nm));

		if (!nm)
			return -1;
		mp->m = nm;
		*cap = ncap;
	}
	mp->m[mp->len++] = *m;
	return 0;
}

uint64_t maps_module_base(const struct maps *mp, int path_index)
{
	uint64_t base = 0;

	for (int i = 0; i < mp->len; i++)
		if (mp->m[i].path_index == path_index && mp->m[i].offset == 0 && (!base || mp->m[i].start < base))
			base = mp->m[i].start;
	return base;
}

/* Load bias of a module: where its file offset 0 is mapped, minus the first PT_LOAD vaddr. */
static uint64_t module_bias(const struct maps *mp, int path_index, Elf *elf)
{
	uint64_t base = maps_module_base(mp, path_index), vaddr0;

	return base && modreg_first_load(elf, &vaddr0) ? base - vaddr0 : 0;
}

/* The index of the first mapped file whose name starts with file_prefix, or -1. */
static int maps_module_index(const struct maps *mp, const char *file_prefix, int from)
{
	for (int p = from; p < mp->npaths; p++) {
		const char *base = strrchr(mp->mods[p]->path, '/');

		base = base ? base + 1 : mp->mods[p]->path;
		if (!strncmp(base, file_prefix, strlen(file_prefix)))
			return p;
	}
	return -1;
}

bool maps_has_module(const struct maps *mp, const char *file_prefix)
{
	return maps_module_index(mp, file_prefix, 0) >= 0;
}

uint64_t maps_symbol_address(const struct maps *mp, const char *file_prefix, const char *symbol)
{
	uint64_t addr = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	for (int p = 0; (p = maps_module_index(mp, file_prefix, p)) >= 0 && !addr; p++) {
		if (!mp->path_ok[p])
			continue;

		int fd = procfs_open_mapped(mp->pid, mp->mods[p]->path);
		Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
		Elf_Scn *scn = NULL;

		while (elf && !addr && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
			    !(data = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *name;

				if (gelf_getsym(data, (int)i, &sym) && sym.st_value &&
				    (name = elf_strptr(elf, sh.sh_link, sym.st_name)) && !strcmp(name, symbol)) {
					addr = module_bias(mp, p, elf) + sym.st_value;
					break;
				}
			}
		}
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
	}
	return addr;
}

/* Which of the rank's modules' function ranges say what an address is (maps.syms): with a
 * shared MPI library, its own mappings decide, and only a statically linked MPI (or bindings
 * compiled into the executable) needs the MPI_* ranges of application modules. */
static bool wants_symbols(const struct maps *mp, int p, bool have_mpi_module, bool *mpi)
{
	bool app_exec = false;

	for (int i = 0; i < mp->len; i++)
		app_exec |= mp->m[i].path_index == p && mp->m[i].exec && mp->m[i].kind == MODULE_APP;
	*mpi = app_exec && !have_mpi_module;
	/* The runtimes' own libraries: their start-up and progress calls (runtimes.c). */
	return *mpi || runtime_reads_symbols(base_name(mp->mods[p]->path));
}

/* The rank's modules, each found in (or added to) the monitor's registry as the file it opens
 * as the rank (path_ok), their function ranges scanned once per file. 0, or -1 (ENOMEM). */
static int maps_attach_modules(struct maps *mp, char **names)
{
	bool have_mpi_module = false;

	for (int i = 0; i < mp->len; i++)
		have_mpi_module |= mp->m[i].kind == MODULE_MPI;
	mp->mods = calloc((size_t)mp->npaths + 1, sizeof(*mp->mods));
	mp->path_ok = calloc((size_t)mp->npaths + 1, sizeof(bool));
	mp->syms = calloc((size_t)mp->npaths + 1, sizeof(*mp->syms));
	if (!mp->mods || !mp->path_ok || !mp->syms)
		return -1;
	for (int p = 0; p < mp->npaths; p++) {
		const struct mapping *first = NULL;
		struct file_id id = { 0 };
		struct stat st;
		int fd = procfs_open_mapped(mp->pid, names[p]);
		bool mpi;

		for (int i = 0; i < mp->len && !first; i++)
			first = mp->m[i].path_index == p ? &mp->m[i] : NULL;
		if (fd >= 0 && fstat(fd, &st) == 0)
			modreg_file_id(&st, &id);
		mp->path_ok[p] = fd >= 0;
		mp->mods[p] = modreg_get(names[p], first ? first->dev : 0, first ? first->ino : 0, &id);
		if (!mp->mods[p]) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		if (fd >= 0 && wants_symbols(mp, p, have_mpi_module, &mpi)) {
			modreg_scan(mp->mods[p], fd);

			uint64_t base = maps_module_base(mp, p);

			if (mp->mods[p]->scanned && base)
				mp->syms[mp->nsyms++] = (struct sym_module){ mp->mods[p], base - mp->mods[p]->vaddr0, mpi };
		}
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

_Static_assert(sizeof(struct mapping) <= 48, "a rank keeps hundreds of mappings");

int maps_parse_line(char *line, struct mapping *m, char **name)
{
	char perms[8] = "";
	int name_at = 0;
	unsigned long long start, end, off, ino;
	unsigned major, minor;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &major, &minor, &ino,
		   &name_at) < 7 || !name_at || strlen(perms) < 4 || end <= start)
		return -1;
	m->start = start;
	m->end = end;
	m->offset = off;
	m->dev = (uint64_t)major << 32 | minor;
	m->ino = ino;
	m->exec = perms[2] == 'x';
	m->write = perms[1] == 'w';
	m->shared = perms[3] == 's';
	m->read = perms[0] == 'r';
	m->path_index = -1;
	*name = line + name_at;
	(*name)[strcspn(*name, "\n")] = '\0';
	return 0;
}

/* Read /proc/PID/maps into mp (the mappings, their paths as names). 0, or -1 with errno. */
static int maps_read(struct maps *mp, FILE *f, char ***names)
{
	char line[4352];
	int cap = 0;

	while (fgets(line, sizeof(line), f)) {
		struct mapping m;
		char *name;

		if (maps_parse_line(line, &m, &name) < 0)
			continue;
		/* Only code and read-only mappings are kept: the rest is neither code nor unwind tables
		 * (its memory is read directly), and memory shared with other processes (the segments
		 * of shared-memory transports, one per peer on the node) would make a rank's map grow
		 * with the number of its peers. */
		if (!m.exec && (m.shared || m.write || !m.read))
			continue;
		if (*name) {
			if ((m.path_index = intern_name(names, &mp->npaths, name)) < 0)
				return errno = ENOMEM, -1;
			m.kind = maps_classify_path(name, mp->exe);
			m.stack_base = (mp->exe && !strcmp(name, mp->exe)) ||
				       has_prefix_in(base_name(name), stack_base_prefixes);
		} else {
			m.kind = MODULE_APP; /* anonymous executable memory: JIT code of the app */
		}
		if (maps_push(mp, &m, &cap) < 0)
			return errno = ENOMEM, -1;
	}
	if (mp->len == 0)
		return errno = ESRCH, -1; /* kernel threads and exited processes have no map */
	/* Kept for the rank's life: no room for mappings that will not come (a rank of Open MPI
	 * keeps some 280; the doubling left room for 512). */
	struct mapping *fit = realloc(mp->m, (size_t)mp->len * sizeof(*fit));

	if (fit)
		mp->m = fit;
	return 0;
}

int maps_load(pid_t pid, struct maps *mp)
{
	char path[64], exe[4096], **names = NULL;
	int r = -1;

	static _Atomic uint64_t loads;

	memset(mp, 0, sizeof(*mp));
	mp->pid = pid;
	mp->generation = ++loads;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);

	ssize_t n = readlink(path, exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		mp->exe = strdup(exe);
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);

	FILE *f = fopen(path, "re");

	if (!f) {
		int e = errno;

		maps_free(mp);
		errno = e == ENOENT ? ESRCH : e;
		return -1;
	}
	r = maps_read(mp, f, &names);

	int e = errno;

	fclose(f);
	if (r == 0 && maps_attach_modules(mp, names) < 0) {
		r = -1;
		e = ENOMEM;
	}
	for (int i = 0; i < mp->npaths; i++)
		free(names[i]);
	free(names);
	if (r < 0) {
		maps_free(mp);
		errno = e;
	}
	return r;
}

void maps_free(struct maps *mp)
{
	for (int i = 0; mp->mods && i < mp->npaths; i++)
		modreg_put(mp->mods[i]);
	free(mp->mods);
	free(mp->m);
	free(mp->exe);
	free(mp->syms);
	free(mp->path_ok);
	memset(mp, 0, sizeof(*mp));
}

const struct mapping *maps_find(const struct maps *mp, uint64_t addr)
{
	int lo = 0, hi = mp->len - 1;

	/* /proc/PID/maps is sorted by address. */
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (addr < mp->m[mid].start)
			hi = mid - 1;
		else if (addr >= mp->m[mid].end)
			lo = mid + 1;
		else
			return &mp->m[mid];
	}
	return NULL;
}

bool maps_file_ok(const struct maps *mp, const struct mapping *m)
{
	return m && m->path_index >= 0 && mp->path_ok && mp->path_ok[m->path_index];
}

const char *maps_path(const struct maps *mp, const struct mapping *m)
{
	return m && m->path_index >= 0 && mp->mods ? mp->mods[m->path_index]->path : NULL;
}

const char *maps_path_at(const struct maps *mp, int i)
{
	return mp->mods[i]->path;
}

enum sym_list { SYMS_MPI, SYMS_INIT, SYMS_PROGRESS, SYMS_POLLING };

static const struct addr_ranges *sym_ranges(const struct module *mod, enum sym_list which)
{
	switch (which) {
	case SYMS_MPI: return &mod->mpi;
	case SYMS_INIT: return &mod->init;
	case SYMS_PROGRESS: return &mod->progress;
	default: return &mod->polling;
	}
}

/* Does one of the rank's modules, where the rank loaded it, hold addr in its list which (the MPI_*
 * functions only of the modules where they count as MPI)? */
static bool syms_hold(const struct maps *mp, uint64_t addr, enum sym_list which)
{
	for (int i = 0; i < mp->nsyms; i++) {
		const struct sym_module *s = &mp->syms[i];

		if ((which != SYMS_MPI || s->mpi) && addr >= s->bias &&
		    ranges_hold(sym_ranges(s->mod, which), addr - s->bias))
			return true;
	}
	return false;
}

bool maps_has_mpi_symbols(const struct maps *mp)
{
	for (int i = 0; i < mp->nsyms; i++)
		if (mp->syms[i].mpi && mp->syms[i].mod->mpi.n > 0)
			return true;
	return false;
}

int maps_kind_at(const struct maps *mp, uint64_t addr)
{
	const struct mapping *m = maps_find(mp, addr);

	if (!m)
		return -1;
	if (m->kind == MODULE_APP && syms_hold(mp, addr, SYMS_MPI))
		return MODULE_MPI;
	return (int)m->kind;
}

bool maps_in_init(const struct maps *mp, uint64_t addr)
{
	return syms_hold(mp, addr, SYMS_INIT);
}

bool maps_in_progress_engine(const struct maps *mp, uint64_t addr)
{
	return syms_hold(mp, addr, SYMS_PROGRESS);
}

bool maps_in_polling_call(const struct maps *mp, uint64_t addr)
{
	return syms_hold(mp, addr, SYMS_POLLING);
}

bool maps_in_mpi(const struct maps *mp, uint64_t addr)
{
	return maps_kind_at(mp, addr) == MODULE_MPI;
}
