/* SPDX-License-Identifier: BSD-3-Clause */
/* ehframe — a module's unwind table found in the target's memory (see ehframe.h). */
#include "ehframe.h"

#include <elf.h>
#include <string.h>

#define PHDRS_MAX 64
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30

/* The program headers; false when the header is not a 64-bit ELF one we can read. */
static bool read_phdrs(uint64_t base, eh_read_fn read, void *ctx, Elf64_Phdr *ph, int *n)
{
	Elf64_Ehdr eh;

	if (!read(ctx, base, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
	    eh.e_phnum > PHDRS_MAX || eh.e_phoff > (1u << 20))
		return false;
	*n = eh.e_phnum;
	return read(ctx, base + eh.e_phoff, ph, (size_t)*n * sizeof(*ph));
}

bool ehframe_find(uint64_t base, eh_read_fn read, void *ctx, struct eh_table *out)
{
	Elf64_Phdr ph[PHDRS_MAX];
	uint64_t bias = 0, frame = 0;
	bool have_bias = false;
	int n = 0;

	memset(out, 0, sizeof(*out));
	if (!read_phdrs(base, read, ctx, ph, &n))
		return false;
	out->start_ip = UINT64_MAX;
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && !have_bias) {
			bias = base - (ph[i].p_vaddr & ~(uint64_t)0xfff);
			have_bias = true;
		}
	for (int i = 0; i < n && have_bias; i++) {
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			uint64_t s = bias + ph[i].p_vaddr, e = s + ph[i].p_memsz;

			out->start_ip = s < out->start_ip ? s : out->start_ip;
			out->end_ip = e > out->end_ip ? e : out->end_ip;
		}
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			frame = bias + ph[i].p_vaddr;
	}

	unsigned char h[12];
	uint32_t count;

	/* version 1; eh_frame_ptr pcrel|sdata4, fde_count udata4, table datarel|sdata4: what
	 * every linker writes, and the only form libunwind's remote table search takes. */
	if (!frame || out->start_ip >= out->end_ip || !read(ctx, frame, h, sizeof(h)) || h[0] != 1 ||
	    h[1] != (DW_EH_PE_pcrel | DW_EH_PE_sdata4) || h[2] != DW_EH_PE_udata4 ||
	    h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return false;
	memcpy(&count, h + 8, sizeof(count));
	out->hdr = frame;
	out->table = frame + sizeof(h);
	out->count = count;
	return count > 0;
}
