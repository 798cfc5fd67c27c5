/* SPDX-License-Identifier: BSD-3-Clause */
/* unwind_libunwind — libunwind's remote unwinder over a snapshot. The accessors read the
 * registers and the copied stack from the snapshot; other memory (the .eh_frame tables the
 * unwinder consults) is read from the running target with process_vm_readv, through a small
 * page cache that only holds read-only mappings, which cannot change under us. The unwind
 * tables are found in the target's memory too (ehframe.h) and searched by libunwind's
 * dwarf_search_unwind_table: no module's file is opened while a thread is unwound (libunwind-
 * ptrace's _UPT_find_proc_info would open the path the map names, with every signal blocked,
 * so a FIFO planted there would hold the monitor for good). The accessors find the snapshot
 * being unwound through a thread-local pointer. */
#include <libunwind-ptrace.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "ehframe.h"
#include "pagecache.h"
#include "../addr/progress.h"
#include "unwind.h"

#define PAGE 4096
#define PAGE_CACHE 2 /* per sampling thread: the rank's own read-only pages; its unwind tables' are the monitor's (pagecache.h) */

/* libunwind's search of a remote .eh_frame_hdr table (exported, not in its headers). */
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di,
					      unw_proc_info_t *pi, int need_unwind_info, void *arg);

struct module_table {
	int path_index;
	bool ok;
	unw_dyn_info_t di;
	struct mapping tables; /* the read-only file mapping holding its .eh_frame_hdr (end 0: none) */
};

struct lu_state {
	pid_t pid;
	struct module_table *mods;
	int nmods;
	/* The mapping read last and whether it holds unwind tables (mods[memo_mod]; -1 no):
	 * libunwind reads 8 bytes at a time, mostly from one mapping. end 0: none yet. */
	uint64_t memo_start, memo_end;
	int memo_mod;
};

/* Read-only pages of the rank being unwound that are not unwind tables (the code libunwind
 * looks at for a signal frame): a few per sampling thread, each tagged with its rank, not a
 * cache per rank. */
static __thread struct {
	const struct lu_state *owner; /* NULL: empty */
	uint64_t page;
	unsigned char data[PAGE];
} own_pages[PAGE_CACHE];

/* Forget st's pages (its modules dropped, or st about to be freed and its address reused). */
static void own_pages_drop(const struct lu_state *st)
{
	for (int i = 0; i < PAGE_CACHE; i++)
		if (own_pages[i].owner == st)
			own_pages[i].owner = NULL;
}

/* What the accessors are working on right now. */
static __thread struct {
	struct lu_state *st;
	const struct snapshot *snap;
	const struct maps *mp;
} cur;

/* libunwind's address spaces (each holds a register-state cache of some 45 KiB): a pool per
 * sampling thread, not one per rank, each lent to the rank that unwinds last and flushed when
 * it passes to another (the cache is keyed by address, and two ranks' code lies at different
 * addresses). AS_POOL covers the ranks a node samples in turn (its part of the two sets of C),
 * so they stay warm; a node of 256 ranks holds 32 of them, not 256. */
#define AS_POOL 32

static __thread struct as_slot {
	unw_addr_space_t as;
	const struct lu_state *owner; /* the rank whose unwinds its cache holds, or NULL */
	uint64_t used;                /* when last lent (a counter) */
} pool[AS_POOL];
static __thread uint64_t pool_clock;

static bool read_process(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(*(pid_t *)ctx, &l, 1, &r, 1, 0) == (ssize_t)len;
}

