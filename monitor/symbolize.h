/* symbolize — names for addresses, only when a report or `parastack stack` needs them (never on
 * the sampling path): function and offset from the symbol table, source file and line from
 * DWARF, and inlined calls expanded into frames of their own. Backed by elfutils' libdw. */
#ifndef PARASTACK_SYMBOLIZE_H
#define PARASTACK_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct sym_frame {
	uint64_t pc;      /* the address looked up */
	char func[256];   /* "" when unknown */
	uint64_t offset;  /* pc - start of func (physical frames with a symbol) */
	char module[512]; /* file name of the module, "" when unknown */
	char file[512];   /* source file, "" without debug info */
	int line;         /* 0 without debug info */
	bool inlined;     /* a call inlined into the next frame */
};

struct symbolizer;

/* Report the modules of pid (from /proc/PID/maps); NULL on failure. */
struct symbolizer *symbolizer_open(pid_t pid);
void symbolizer_close(struct symbolizer *sy);
/* Logical frames for one physical frame at pc, innermost first; return_address says pc is a
 * return address (every frame but the innermost), so the call instruction is looked up.
 * Returns the number written (>= 1, at most max). */
int symbolize(struct symbolizer *sy, uint64_t pc, bool return_address, struct sym_frame *out,
	      int max);

#endif
