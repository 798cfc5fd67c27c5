/* SPDX-License-Identifier: BSD-3-Clause */
/* symbolize — libdw's Dwfl over /proc/PID/maps; inline expansion walks the DWARF scopes that
 * contain the pc, innermost first: each DW_TAG_inlined_subroutine is a logical frame whose
 * caller's position is its DW_AT_call_file/DW_AT_call_line. */
#include "symbolize.h"
#include "../safe/fscreds.h"
#include "../safe/procfs.h"
#include "../safe/textsafe.h"
#include "../safe/watchdog.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One per executable: the ranks that run it share it (their libraries' debug information is
 * loaded once), their addresses translated into the process it was opened on. */
struct symbolizer {
	Dwfl *dwfl;
	pid_t pid;
	struct maps ref;    /* that process's map, to translate other processes' addresses */
	uid_t uid;          /* its owner: the files are read as they would be */
	gid_t gid;
};

static char *debuginfo_path;
/* The process whose modules libdw is finding now (find_elf has no argument for it). */
static __thread pid_t finding_for;

/* A module's ELF file, opened as the target sees it and only if it is a regular file (never a
 * FIFO planted at "<path> (deleted)", which would block the open); [vdso] and the like as
 * libdw finds them. */
static int safe_find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
			 char **file_name, Elf **elfp)
{
	if (name && name[0] == '/') {
		int fd = procfs_open_mapped(finding_for, name);

		if (fd < 0)
			return -1;
		*file_name = strdup(name);
		return fd;
	}
	return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = safe_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* (Re)read pid's modules into sy's Dwfl, as their owner: modules reported again keep what was
 * loaded of them; those gone are dropped. 0, or -1. */
static int symbolizer_report(struct symbolizer *sy, pid_t pid)
{
	struct fscreds saved;
	struct maps fresh;
	int r;

	finding_for = pid;
	fscreds_enter(sy->uid, sy->gid, &saved);
	r = maps_load(pid, &fresh);
	if (r == 0) {
		dwfl_report_begin(sy->dwfl);
		r = dwfl_linux_proc_report(sy->dwfl, pid) != 0 || dwfl_report_end(sy->dwfl, NULL, NULL) != 0 ? -1 : 0;
	}
	fscreds_leave(&saved);
	if (r == 0) {
		maps_free(&sy->ref);
		sy->ref = fresh;
		sy->pid = pid;
	} else {
		maps_free(&fresh); /* a no-op after maps_load failed */
	}
	return r;
}

struct symbolizer *symbolizer_open(pid_t pid)
{
	struct symbolizer *sy = calloc(1, sizeof(*sy));

	if (!sy)
		return NULL;
	if (fscreds_owner(pid, &sy->uid, &sy->gid) < 0 || !(sy->dwfl = dwfl_begin(&proc_callbacks)) ||
	    symbolizer_report(sy, pid) < 0) {
		symbolizer_close(sy);
		return NULL;
	}
	return sy;
}

/* Can sy name the addresses of the process laid out as mp (same executable, same owner)? */
static bool symbolizer_fits(const struct symbolizer *sy, const struct maps *mp)
{
	uid_t uid;
	gid_t gid;

	return sy && sy->ref.exe && mp->exe && !strcmp(sy->ref.exe, mp->exe) &&
	       fscreds_owner(mp->pid, &uid, &gid) == 0 && uid == sy->uid && gid == sy->gid;
}

void symbolizer_close(struct symbolizer *sy)
{
	if (!sy)
		return;
	if (sy->dwfl)
		dwfl_end(sy->dwfl);
	maps_free(&sy->ref);
	free(sy);
}

struct symbolizer *symbolizer_pool_get(struct symbolizer_pool *pool, const struct maps *mp)
{
	struct symbolizer *sy;

	for (int i = 0; i < pool->n; i++)
		if (symbolizer_fits(pool->s[i], mp))
			return pool->s[i];
	if (pool->n == pool->cap) {
		int cap = pool->cap ? pool->cap * 2 : 4;
		struct symbolizer **s = realloc(pool->s, (size_t)cap * sizeof(*s));

		if (!s)
			return NULL;
		pool->s = s;
		pool->cap = cap;
	}
	if (!(sy = symbolizer_open(mp->pid)))
		return NULL;
	pool->s[pool->n++] = sy;
	return sy;
}

void symbolizer_pool_free(struct symbolizer_pool *pool)
{
	for (int i = 0; i < pool->n; i++)
		symbolizer_close(pool->s[i]);
	free(pool->s);
	memset(pool, 0, sizeof(*pool));
}

/* Lowest address at which path is mapped in mp, or 0. */
static uint64_t path_base(const struct maps *mp, const char *path)
{
	uint64_t base = 0;

	for (int i = 0; i < mp->len; i++) {
		const char *p = maps_path(mp, &mp->m[i]);

		if (p && !strcmp(p, path) && (!base || mp->m[i].start < base))
			base = mp->m[i].start;
	}
	return base;
}

/* Does sy's view of the module at addr differ from mp's (mp read later, the module loaded,
 * unloaded or replaced since sy read its process)? Then sy reads mp's process again. */
static bool symbolizer_behind(const struct symbolizer *sy, const struct maps *mp, uint64_t addr)
{
	const struct mapping *m = maps_find(mp, addr);
	const char *path = maps_path(mp, m);

	if (!path || mp->generation <= sy->ref.generation)
		return false;
	if (mp->pid != sy->pid)
		return !path_base(&sy->ref, path);

	const struct mapping *r = maps_find(&sy->ref, addr);
	const char *rpath = maps_path(&sy->ref, r);

	return !rpath || strcmp(rpath, path) || r->start != m->start || r->offset != m->offset;
}

/* How far addr of the process laid out as mp lies from the same code in the symbolizer's own
 * process (its module loaded elsewhere: ASLR); false when that module is not mapped there. */
static bool address_shift(struct symbolizer *sy, const struct maps *mp, uint64_t addr, int64_t *shift)
{
	*shift = 0;
	if (!mp)
		return true;
	if (symbolizer_behind(sy, mp, addr))
		symbolizer_report(sy, mp->pid);
	if (mp->pid == sy->pid)
		return true;

	const char *path = maps_path(mp, maps_find(mp, addr));
	uint64_t mine = path ? path_base(mp, path) : 0, theirs = path ? path_base(&sy->ref, path) : 0;

	if (!mine || !theirs)
		return false;
	*shift = (int64_t)(theirs - mine);
	return true;
}

/* Names come from the watched binary's debug information: whatever bytes it holds reach the
 * user's terminal and the JSON report (textsafe.h). */
static void copy_str(char *dst, size_t len, const char *src)
{
	text_escape(dst, len, src, (size_t)-1);
}

/* Name of a subprogram or inlined-subroutine DIE, following abstract origins. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = NULL;

	if (dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	return name;
}

/* The caller's source position recorded on an inlined-subroutine DIE. */
static void call_site(Dwarf_Die *cudie, Dwarf_Die *inl, struct sym_frame *f)
{
	Dwarf_Attribute attr;
	Dwarf_Word fileidx = 0, line = 0;
	Dwarf_Files *files;
	size_t nfiles;

	if (dwarf_attr(inl, DW_AT_call_file, &attr))
		dwarf_formudata(&attr, &fileidx);
	if (dwarf_attr(inl, DW_AT_call_line, &attr))
		dwarf_formudata(&attr, &line);
	f->line = (int)line;
	if (fileidx && dwarf_getsrcfiles(cudie, &files, &nfiles) == 0 && fileidx < nfiles)
		copy_str(f->file, sizeof(f->file), dwarf_filesrc(files, fileidx, NULL, NULL));
}

static void frame_basics(Dwfl_Module *mod, uint64_t pc, uint64_t lookup, struct sym_frame *f)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *modname = NULL;

	memset(f, 0, sizeof(*f));
	f->pc = pc;
	if (!mod)
		return;
	/* The module's name is the mapped file's path for modules reported from /proc. */
	modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	copy_str(f->module, sizeof(f->module), modname);

	const char *name = dwfl_module_addrinfo(mod, lookup, &off, &sym, NULL, NULL, NULL);

	copy_str(f->func, sizeof(f->func), name);
	f->offset = name ? pc - (lookup - off) : 0;

	Dwfl_Line *line = dwfl_module_getsrc(mod, lookup);

	if (line) {
		int lineno = 0;
		const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);

		copy_str(f->file, sizeof(f->file), file);
		f->line = lineno;
	}
}

