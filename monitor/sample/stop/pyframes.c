/* SPDX-License-Identifier: BSD-3-Clause */
/* pyframes — a CPython rank's Python frames from its memory (see pyframes.h). */
#include "pyframes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define MAX_INTERPRETERS 16
#define MAX_THREADS 512
#define MAX_LINETABLE (256 * 1024)
#define MAX_NAME 1024
#define MAX_CHUNK (256 * 1024) /* a thread's frame stack read in one piece, up to this */

/* CPython 3.11 (offsetof on Debian 12's python3.11-dev internal headers, x86_64). */
static const struct py_layout layout_311 = {
	.minor = 11,
	.runtime_interp_head = 40,
	.interp_next = 0,
	.interp_threads_head = 16,
	.tstate_next = 8,
	.tstate_native_id = 160,
	.tstate_cframe = 56,
	.tstate_chunk = 296,
	.tstate_top = 304,
	.cframe_current = 8,
	.frame_code = 32,
	.frame_previous = 48,
	.frame_instr = 56,
	.frame_entry = 68,
	.code_filename = 112,
	.code_qualname = 128,
	.code_firstlineno = 72,
	.code_linetable = 136,
	.code_adaptive = 184,
	.bytes_size = 16,
	.bytes_data = 32,
	.str_length = 16,
	.str_state = 32,
	.str_ascii_data = 48,
	.str_compact_data = 72,
};

const struct py_layout *pyframes_layout(int minor)
{
	return minor == 11 ? &layout_311 : NULL;
}

