/* maps — parsing /proc/PID/maps, classifying modules by file name, and collecting the address
 * ranges of MPI_* functions from the symbol tables of application modules (libelf). */
#include "maps.h"
#include "../safe/procfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Shared objects of MPI implementations and the fabrics beneath them (name prefixes); also
 * parastack's own recording layer, whose MPI_* wrappers are the application's MPI calls. */
static const char *const mpi_prefixes[] = {
	"libparastack-mpi", "libmpi", "libpmpi", "libopen-pal", "libopen-rte", "libmpich", "libmpl.", "libmca_common_",
	"mca_", "libucp", "libuct", "libucs", "libfabric", "libpsm", "libhcoll", "libmxm",
	"libnccl-net", NULL,
};

/* Libraries that hold no application code: a thread whose whole stack lies in these (and in
 * MPI) is a runtime helper thread and does not decide a rank's state. */
static const char *const runtime_prefixes[] = {
	"libc.so", "libc-", "ld-linux", "ld-", "libpthread", "libdl", "librt", "libm.so", "libm-",
	"libgcc_s", "libstdc++", "libgomp", "libevent", "libpmix", "libhwloc", "libudev",
	"libibverbs", "librdmacm", "libnl-", "libz.so", "libmunge", "libltdl", "libnuma",
	"libsystemd", "libcap", "liblzma", "libzstd", "libgfortran", "libquadmath", "[vdso]",
	"[vsyscall]", NULL,
};

static char *extra_mpi;     /* colon-separated extra MPI prefixes */
static bool extra_mpi_set; /* set explicitly, or read from PARASTACK_MPI_LIBS once */

void maps_set_extra_mpi(const char *colon_list)
{
	free(extra_mpi);
	extra_mpi = colon_list && *colon_list ? strdup(colon_list) : NULL;
	extra_mpi_set = true;
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

	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (has_prefix_in(base, mpi_prefixes) || has_extra_mpi_prefix(base))
		return MODULE_MPI;
	if (has_prefix_in(base, runtime_prefixes))
		return MODULE_RUNTIME;
	return MODULE_APP;
}