/* The unwind table of the module holding ip, found once per module (until a flush). */
static const struct module_table *module_table(struct lu_state *st, uint64_t ip)
{
	const struct mapping *m = maps_find(cur.mp, ip);
	int idx = m ? m->path_index : -1;

	if (idx < 0)
		return NULL;
	for (int i = 0; i < st->nmods; i++)
		if (st->mods[i].path_index == idx)
			return &st->mods[i];

	struct module_table *nm = realloc(st->mods, (size_t)(st->nmods + 1) * sizeof(*nm));
	struct eh_table t;

	if (!nm)
		return NULL;
	st->mods = nm;
	st->memo_end = 0; /* a new module may hold the mapping read last */
	nm = &st->mods[st->nmods++];
	memset(nm, 0, sizeof(*nm));
	nm->path_index = idx;
	nm->ok = ehframe_find(maps_module_base(cur.mp, idx), read_process, &st->pid, &t);

	const struct mapping *hm = nm->ok ? maps_find(cur.mp, t.hdr) : NULL;

	/* Its pages are the file's bytes in every rank that maps that file: the monitor's cache. */
	if (hm && hm->ino && !hm->write)
		nm->tables = *hm;
	nm->di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	nm->di.start_ip = t.start_ip;
	nm->di.end_ip = t.end_ip;
	nm->di.u.rti.segbase = t.hdr;
	nm->di.u.rti.table_data = t.table;
	nm->di.u.rti.table_len = t.count * 8 / sizeof(unw_word_t);
	return nm;
}

static int lu_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			     int need_unwind_info, void *arg)
{
	const struct module_table *mt = module_table(cur.st, ip);

	if (!mt || !mt->ok || ip < mt->di.start_ip || ip >= mt->di.end_ip)
		return -UNW_ENOINFO;
	return _Ux86_64_dwarf_search_unwind_table(as, ip, (unw_dyn_info_t *)&mt->di, pi, need_unwind_info, arg);
}

static void lu_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	_UPT_put_unwind_info(as, pi, arg);
}

static int lu_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as, (void)addr, (void)arg;
	return -UNW_ENOINFO;
}

/* The mapping of the unwind tables that m is, or NULL: their pages are shared. */
static const struct mapping *shared_tables(struct lu_state *st, const struct mapping *m)
{
	if (st->memo_start != m->start || st->memo_end != m->end) {
		st->memo_start = m->start;
		st->memo_end = m->end;
		st->memo_mod = -1;
		for (int i = 0; i < st->nmods && st->memo_mod < 0; i++)
			if (st->mods[i].tables.end && st->mods[i].tables.start == m->start &&
			    st->mods[i].tables.end == m->end && st->mods[i].tables.ino == m->ino &&
			    st->mods[i].tables.dev == m->dev)
				st->memo_mod = i;
	}
	return st->memo_mod >= 0 ? &st->mods[st->memo_mod].tables : NULL;
}

struct page_read {
	pid_t pid;
	uint64_t page;
};

static bool fill_page(void *ctx, void *buf)
{
	struct page_read *r = ctx;

	return read_process(&r->pid, r->page, buf, PAGE);
}

/* Read 8 bytes of target memory outside the stack copy: from the monitor's pages of the unwind
 * tables' files, else from the sampling thread's few read-only pages of this rank, else
 * directly. */
static int read_target(uint64_t addr, unw_word_t *val)
{
	const struct mapping *m = maps_find(cur.mp, addr);
	uint64_t page = addr & ~(uint64_t)(PAGE - 1);
	bool cacheable = m && !m->write && addr + sizeof(*val) <= m->end && addr - page <= PAGE - 8;
	const struct mapping *tables = cacheable ? shared_tables(cur.st, m) : NULL;

	if (tables) {
		struct pagecache_key key = { m->dev, m->ino, m->offset + (page - m->start) };
		struct page_read r = { cur.st->pid, page };
		const unsigned char *data = pagecache_get(&key, fill_page, &r);

		if (!data)
			goto direct;
		memcpy(val, data + (addr - page), sizeof(*val));
		return 0;
	}
	if (cacheable) {
		unsigned slot = (unsigned)(page / PAGE) % PAGE_CACHE;

		if (own_pages[slot].owner != cur.st || own_pages[slot].page != page) {
			own_pages[slot].owner = NULL;
			if (!read_process(&cur.st->pid, page, own_pages[slot].data, PAGE))
				goto direct;
			own_pages[slot].owner = cur.st;
			own_pages[slot].page = page;
		}
		memcpy(val, own_pages[slot].data + (addr - page), sizeof(*val));
		return 0;
	}
direct:
	return read_process(&cur.st->pid, addr, val, sizeof(*val)) ? 0 : -UNW_EINVAL;
}

