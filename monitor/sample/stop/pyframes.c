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

bool pyframes_read_process(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return addr && process_vm_readv(*(pid_t *)ctx, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

static bool read_ptr(py_read_fn rd, void *ctx, uint64_t addr, uint64_t *out)
{
	return addr && rd(ctx, addr, out, sizeof(*out));
}

/* "python3.11" or "libpython3.11.so.1.0": the minor version, or -1. A free-threaded build
 * ("python3.13t") lays its objects out otherwise: none of the tables is its. */
static int version_of(const char *base)
{
	int minor = -1, end = 0;

	if (!strncmp(base, "lib", 3))
		base += 3;
	if (sscanf(base, "python3.%d%n", &minor, &end) != 1 || base[end] == 't')
		return -1;
	return minor;
}

void pyframes_why_not(const struct pyproc *p, char *buf, size_t len)
{
	if (p->minor < 0 || p->layout)
		snprintf(buf, len, "%s", "");
	else if (!pyframes_layout(p->minor))
		snprintf(buf, len, "CPython 3.%d: no frame layout for this version in parastack (it reads 3.%d-3.%d): "
			 "native frames only", p->minor, PY_MINOR_FIRST, PY_MINOR_LAST);
	else
		snprintf(buf, len, "CPython 3.%d: its _PyRuntime symbol was not found in %s: native frames only",
			 p->minor, p->module);
}

/* The interpreter's modules: its executable, and a shared libpython (pyenv's, conda's, Spack's and
 * most modules' Pythons), where _PyRuntime then lives. The one holding it names the interpreter
 * (its evaluation loop's frames are there); else the first found. */
bool pyframes_probe(const struct maps *mp, struct pyproc *p)
{
	memset(p, 0, sizeof(*p));
	p->minor = -1;
	for (int i = 0; i < mp->npaths && !p->runtime; i++) {
		const char *base = strrchr(maps_path_at(mp, i), '/');
		int minor;

		base = base ? base + 1 : maps_path_at(mp, i);
		if ((minor = version_of(base)) < 0 || (p->minor >= 0 && minor != p->minor))
			continue;
		if (p->minor < 0)
			snprintf(p->module, sizeof(p->module), "%s", base);
		p->minor = minor;
		p->layout = pyframes_layout(minor);
		if (p->layout && (p->runtime = maps_symbol_address(mp, base, "_PyRuntime")))
			snprintf(p->module, sizeof(p->module), "%s", base);
	}
	if (p->minor < 0)
		return false;
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

/* The bytes a read must cover for the given fields (PY_NO_FIELD ones left out): the largest
 * offset and the 8 bytes there. */
static size_t span_of(const size_t *offs, int n)
{
	size_t m = 0;

	for (int i = 0; i < n; i++)
		if (offs[i] != PY_NO_FIELD && offs[i] + 8 > m)
			m = offs[i] + 8;
	return m;
}

/* Is the thread state in span the one of thread tid (pthread: its pthread_t)? */
static bool is_thread(const struct py_layout *L, const uint8_t *span, pid_t tid, uint64_t pthread)
{
	if (L->tstate_native_id != PY_NO_FIELD)
		return (pid_t)field(span, L->tstate_native_id) == tid;
	return pthread && field(span, L->tstate_thread_id) == pthread;
}

/* The thread state of tid, or 0, its bytes in span: each thread state read in one piece (a
 * read is a system call while the rank is held). */
static uint64_t thread_state(const struct py_layout *L, uint64_t runtime, pid_t tid, uint64_t pthread, py_read_fn rd,
			     void *ctx, uint8_t *span)
{
	const size_t offs[] = { L->tstate_next, L->tstate_native_id, L->tstate_thread_id, L->tstate_frame,
				L->tstate_chunk, L->tstate_top };
	uint64_t interp = 0;
	size_t len = span_of(offs, 6);

	if (len > SPAN_MAX || !read_ptr(rd, ctx, runtime + L->runtime_interp_head, &interp))
		return 0;
	for (int i = 0; interp && i < MAX_INTERPRETERS; i++) {
		uint64_t ts = 0, next = 0;

		read_ptr(rd, ctx, interp + L->interp_threads_head, &ts);
		for (int k = 0; ts && k < MAX_THREADS; k++) {
			if (!rd(ctx, ts, span, len))
				break;
			if (is_thread(L, span, tid, pthread))
				return ts;
			ts = field(span, L->tstate_next);
		}
		if (!read_ptr(rd, ctx, interp + L->interp_next, &next))
			break;
		interp = next;
	}
	return 0;
}

/* The thread's frame stack (its current data-stack chunk, where 3.11+ keeps the frames a
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

/* The thread's innermost frame: PyThreadState.frame (3.8-3.10), .current_frame (3.13+), or its
 * _PyCFrame's current_frame (3.11, 3.12). */
static uint64_t current_frame(const struct py_layout *L, const uint8_t *ts, py_read_fn rd, void *ctx)
{
	uint64_t frame = 0;

	if (L->cframe_current == PY_NO_FIELD)
		return field(ts, L->tstate_frame);
	return read_ptr(rd, ctx, field(ts, L->tstate_frame) + L->cframe_current, &frame) ? frame : 0;
}

#define FRAME_OWNED_BY_CSTACK 3 /* 3.12+: the shim frame a C call of the evaluation loop pushes */

int pyframes_walk(const struct py_layout *L, uint64_t runtime, pid_t tid, uint64_t pthread, py_read_fn rd,
		  void *ctx, struct pyframe_raw *out, int max)
{
	uint8_t span[SPAN_MAX];
	uint64_t ts = L && runtime ? thread_state(L, runtime, tid, pthread, rd, ctx, span) : 0, frame;
	struct chunk c = { 0, 0, NULL };
	int n = 0;

	if (!ts || !(frame = current_frame(L, span, rd, ctx)))
		return 0;
	if (L->tstate_chunk != PY_NO_FIELD) {
		c.lo = field(span, L->tstate_chunk);
		c.hi = field(span, L->tstate_top);
	}
	if (c.lo && c.hi > c.lo && c.hi - c.lo <= MAX_CHUNK && (c.bytes = malloc(c.hi - c.lo)) &&
	    !rd(ctx, c.lo, c.bytes, c.hi - c.lo)) {
		free(c.bytes);
		c.bytes = NULL;
	}

	const size_t offs[] = { L->frame_code, L->frame_previous, L->frame_instr, L->frame_entry, L->frame_owner };
	size_t len = span_of(offs, 5);
	bool objects = L->frames == PY_FRAME_OBJECTS;

	/* One read per frame at most; at most max frames (shims too): a cycle in a forged chain
	 * ends there. */
	for (int k = 0; frame && k < max && n < max && len <= sizeof(span) && chunk_read(&c, rd, ctx, frame, span, len);
	     k++, frame = field(span, L->frame_previous)) {
		if (L->frame_owner != PY_NO_FIELD && span[L->frame_owner] == FRAME_OWNED_BY_CSTACK) {
			if (n > 0)
				out[n - 1].entry = true;
			continue;
		}
		out[n].code = field(span, L->frame_code);
		/* Before 3.11 the instruction is f_lasti, an int (-1: not started). */
		out[n].instr = objects ? (uint64_t)(int64_t)(int32_t)field(span, L->frame_instr) : field(span, L->frame_instr);
		/* A frame object is its own evaluation-loop call; 3.11 marks the first of a call's. */
		out[n].entry = objects || (L->frame_entry != PY_NO_FIELD && span[L->frame_entry] != 0);
		n++;
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

int pyframes_line_lnotab(const uint8_t *t, size_t len, int firstlineno, uint64_t addr)
{
	int64_t line = firstlineno;
	uint64_t at = 0;

	/* (address increment, signed line increment) pairs: the line of the last pair at or
	 * before addr. Bounded by the table's length; 2^31 pairs cannot overflow 64 bits. */
	for (size_t p = 0; p + 1 < len; p += 2) {
		at += t[p];
		if (at > addr)
			break;
		line += (int8_t)t[p + 1];
	}
	return line > 0 && line < (1 << 30) ? (int)line : -1;
}

int pyframes_line_310(const uint8_t *t, size_t len, int firstlineno, uint64_t addr)
{
	int64_t line = firstlineno;
	uint64_t start = 0;

	/* (byte length, signed line delta; -128: no line) pairs, each a range of instructions. */
	for (size_t p = 0; p + 1 < len; p += 2) {
		uint64_t end = start + t[p];
		int8_t delta = (int8_t)t[p + 1];

		if (delta != -128)
			line += delta;
		if (addr >= start && addr < end)
			return delta != -128 && line > 0 && line < (1 << 30) ? (int)line : -1;
		start = end;
	}
	return -1;
}

/* The line of frame f of code object code, its line table t (tlen bytes) read. */
static int frame_line(const struct py_layout *L, const struct pyframe_raw *f, const uint8_t *t, size_t tlen,
		      int first)
{
	int64_t lasti = (int64_t)f->instr;

	switch (L->lines) {
	case PY_LNOTAB:
		return lasti < 0 ? first : pyframes_line_lnotab(t, tlen, first, (uint64_t)lasti);
	case PY_LINETABLE_310:
		return lasti < 0 ? first : pyframes_line_310(t, tlen, first, (uint64_t)lasti * 2);
	default: {
		uint64_t start = f->code + L->code_adaptive;

		return f->instr >= start ? pyframes_line(t, tlen, first, (f->instr - start) / 2) : -1;
	}
	}
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

	if (t && rd(ctx, table + L->bytes_data, t, (size_t)tlen))
		*line = frame_line(L, f, t, (size_t)tlen, first);
	free(t);
	return true;
}
