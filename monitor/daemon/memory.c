/* SPDX-License-Identifier: BSD-3-Clause */
/* memory — the remembered model's key and file (memory.h). */
#include "memory.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../stats/stats.h"
#include "../../base/log.h"
#include "../sample/safe/procfs.h"
#include "monitor.h"
#include "outfile.h"

#define MEMORY_CMDLINE_MAX 4096 /* of the rank's command line, what the key reads */

struct fnv {
	uint64_t h;
};

static void fnv_add(struct fnv *f, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		f->h ^= p[i];
		f->h *= 0x100000001b3ULL;
	}
}

/* The executable of pid into the key: its build-id, else what stat says of the file. */
static bool key_add_executable(struct fnv *f, pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);

	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return false;
	}

	Elf *elf = elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	const void *id = NULL;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;

	if (n > 0 && n <= 64) {
		fnv_add(f, "build-id", 8);
		fnv_add(f, id, (size_t)n);
	} else {
		uint64_t v[4] = { (uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size,
				  (uint64_t)st.st_mtim.tv_sec * 1000000000ULL + (uint64_t)st.st_mtim.tv_nsec };

		fnv_add(f, "stat", 4);
		fnv_add(f, v, sizeof(v));
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return true;
}

static bool key_add_cmdline(struct fnv *f, pid_t pid)
{
	char buf[MEMORY_CMDLINE_MAX + 1];
	ssize_t n = procfs_cmdline(pid, buf, sizeof(buf));

	if (n <= 0)
		return false;
	fnv_add(f, buf, (size_t)n);
	return true;
}

/* The first local rank seen to be its program (in its communication library or start-up): a
 * rank found between its launcher's fork and exec, or still its wrapper script, is not. -1: none
 * yet. */
static int memory_program_rank(const struct monitor *m)
{
	for (int k = 0; k < m->job.nlocal; k++)
		if (m->job.targets[k].was_program)
			return k;
	return -1;
}

/* DIR/KEY.prior of the program local rank k runs; false when its process cannot be read. */
static bool memory_path(struct monitor *m, int k, char *out, size_t len)
{
	struct fnv f = { 0xcbf29ce484222325ULL };
	int32_t shape[3] = { (int32_t)m->job.files_owner.uid, m->job.nranks, m->sets.size };
	pid_t pid = m->job.targets[k].pid;

	fnv_add(&f, shape, sizeof(shape));
	if (!key_add_executable(&f, pid) || !key_add_cmdline(&f, pid))
		return false;
	return snprintf(out, len, "%s/%016llx.prior", m->w.memory_dir, (unsigned long long)f.h) < (int)len;
}

void memory_round_start(struct monitor *m)
{
	m->memory_file[0] = '\0';
	m->memory_recalled = false;
	m->memory_pending = m->w.memory_dir && !m->w.no_memory;
}

void memory_recall(struct monitor *m)
{
	char text[PRIOR_TEXT_MAX + 1], err[PATH_MAX + 160];
	struct model_prior p;
	struct detector_info in;
	int k = memory_program_rank(m);

	detector_get_info(m->det, &in);
	if (k < 0 && in.samples + 1 < DETECTOR_MIN_SAMPLES)
		return; /* no rank seen as its program yet: the next sample may */
	m->memory_pending = false;
	if (k < 0 || !memory_path(m, k, m->memory_file, sizeof(m->memory_file))) {
		m->memory_file[0] = '\0';
		return;
	}

	ssize_t n = outfile_read_text(m->memory_file, &m->job.files_owner, text, sizeof(text), err, sizeof(err));

	if (n == -2)
		return; /* this program has not run here healthy yet */
	if (n < 0) {
		log_say("the remembered model: %s; the model starts afresh", err);
		return;
	}
	if (!prior_parse(text, (size_t)n, &p, err, sizeof(err))) {
		log_say("the remembered model %s is not one parastack wrote (%s); the model starts afresh "
			"and replaces it when the job ends healthy", m->memory_file, err);
		return;
	}
	if (!detector_prior_give(m->det, &p)) {
		log_say("the remembered model %s does not fit this job (its set of %d ranks, this one %d); "
			"the model starts afresh", m->memory_file, p.set_size, m->sets.size);
		return;
	}
	stall_prior_give(&m->stall, &p);
	m->memory_recalled = true;
	log_info("the model starts from this program's last healthy run (%s: interval %.0f ms; --no-memory "
		 "to start afresh)", m->memory_file, p.interval_ms);
}

void memory_keep(struct monitor *m)
{
	char text[PRIOR_TEXT_MAX], err[PATH_MAX + 160];
	struct model_prior p;

	if (!m->memory_file[0] || m->reported || detector_hang_ongoing(m->det) || stall_hang_ongoing(&m->stall))
		return;
	if (!detector_prior_take(m->det, &p))
		return; /* too short a run, or never settled: nothing worth handing on */
	stall_prior_take(&m->stall, &p);

	int n = prior_format(&p, text, sizeof(text));

	if (n < 0 || outfile_replace_text(m->memory_file, text, (size_t)n, &m->job.files_owner, err, sizeof(err)) < 0)
		log_say("the model could not be remembered: %s", n < 0 ? "too large a set" : err);
}