/* Logical frames at pc, an address of the symbolizer's own process. */
static int symbolize_own(struct symbolizer *sy, uint64_t pc, bool return_address,
			 struct sym_frame *out, int max)
{
	uint64_t lookup = return_address && pc ? pc - 1 : pc;
	Dwfl_Module *mod = sy ? dwfl_addrmodule(sy->dwfl, lookup) : NULL;

	frame_basics(mod, pc, lookup, &out[0]);
	if (!mod || max < 2)
		return 1;

	Dwarf_Addr bias = 0;
	Dwarf_Die *cudie = dwfl_module_addrdie(mod, lookup, &bias);
	Dwarf_Die *scopes = NULL;
	int nscopes = cudie ? dwarf_getscopes(cudie, lookup - bias, &scopes) : 0;
	int n = 0, prev = -1;

	/* dwarf_getscopes continues from an inlined instance into its abstract origin's scopes;
	 * the chain of concrete callers comes from dwarf_getscopes_die on the innermost DIE (as
	 * elfutils' addr2line -i does). */
	if (nscopes > 0) {
		Dwarf_Die inner;
		Dwarf_Addr dwbias;
		Dwarf *dw = dwfl_module_getdwarf(mod, &dwbias);
		Dwarf_Off off = dwarf_dieoffset(&scopes[0]);

		free(scopes);
		scopes = NULL;
		nscopes = dw && dwarf_offdie(dw, off, &inner) ? dwarf_getscopes_die(&inner, &scopes) : 0;
	}