static int lu_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
			 void *arg)
{
	(void)as, (void)arg;
	if (write)
		return -UNW_EINVAL;

	const struct snapshot *s = cur.snap;

	if (addr >= s->stack_addr && addr + sizeof(*val) <= s->stack_addr + s->stack_len) {
		memcpy(val, s->stack + (addr - s->stack_addr), sizeof(*val));
		return 0;
	}
	return read_target(addr, val);
}

static int lu_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write,
			 void *arg)
{
	(void)as, (void)arg;
	if (write)
		return -UNW_EINVAL;

	const struct user_regs_struct *r = &cur.snap->regs;

	switch (reg) {
	case UNW_X86_64_RAX: *val = r->rax; break;
	case UNW_X86_64_RDX: *val = r->rdx; break;
	case UNW_X86_64_RCX: *val = r->rcx; break;
	case UNW_X86_64_RBX: *val = r->rbx; break;
	case UNW_X86_64_RSI: *val = r->rsi; break;
	case UNW_X86_64_RDI: *val = r->rdi; break;
	case UNW_X86_64_RBP: *val = r->rbp; break;
	case UNW_X86_64_RSP: *val = r->rsp; break;
	case UNW_X86_64_R8: *val = r->r8; break;
	case UNW_X86_64_R9: *val = r->r9; break;
	case UNW_X86_64_R10: *val = r->r10; break;
	case UNW_X86_64_R11: *val = r->r11; break;
	case UNW_X86_64_R12: *val = r->r12; break;
	case UNW_X86_64_R13: *val = r->r13; break;
	case UNW_X86_64_R14: *val = r->r14; break;
	case UNW_X86_64_R15: *val = r->r15; break;
	case UNW_X86_64_RIP: *val = r->rip; break;
	default: return -UNW_EBADREG;
	}
	return 0;
}

static int lu_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			   void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int lu_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as, (void)c, (void)arg;
	return -UNW_EINVAL;
}

static unw_accessors_t lu_accessors = {
	.find_proc_info = lu_find_proc_info,
	.put_unwind_info = lu_put_unwind_info,
	.get_dyn_info_list_addr = lu_get_dyn_info_list_addr,
	.access_mem = lu_access_mem,
	.access_reg = lu_access_reg,
	.access_fpreg = lu_access_fpreg,
	.resume = lu_resume,
	.get_proc_name = NULL,
};

static void lu_drop_modules(struct lu_state *st)
{
	free(st->mods);
	st->mods = NULL;
	st->nmods = 0;
	st->memo_end = 0;
	own_pages_drop(st);
}

static void *lu_open(pid_t pid)
{
	struct lu_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->pid = pid;
	return st;
}

static struct as_slot *slot_of(const struct lu_state *st)
{
	for (int i = 0; i < AS_POOL; i++)
		if (pool[i].owner == st)
			return &pool[i];
	return NULL;
}

static void lu_close(void *state)
{
	struct lu_state *st = state;
	struct as_slot *slot = st ? slot_of(st) : NULL;

	if (!st)
		return;
	if (slot)
		slot->owner = NULL;
	lu_drop_modules(st);
	free(st);
}

static void lu_flush(void *state)
{
	struct lu_state *st = state;
	struct as_slot *slot = slot_of(st);

	lu_drop_modules(st);
	if (slot)
		unw_flush_cache(slot->as, 0, 0);
}

