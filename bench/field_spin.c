/* SPDX-License-Identifier: BSD-3-Clause */
/* field_spin — make a running rank spin in its own code, from outside: the field trial's
 * computation fault for programs nobody here wrote (bench/field.sh). It stops the process's
 * main thread (PTRACE_SEIZE + PTRACE_INTERRUPT), and if the thread is at an instruction of one
 * of the named modules (a path containing one of the words: "liblammps", "pw.x", ...) it writes
 * "jmp ." (EB FE) there and lets it go: the thread runs that instruction forever, inside the
 * function it was in, as a loop that never ends would. Elsewhere (in MPI, in libc) it lets the
 * thread go untouched and exits 3, for the caller to try again a moment later.
 *
 *   field_spin PID WORD...    exit 0: spinning (prints "spin PID ADDR MODULE"); 3: not in the
 *                             named code now; 1: an error (said on stderr)
 *
 * Only ever run by the bench on a rank it started. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

/* The path of the mapping that holds addr in pid, into path; false when none. */
static int module_of(pid_t pid, unsigned long addr, char *path, size_t len)
{
	char maps[64], line[4096];
	FILE *f;
	int found = 0;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(maps, "r")))
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		int off = 0;

		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &off) >= 2 && addr >= lo && addr < hi) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, len, "%s", off ? line + off : "");
			found = 1;
		}
	}
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	struct user_regs_struct regs;
	char path[4096] = "";
	int status, rc = 3;

	if (argc < 3) {
		fprintf(stderr, "usage: field_spin PID WORD...\n");
		return 2;
	}

	pid_t pid = (pid_t)atoi(argv[1]);

	if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0) {
		int e = errno;

		fprintf(stderr, "field_spin: ptrace(SEIZE, %d): %s\n", (int)pid, strerror(e));
		return 1;
	}
	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 || waitpid(pid, &status, __WALL) < 0 ||
	    ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0) {
		int e = errno;

		fprintf(stderr, "field_spin: stopping %d: %s\n", (int)pid, strerror(e));
		ptrace(PTRACE_DETACH, pid, 0, 0);
		return 1;
	}
	if (module_of(pid, regs.rip, path, sizeof(path)))
		for (int i = 2; i < argc && rc == 3; i++)
			if (strstr(path, argv[i])) {
				errno = 0;
				long word = ptrace(PTRACE_PEEKTEXT, pid, regs.rip, 0);

				word = (long)(((unsigned long)word & ~0xffffUL) | 0xfeebUL);
				if (errno == 0 && ptrace(PTRACE_POKETEXT, pid, regs.rip, word) == 0) {
					printf("spin %d 0x%llx %s\n", (int)pid, (unsigned long long)regs.rip, path);
					rc = 0;
				} else {
					fprintf(stderr, "field_spin: writing at 0x%llx in %d: %s\n",
						(unsigned long long)regs.rip, (int)pid, strerror(errno));
					rc = 1;
				}
			}
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return rc;
}