static int maps_intern_path(struct maps *mp, const char *path)
{
	for (int i = mp->npaths - 1; i >= 0; i--)
		if (!strcmp(mp->paths[i], path))
			return i;

	char **np = realloc(mp->paths, (size_t)(mp->npaths + 1) * sizeof(char *));

	if (!np)
		return -1;
	mp->paths = np;
	if (!(mp->paths[mp->npaths] = strdup(path)))
		return -1;
	return mp->npaths++;
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

static int ranges_push(struct addr_ranges *rs, uint64_t start, uint64_t end)
{
	if (rs->n == rs->cap) {
		int ncap = rs->cap ? rs->cap * 2 : 64;
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

static bool ranges_hold(const struct addr_ranges *rs, uint64_t addr)
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

static bool name_in(const char *name, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

/* The start-up calls: a rank inside one of these is starting, not hung (Open MPI's and MPICH's
 * bodies of MPI_Init, and the Fortran bindings). */
static bool is_init_symbol(const char *name)
{
	static const char *const init[] = { "MPI_Init", "PMPI_Init", "MPI_Init_thread",
		"PMPI_Init_thread", "ompi_mpi_init", "MPID_Init", "MPIR_Init_thread", "mpi_init_",
		"pmpi_init_", "mpi_init_thread_", "pmpi_init_thread_", "ompi_init_f",
		"ompi_init_thread_f", NULL };

	return name_in(name, init);
}

/* Load bias of a module: where its file offset 0 is mapped, minus the first PT_LOAD vaddr. */
static uint64_t module_bias(const struct maps *mp, int path_index, Elf *elf)
{
	uint64_t base = UINT64_MAX;
	size_t nph;

	for (int i = 0; i < mp->len; i++)
		if (mp->m[i].path_index == path_index && mp->m[i].offset == 0 && mp->m[i].start < base)
			base = mp->m[i].start;
	if (base == UINT64_MAX || elf_getphdrnum(elf, &nph) != 0)
		return 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			return base - (ph.p_vaddr & ~(uint64_t)0xfff);
	}
	return 0;
}

/* The index of the first mapped file whose name starts with file_prefix, or -1. */
static int maps_module_index(const struct maps *mp, const char *file_prefix, int from)
{
	for (int p = from; p < mp->npaths; p++) {
		const char *base = strrchr(mp->paths[p], '/');

		base = base ? base + 1 : mp->paths[p];
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

		int fd = procfs_open_mapped(mp->pid, mp->paths[p]);
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

/* The MPI library's progress engines: a rank blocked for good spins in them, and what they
 * call changes from one sample to the next (design.md §4, the fingerprint). */
static bool is_progress_symbol(const char *name)
{
	static const char *const engines[] = { "opal_progress", "ucp_worker_progress",
		"uct_worker_progress", "MPID_Progress_wait", "MPID_Progress_test",
		"MPIDI_CH3I_Progress", "MPIDI_progress_test", "MPIDI_Progress_test",
		"MPIR_Progress_hook_exec_all", NULL };

	return name_in(name, engines);
}

/* MPI's polling calls (MPI_Test*, MPI_Iprobe, ...; their PMPI_ and Fortran names): a rank that
 * loops over them waits as surely as one blocked in MPI_Wait. */
static bool is_polling_symbol(const char *name)
{
	static const char *const calls[] = { "test", "testall", "testany", "testsome", "iprobe",
					     "improbe", "test_cancelled", NULL };
	char base[64];
	size_t n;

	if (!strncasecmp(name, "ompi_", 5) && (n = strlen(name)) > 7 && !strcmp(name + n - 2, "_f"))
		snprintf(base, sizeof(base), "mpi_%.*s", (int)(n - 7), name + 5);
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

/* Add the ranges of one module's start-up functions and progress engines and, when want_mpi
 * (an application module), of its MPI_* functions. */
static void maps_scan_symbols(struct maps *mp, int path_index, bool want_mpi)
{
	int fd = mp->path_ok[path_index] ? procfs_open_mapped(mp->pid, mp->paths[path_index]) : -1;

	if (fd < 0)
		return;

	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);

	if (!elf) {
		close(fd);
		return;
	}

	uint64_t bias = module_bias(mp, path_index, elf);
	Elf_Scn *scn = NULL;

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
			    !sym.st_value || !sym.st_size)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name)
				continue;
			if (is_init_symbol(name))
				ranges_push(&mp->init_syms, bias + sym.st_value, bias + sym.st_value + sym.st_size);
			if (is_progress_symbol(name))
				ranges_push(&mp->progress_syms, bias + sym.st_value, bias + sym.st_value + sym.st_size);
			if (is_polling_symbol(name))
				ranges_push(&mp->polling_syms, bias + sym.st_value, bias + sym.st_value + sym.st_size);
			if (want_mpi && is_mpi_symbol(name))
				ranges_push(&mp->mpi_syms, bias + sym.st_value, bias + sym.st_value + sym.st_size);
		}
	}
	elf_end(elf);
	close(fd);
}

/* Is path_index one of the MPI libraries that hold MPI_Init or a progress engine? */
static bool is_main_mpi_library(const struct maps *mp, int path_index)
{
	/* parastack's own recording layer too: its MPI_Test* wrappers are the polling calls the
	 * application makes, its MPI_Init wrapper the start-up it is in. */
	static const char *const libs[] = { "libmpi.so", "libmpich.so", "libopen-pal.so",
					    "libucp.so", "libuct.so", "libmpi_mpifh.so", "libmpi_usempi",
					    "libmpifort.so", "libparastack-mpi.so", NULL };
	const char *base = strrchr(mp->paths[path_index], '/');

	base = base ? base + 1 : mp->paths[path_index];
	return has_prefix_in(base, libs);
}

static void maps_find_mpi_symbols(struct maps *mp)
{
	bool have_mpi_module = false;

	for (int i = 0; i < mp->len; i++)
		have_mpi_module |= mp->m[i].kind == MODULE_MPI;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	/* With a shared MPI library, its own mappings decide; only a statically linked MPI (or
	 * bindings compiled into the executable) needs the MPI_* scan of application modules. */
	for (int p = 0; p < mp->npaths; p++) {
		bool app_exec = false;

		for (int i = 0; i < mp->len; i++)
			app_exec |= mp->m[i].path_index == p && mp->m[i].exec &&
				    mp->m[i].kind == MODULE_APP;
		if (app_exec && !have_mpi_module)
			maps_scan_symbols(mp, p, true);
		else if (is_main_mpi_library(mp, p))
			maps_scan_symbols(mp, p, false);
	}
}

/* Which of the mapped files may be opened at all (path_ok). */
static void maps_check_files(struct maps *mp)
{
	mp->path_ok = calloc((size_t)mp->npaths + 1, sizeof(bool));
	for (int i = 0; mp->path_ok && i < mp->npaths; i++) {
		int fd = procfs_open_mapped(mp->pid, mp->paths[i]);

		mp->path_ok[i] = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
}

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
	m->path_index = -1;
	*name = line + name_at;
	(*name)[strcspn(*name, "\n")] = '\0';
	return 0;
}

int maps_load(pid_t pid, struct maps *mp)
{
	char path[64], exe[4096];
	int cap = 0;

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

	char line[4352];

	while (fgets(line, sizeof(line), f)) {
		struct mapping m;
		char *name;

		if (maps_parse_line(line, &m, &name) < 0)
			continue;
		if (*name) {
			m.path_index = maps_intern_path(mp, name);
			m.kind = maps_classify_path(name, mp->exe);
		} else {
			m.kind = MODULE_APP; /* anonymous executable memory: JIT code of the app */
		}
		if (maps_push(mp, &m, &cap) < 0) {
			fclose(f);
			maps_free(mp);
			errno = ENOMEM;
			return -1;
		}
	}
	fclose(f);
	if (mp->len == 0) {
		/* Kernel threads and exited processes have no map. */
		maps_free(mp);
		errno = ESRCH;
		return -1;
	}
	/* Kept for the rank's life: no room for mappings that will not come (a rank of Open MPI has
	 * some 280; the doubling left room for 512). */
	struct mapping *fit = realloc(mp->m, (size_t)mp->len * sizeof(*fit));

	if (fit)
		mp->m = fit;
	maps_check_files(mp);
	maps_find_mpi_symbols(mp);
	return 0;
}

void maps_free(struct maps *mp)
{
	for (int i = 0; i < mp->npaths; i++)
		free(mp->paths[i]);
	free(mp->paths);
	free(mp->m);
	free(mp->exe);
	free(mp->mpi_syms.r);
	free(mp->init_syms.r);
	free(mp->progress_syms.r);
	free(mp->polling_syms.r);
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
	return m && m->path_index >= 0 ? mp->paths[m->path_index] : NULL;
}

int maps_kind_at(const struct maps *mp, uint64_t addr)
{
	const struct mapping *m = maps_find(mp, addr);

	if (!m)
		return -1;
	if (m->kind == MODULE_APP && ranges_hold(&mp->mpi_syms, addr))
		return MODULE_MPI;
	return (int)m->kind;
}

bool maps_in_init(const struct maps *mp, uint64_t addr)
{
	return ranges_hold(&mp->init_syms, addr);
}

bool maps_in_progress_engine(const struct maps *mp, uint64_t addr)
{
	return ranges_hold(&mp->progress_syms, addr);
}

bool maps_in_polling_call(const struct maps *mp, uint64_t addr)
{
	return ranges_hold(&mp->polling_syms, addr);
}

bool maps_in_mpi(const struct maps *mp, uint64_t addr)
{
	return maps_kind_at(mp, addr) == MODULE_MPI;
}
