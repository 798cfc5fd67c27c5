/* SPDX-License-Identifier: BSD-3-Clause */
/* frames — a thread's frames as users read them (see frames.h). */
#include "frames.h"

#include <stdio.h>
#include <string.h>

#include "../addr/demangle.h"
#include "../stop/pyframes.h"

#define LOGICAL_MAX 8

/* Compilers' clones of a function (GCC's .isra.0, .constprop.1, .part.2, .cold; LTO's
 * .lto_priv.0) and a symbol's version (__libc_start_main@@GLIBC_2.34) are the function itself. */
static void cut_suffixes(char *name)
{
	static const char *const suffixes[] = { ".isra.", ".constprop.", ".part.", ".cold", ".lto_priv.", "@", NULL };

	for (int i = 0; suffixes[i]; i++) {
		char *p = strstr(name, suffixes[i]);

		if (p && p != name)
			*p = '\0';
	}
}

/* A native frame's name as its author wrote it; the symbol kept beside it when they differ. */
static void name_readable(struct frame_view *v)
{
	char name[sizeof(v->f.func)];
	struct sym_frame *f = &v->f;

	if (v->python || !f->func[0])
		return;
	snprintf(v->symbol, sizeof(v->symbol), "%s", f->func);
	cut_suffixes(f->func);
	if (demangle_name(f->func, name, sizeof(name)))
		snprintf(f->func, sizeof(f->func), "%s", name);
	else
		v->symbol[0] = '\0';
}

/* A stripped program: main has no symbol, but it is the frame the C library's start calls,
 * outside the library. */
static void name_main(struct frame_view *v, int n)
{
	for (int i = 1; i < n; i++) {
		if (!frames_is_c_start(v[i].f.func))
			continue;

		struct frame_view *m = &v[i - 1];

		if (m->unnamed && !m->python && m->f.module[0] && strcmp(m->f.module, v[i].f.module)) {
			if (m->count > 1)
				snprintf(m->f.func, sizeof(m->f.func), "main (+%d frames)", m->count - 1);
			else
				snprintf(m->f.func, sizeof(m->f.func), "main");
		}
		return;
	}
}

/* A frame without a symbol: module+0xOFFSET (what addr2line and objdump read). */
static void name_unnamed(const struct target *t, struct frame_view *v)
{
	struct sym_frame *f = &v->f;

	if (f->func[0])
		return;

	const struct mapping *m = maps_find(&t->maps, f->pc);
	const char *path = m ? maps_path(&t->maps, m) : NULL, *base = path ? strrchr(path, '/') : NULL;

	v->unnamed = true;
	if (path)
		snprintf(f->func, sizeof(f->func), "%s+0x%llx", base ? base + 1 : path,
			 (unsigned long long)(f->pc - m->start + m->offset));
	else
		snprintf(f->func, sizeof(f->func), "0x%llx", (unsigned long long)f->pc);
}

/* A nameless frame right after another of the same module: the two are one entry, "module (N
 * frames)". true when next was taken into prev. */
static bool join_unnamed(struct frame_view *prev, const struct frame_view *next)
{
	const char *base;

	if (!prev->unnamed || !next->unnamed || prev->python || next->python || prev->in_mpi != next->in_mpi ||
	    !prev->f.module[0] || strcmp(prev->f.module, next->f.module))
		return false;
	base = strrchr(prev->f.module, '/');
	prev->count += next->count;
	snprintf(prev->f.func, sizeof(prev->f.func), "%.200s (%d frames)", base ? base + 1 : prev->f.module,
		 prev->count);
	return true;
}

/* Is the frame the interpreter's own (its executable or libpython, main aside)? */
static bool in_interpreter(const struct target *t, const struct sym_frame *f)
{
	const char *base = strrchr(f->module, '/');

	return t->py.module[0] && !strcmp(base ? base + 1 : f->module, t->py.module) && strcmp(f->func, "main");
}

/* A Python frame: its qualified name, file and line from its code object. */
static void python_frame(const struct target *t, const struct pyframe_raw *raw, struct frame_view *v)
{
	pid_t pid = t->pid;
	int line = -1;
	char file[512], func[256];

	memset(v, 0, sizeof(*v));
	v->python = true;
	v->count = 1;
	if (!pyframes_describe(t->py.layout, pyframes_read_process, &pid, raw, file, sizeof(file), func,
			       sizeof(func), &line)) {
		snprintf(func, sizeof(func), "(Python frame: code object unreadable)");
		file[0] = '\0';
	}

	const char *base = strrchr(file, '/');

	v->recorder = !strcmp(base ? base + 1 : file, "parastack_torchrec.py");
	v->library = strstr(file, "/lib/python3") || strstr(file, "-packages/") || file[0] == '<' || v->recorder;
	snprintf(v->f.func, sizeof(v->f.func), "%s", func);
	snprintf(v->f.file, sizeof(v->f.file), "%s", file);
	snprintf(v->f.module, sizeof(v->f.module), "%s", base ? base + 1 : file);
	v->f.line = line > 0 ? line : 0;
	v->f.pc = raw->instr;
}

static bool is_eval_loop(const struct target *t, const struct sym_frame *f)
{
	return !strcmp(f->func, "_PyEval_EvalFrameDefault") && in_interpreter(t, f);
}

int frames_view(struct target *t, struct symbolizer *sy, const struct thread_stack *th, struct frame_view *out,
		int max)
{
	static struct frame_view native[TARGET_MAX_FRAMES * 2];
	struct sym_frame lf[LOGICAL_MAX];
	bool merge = false;
	int nn = 0, n = 0, py = 0;

	/* Every physical frame symbolized once; Python frames replace the interpreter's only where
	 * its evaluation loop is on the stack. */
	for (int i = 0; i < th->nframes; i++) {
		bool in_mpi = maps_in_mpi(&t->maps, frame_lookup_pc(th->ips, i));
		int nl = symbolize(sy, &t->maps, th->ips[i], i > 0, lf, LOGICAL_MAX);

		for (int k = 0; k < nl && nn < TARGET_MAX_FRAMES * 2; k++) {
			native[nn] = (struct frame_view){ .f = lf[k], .in_mpi = in_mpi };
			merge |= th->npy && is_eval_loop(t, &lf[k]);
			nn++;
		}
	}
	for (int i = 0; i < nn && n < max; i++) {
		/* The evaluation loop runs Python frames up to its entry frame: they stand in its
		 * place; the interpreter's other frames go. */
		if (merge && in_interpreter(t, &native[i].f)) {
			while (is_eval_loop(t, &native[i].f) && py < th->npy && n < max) {
				bool entry = th->py[py].entry;

				python_frame(t, &th->py[py++], &out[n++]);
				if (entry)
					break;
			}
			continue;
		}
		out[n] = native[i];
		out[n].count = 1;
		name_readable(&out[n]);
		name_unnamed(t, &out[n]);
		if (n > 0 && join_unnamed(&out[n - 1], &out[n]))
			continue;
		n++;
	}
	name_main(out, n);
	return n;
}