bool pyframes_read_process(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return addr && process_vm_readv(*(pid_t *)ctx, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

static bool read_ptr(py_read_fn rd, void *ctx, uint64_t addr, uint64_t *out)
{
	return addr && rd(ctx, addr, out, sizeof(*out));
}

/* "python3.11" or "libpython3.11.so.1.0": the minor version, or -1. */
static int version_of(const char *base)
{
	int minor = -1;

	if (!strncmp(base, "lib", 3))
		base += 3;
	if (sscanf(base, "python3.%d", &minor) != 1)
		return -1;
	return minor;
}

void pyframes_why_not(const struct pyproc *p, char *buf, size_t len)
{
	if (p->minor < 0 || p->layout)
		snprintf(buf, len, "%s", "");
	else if (!pyframes_layout(p->minor))
		snprintf(buf, len, "CPython 3.%d: no frame layout for this version in parastack (it reads 3.11): "
			 "native frames only", p->minor);
	else
		snprintf(buf, len, "CPython 3.%d: its _PyRuntime symbol was not found in %s: native frames only",
			 p->minor, p->module);
}

bool pyframes_probe(const struct maps *mp, struct pyproc *p)
{
	memset(p, 0, sizeof(*p));
	p->minor = -1;
	for (int i = 0; i < mp->npaths && p->minor < 0; i++) {
		const char *base = strrchr(maps_path_at(mp, i), '/');

		base = base ? base + 1 : maps_path_at(mp, i);
		if ((p->minor = version_of(base)) >= 0)
			snprintf(p->module, sizeof(p->module), "%s", base);
	}
	if (p->minor < 0)
		return false;
	p->layout = pyframes_layout(p->minor);
	p->runtime = p->layout ? maps_symbol_address(mp, p->module, "_PyRuntime") : 0;
	if (!p->runtime)
		p->layout = NULL;
	return true;
}

#define SPAN_MAX 512 /* bytes of one structure read at once */

static uint64_t field(const uint8_t *span, size_t off)
{
	uint64_t v;

	memcpy(&v, span + off, sizeof(v));
	return v;
}

static size_t span_of(size_t a, size_t b, size_t c)
{
	size_t m = a > b ? a : b;

	return (m > c ? m : c) + 8;
}

/* The thread state of tid, or 0, its bytes in span: each thread state read in one piece (a
 * read is a system call while the rank is held). */
static uint64_t thread_state(const struct py_layout *L, uint64_t runtime, pid_t tid, py_read_fn rd, void *ctx,
			     uint8_t *span)
{
	uint64_t interp = 0;
	size_t len = span_of(span_of(L->tstate_next, L->tstate_native_id, L->tstate_cframe),
			     L->tstate_chunk, L->tstate_top);

	if (len > SPAN_MAX || !read_ptr(rd, ctx, runtime + L->runtime_interp_head, &interp))
		return 0;
	for (int i = 0; interp && i < MAX_INTERPRETERS; i++) {
		uint64_t ts = 0, next = 0;

		read_ptr(rd, ctx, interp + L->interp_threads_head, &ts);
		for (int k = 0; ts && k < MAX_THREADS; k++) {
			if (!rd(ctx, ts, span, len))
				break;
			if ((pid_t)field(span, L->tstate_native_id) == tid)
				return ts;
			ts = field(span, L->tstate_next);
		}
		if (!read_ptr(rd, ctx, interp + L->interp_next, &next))
			break;
		interp = next;
	}
	return 0;
}

/* The thread's frame stack (its current data-stack chunk, where 3.11 keeps the frames a
 * thread runs), read in one piece: the walk then reads frames from it, and only the others
 * (a generator's) from the target. */
struct chunk {
	uint64_t lo, hi;
	uint8_t *bytes;
};

static bool chunk_read(const struct chunk *c, py_read_fn rd, void *ctx, uint64_t addr, void *buf, size_t len)
{
	if (c->bytes && addr >= c->lo && addr <= c->hi && len <= c->hi - addr) {
		memcpy(buf, c->bytes + (addr - c->lo), len);
		return true;
	}
	return rd(ctx, addr, buf, len);
}

int pyframes_walk(const struct py_layout *L, uint64_t runtime, pid_t tid, py_read_fn rd, void *ctx,
		  struct pyframe_raw *out, int max)
{
	uint8_t span[SPAN_MAX];
	uint64_t ts = L && runtime ? thread_state(L, runtime, tid, rd, ctx, span) : 0, frame = 0;
	struct chunk c = { 0, 0, NULL };
	int n = 0;

	if (!ts || !read_ptr(rd, ctx, field(span, L->tstate_cframe) + L->cframe_current, &frame))
		return 0;
	c.lo = field(span, L->tstate_chunk);
	c.hi = field(span, L->tstate_top);
	if (c.lo && c.hi > c.lo && c.hi - c.lo <= MAX_CHUNK && (c.bytes = malloc(c.hi - c.lo)) &&
	    !rd(ctx, c.lo, c.bytes, c.hi - c.lo)) {
		free(c.bytes);
		c.bytes = NULL;
	}

	size_t len = span_of(L->frame_code, L->frame_previous, L->frame_instr);

	if (L->frame_entry + 1 > len)
		len = L->frame_entry + 1;
	/* One read per frame at most; at most max frames: a cycle in a forged chain ends there. */
	while (frame && n < max && len <= sizeof(span) && chunk_read(&c, rd, ctx, frame, span, len)) {
		out[n].code = field(span, L->frame_code);
		out[n].instr = field(span, L->frame_instr);
		out[n].entry = span[L->frame_entry] != 0;
		n++;
		frame = field(span, L->frame_previous);
	}
	free(c.bytes);
	return n;
}

static uint64_t varint(const uint8_t *t, size_t len, size_t *p)
{
	uint64_t v = 0;
	int shift = 0;

	while (*p < len && shift < 60) {
		uint8_t b = t[(*p)++];

		v |= (uint64_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64))
			break;
	}
	return v;
}

/* A signed varint, bounded to what a line delta can be (a forged table cannot overflow). */
static int64_t svarint(const uint8_t *t, size_t len, size_t *p)
{
	uint64_t u = varint(t, len, p) & ((1ULL << 40) - 1);

	return u & 1 ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
}

int pyframes_line(const uint8_t *t, size_t len, int firstlineno, uint64_t lasti)
{
	int64_t line = firstlineno;
	uint64_t addr = 0;
	size_t p = 0;

	/* Each entry moves at most 2^39 lines: bounded by the table's length, no overflow. */
	while (p < len && line > -(1LL << 50) && line < (1LL << 50)) {
		uint8_t first = t[p++];
		int code = (first >> 3) & 15, here;
		uint64_t units = (uint64_t)(first & 7) + 1;

		if (!(first & 128))
			return -1; /* not the start of an entry: a table we cannot read */
		if (code == 15) {
			here = -1; /* no location */
		} else {
			if (code == 14) {
				line += svarint(t, len, &p);
				varint(t, len, &p);
				varint(t, len, &p);
				varint(t, len, &p);
			} else if (code == 13) {
				line += svarint(t, len, &p);
			} else if (code >= 10) {
				line += code - 10;
				p += 2;
			} else {
				p += 1;
			}
			here = line > 0 && line < (1 << 30) ? (int)line : -1;
		}
		if (lasti < addr + units)
			return here;
		addr += units;
	}
	return -1;
}

/* A str object's text (ASCII, or Latin-1 as '?' past ASCII) into buf. */
static bool read_str(const struct py_layout *L, py_read_fn rd, void *ctx, uint64_t s, char *buf, size_t len)
{
	int64_t n = 0;
	uint32_t state = 0;

	buf[0] = '\0';
	if (!s || !rd(ctx, s + L->str_length, &n, sizeof(n)) || !rd(ctx, s + L->str_state, &state, sizeof(state)))
		return false;

	bool compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
	unsigned kind = (state >> 2) & 7;

	if (!compact || n < 0 || (!ascii && kind != 1))
		return false;
	if ((size_t)n >= len)
		n = (int64_t)len - 1;
	if (n > MAX_NAME)
		n = MAX_NAME;
	if (!rd(ctx, s + (ascii ? L->str_ascii_data : L->str_compact_data), buf, (size_t)n))
		return false;
	buf[n] = '\0';
	/* Printable only: the name lands in reports and terminals. */
	for (int64_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 32 || (unsigned char)buf[i] > 126)
			buf[i] = '?';
	return true;
}

bool pyframes_describe(const struct py_layout *L, py_read_fn rd, void *ctx, const struct pyframe_raw *f,
		       char *file, size_t flen, char *func, size_t fnlen, int *line)
{
	uint64_t fname = 0, qname = 0, table = 0;
	int32_t first = 0;
	int64_t tlen = 0;

	*line = -1;
	if (!read_ptr(rd, ctx, f->code + L->code_filename, &fname) ||
	    !read_ptr(rd, ctx, f->code + L->code_qualname, &qname) ||
	    !read_str(L, rd, ctx, fname, file, flen) || !read_str(L, rd, ctx, qname, func, fnlen))
		return false;
	if (!rd(ctx, f->code + L->code_firstlineno, &first, sizeof(first)) ||
	    !read_ptr(rd, ctx, f->code + L->code_linetable, &table) ||
	    !rd(ctx, table + L->bytes_size, &tlen, sizeof(tlen)) || tlen <= 0 || tlen > MAX_LINETABLE)
		return true;

	uint8_t *t = malloc((size_t)tlen);
	uint64_t start = f->code + L->code_adaptive;

	if (t && rd(ctx, table + L->bytes_data, t, (size_t)tlen) && f->instr >= start)
		*line = pyframes_line(t, (size_t)tlen, first, (f->instr - start) / 2);
	free(t);
	return true;
}