/* An address space whose cache holds st's unwinds: st's own slot, else the least recently lent
 * one, emptied; NULL when none can be made. */
static unw_addr_space_t address_space_for(const struct lu_state *st)
{
	struct as_slot *slot = slot_of(st);

	if (!slot) {
		slot = &pool[0];
		for (int i = 1; i < AS_POOL; i++)
			if (pool[i].used < slot->used)
				slot = &pool[i];
		if (!slot->as) {
			if (!(slot->as = unw_create_addr_space(&lu_accessors, 0)))
				return NULL;
			unw_set_caching_policy(slot->as, UNW_CACHE_GLOBAL);
		} else {
			unw_flush_cache(slot->as, 0, 0);
		}
		slot->owner = st;
	}
	slot->used = ++pool_clock;
	return slot->as;
}

/* The callee-saved registers as frame c sees them: a loop counter or pointer the frame keeps
 * in a register lives here, saved by a callee or still in the register. */
static uint64_t frame_regs_hash(unw_cursor_t *c)
{
	static const unw_regnum_t saved[] = { UNW_X86_64_RBX, UNW_X86_64_RBP, UNW_X86_64_R12,
					      UNW_X86_64_R13, UNW_X86_64_R14, UNW_X86_64_R15 };
	uint64_t h = 0;

	for (size_t i = 0; i < sizeof(saved) / sizeof(saved[0]); i++) {
		unw_word_t v = 0;

		unw_get_reg(c, saved[i], &v);
		h = progress_mix(h, v);
	}
	return h;
}

/* Frame i's own stack bytes lie between its SP and its caller's; add them to its hash. */
static uint64_t frame_bytes_hash(uint64_t h, const struct snapshot *s, uint64_t sp, uint64_t caller_sp)
{
	uint64_t end = s->stack_addr + s->stack_len;

	if (sp < s->stack_addr || sp >= end)
		return h;
	if (caller_sp <= sp || caller_sp > end)
		caller_sp = end;
	if (caller_sp - sp > PROGRESS_FRAME_BYTES)
		caller_sp = sp + PROGRESS_FRAME_BYTES;
	return progress_hash_bytes(h, s->stack + (sp - s->stack_addr), (size_t)(caller_sp - sp));
}

static int lu_unwind(void *state, const struct snapshot *s, const struct maps *mp, uint64_t *ips,
		     uint64_t *fhash, int max, bool *broken)
{
	unw_cursor_t c;
	int n = 0, step = 0;
	unw_word_t prev_sp = 0;

	cur.st = state;
	cur.snap = s;
	cur.mp = mp;
	unw_addr_space_t as = address_space_for(cur.st);

	if (max < 1 || !as || unw_init_remote(&c, as, NULL) < 0)
		goto out;
	do {
		unw_word_t ip, sp = 0;

		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		unw_get_reg(&c, UNW_REG_SP, &sp);
		/* A stack that does not grow toward the caller is corrupt or looping. */
		if (n > 0 && sp <= prev_sp && sp != 0) {
			step = -UNW_EBADFRAME;
			break;
		}
		if (fhash && n > 0)
			fhash[n - 1] = frame_bytes_hash(fhash[n - 1], s, prev_sp, sp);
		if (fhash)
			fhash[n] = frame_regs_hash(&c);
		prev_sp = sp;
		ips[n++] = ip;
	} while (n < max && (step = unw_step(&c)) > 0);
	if (fhash && n > 0)
		fhash[n - 1] = frame_bytes_hash(fhash[n - 1], s, prev_sp, 0);
out:
	*broken = step < 0;
	cur.st = NULL;
	cur.snap = NULL;
	cur.mp = NULL;
	return n;
}

const struct unwinder_ops unwinder_libunwind = {
	.name = "libunwind",
	.open = lu_open,
	.close = lu_close,
	.flush = lu_flush,
	.unwind = lu_unwind,
};