	/* scopes[0] is innermost. Each inlined subroutine is a logical frame; the subprogram that
	 * contains them is the physical frame and keeps the symbol table's name and offset. The
	 * position in frame k > 0 is where frame k-1 was inlined: its DIE's call site. */
	for (int i = 0; i < nscopes && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		if (n > 0) {
			frame_basics(mod, pc, lookup, &out[n]);
			out[n].file[0] = '\0';
			out[n].line = 0;
			call_site(cudie, &scopes[prev], &out[n]);
		}
		out[n].inlined = tag == DW_TAG_inlined_subroutine;
		if (out[n].inlined || !out[n].func[0]) {
			copy_str(out[n].func, sizeof(out[n].func), die_name(&scopes[i]));
			if (out[n].inlined)
				out[n].offset = 0;
		}
		prev = i;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	return n ? n : 1;
}

int symbolize(struct symbolizer *sy, const struct maps *mp, uint64_t pc, bool return_address,
	      struct sym_frame *out, int max)
{
	int64_t shift;
	struct fscreds saved;

	if (!sy || !address_shift(sy, mp, pc, &shift))
		return symbolize_own(NULL, pc, return_address, out, max);
	/* libdw opens a module's files when first asked: through the asking process's view, as
	 * its owner. */
	finding_for = mp ? mp->pid : sy->pid;
	fscreds_enter(sy->uid, sy->gid, &saved);

	/* A debug file found beside the module (.gnu_debuglink) lies where the job can plant a
	 * FIFO: the lookup has a budget; past it the frame keeps what was found. */
	struct watchdog dog;

	watchdog_arm(&dog, WATCHDOG_STEP_MS);

	int n = symbolize_own(sy, (uint64_t)((int64_t)pc + shift), return_address, out, max);

	watchdog_disarm(&dog);
	fscreds_leave(&saved);
	for (int i = 0; i < n; i++)
		out[i].pc = pc;
	return n;
}
