/* SPDX-License-Identifier: BSD-3-Clause */
/* layer_place — the recording layer into a launch line's ranks (see layer_place.h for the
 * contract): which launcher the line runs, and the placement for it - Open MPI's in
 * layer_ompi.c, MPICH's hydra, srun, and the shims for job scripts here - with the helpers they
 * share (layer_util.c). */
#include "layer_place.h"
#include "layer_ompi.h"
#include "layer_util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TASK_PROLOG "parastack-task-prolog"

static const char *const ompi_names[] = { "mpirun", "mpiexec", "orterun", "mpirun.openmpi",
					  "mpiexec.openmpi", NULL };
static const char *const hydra_names[] = { "mpiexec.hydra", "mpiexec.mpich", "mpirun.mpich",
					   "hydra", NULL };
enum launcher_kind { LAUNCHER_OMPI, LAUNCHER_HYDRA, LAUNCHER_SRUN, LAUNCHER_OTHER };

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static enum launcher_kind kind_of_name(const char *name)
{
	if (in_list(name, ompi_names))
		return LAUNCHER_OMPI;
	if (in_list(name, hydra_names))
		return LAUNCHER_HYDRA;
	return strcmp(name, "srun") ? LAUNCHER_OTHER : LAUNCHER_SRUN;
}

/* Which launcher argv[0] is: by the program it really runs (mpirun may be Open MPI's orterun
 * or MPICH's hydra, as Debian's alternatives say), else by its name. */
static enum launcher_kind launcher_kind(const char *argv0)
{
	char real[PATH_MAX];
	enum launcher_kind k = LAUNCHER_OTHER;

	if (layer_find_program(argv0, getenv(SHIM_DIR_ENV), real, sizeof(real)))
		k = kind_of_name(layer_base_name(real));
	return k != LAUNCHER_OTHER ? k : kind_of_name(layer_base_name(argv0));
}

/* The layer built against MPICH, beside the default (Open MPI) one: DIR/mpich/NAME. */
static char *mpich_sibling(struct layer_placement *p, const char *lib, const char *name)
{
	const char *slash = strrchr(lib, '/');

	return slash ? layer_keepf(p, "%.*s/mpich/%s", (int)(slash - lib), lib, name) : NULL;
}

/* Does the program srun runs need MPICH's library (layershims_needs_mpich)? */
static bool needs_mpich(const char *program)
{
	char real[PATH_MAX];

	return layer_find_program(program, getenv(SHIM_DIR_ENV), real, sizeof(real)) && layershims_needs_mpich(real);
}

/* srun: Slurm's task prolog (SLURM_TASK_PROLOG, srun's own variable for --task-prolog) runs in
 * each task's environment before it starts and preloads the layer there: srun's argv and the
 * user's --export are untouched, and neither srun nor slurmstepd loads it. */
static void place_srun(struct layer_placement *p, char **argv, const char *lib)
{
	const char *user = getenv("SLURM_TASK_PROLOG");
	const char *slash = strrchr(lib, '/');
	char *prolog = slash ? layer_keepf(p, "%.*s/%s", (int)(slash - lib), lib, TASK_PROLOG) : NULL;

	for (int i = 1; argv[i]; i++) {
		if (!strncmp(argv[i], "--task-prolog", 13) && (!argv[i][13] || argv[i][13] == '=')) {
			snprintf(p->why_not, sizeof(p->why_not), "the srun line has its own --task-prolog");
			return;
		}
		/* An MPICH program gets the layer built against MPICH (its own prolog beside it). */
		if (argv[i][0] != '-' && needs_mpich(argv[i]))
			prolog = mpich_sibling(p, lib, TASK_PROLOG);
	}
	if (!prolog || access(prolog, X_OK) < 0) {
		snprintf(p->why_not, sizeof(p->why_not), "%s is not installed beside %s", TASK_PROLOG, lib);
		return;
	}
	if (user && *user && strcmp(user, prolog)) {
		snprintf(p->why_not, sizeof(p->why_not), "SLURM_TASK_PROLOG is the job's own (%s)", user);
		return;
	}
	p->env[p->nenv][0] = "SLURM_TASK_PROLOG";
	p->env[p->nenv++][1] = prolog;
	p->how = "Slurm's task prolog (SLURM_TASK_PROLOG), in each task";
}

/* MPICH's hydra (mpiexec.hydra, mpiexec.mpich): -genv LD_PRELOAD first, for every section,
 * unless the user's line has its own -genv LD_PRELOAD; the user's -genv or -env LD_PRELOAD
 * values get the layer after theirs.
 * -genvnone, -genvall, -genvlist and -envnone leave an explicit -genv alone. */
static int place_hydra(struct layer_placement *p, char **argv, const char *lib)
{
	char *mlib = mpich_sibling(p, lib, "libparastack-mpi.so");
	int argc = 0, own = 0;
	char **out;

	if (!mlib || access(mlib, R_OK) < 0) {
		snprintf(p->why_not, sizeof(p->why_not), "the layer built for MPICH is not installed (%s)",
			 mlib ? mlib : "?");
		return 0;
	}
	while (argv[argc])
		argc++;
	if (!(out = calloc((size_t)argc + 4, sizeof(char *))))
		return -1;
	out[0] = argv[0];
	for (int i = 1; i < argc; i++)
		own += layer_opt_is(argv[i], "genv") && i + 2 < argc && !strcmp(argv[i + 1], "LD_PRELOAD");
	int o = 1;

	if (!own) {
		out[o++] = "-genv";
		out[o++] = "LD_PRELOAD";
		out[o++] = layer_preload_value(p, getenv("LD_PRELOAD"), mlib);
	}
	for (int i = 1; i < argc; i++) {
		out[o++] = argv[i];
		if ((layer_opt_is(argv[i], "env") || layer_opt_is(argv[i], "genv")) && i + 2 < argc &&
		    !strcmp(argv[i + 1], "LD_PRELOAD")) {
			out[o++] = argv[++i];
			out[o++] = layer_preload_value(p, argv[++i], mlib);
		}
	}
	return layer_adopt_argv(p, out, o, "-genv LD_PRELOAD (the layer built against MPICH)");
}

/* A Python launcher (torchrun, a job script's python) starts its workers with no MPI launcher
 * between, so no layer puts the torch.distributed collective record (python/ beside the layer,
 * record/python_path.c) on their PYTHONPATH: the launcher's environment carries it to them,
 * after the user's own entries. */
static void place_python_record(struct layer_placement *p, const char *lib)
{
	const char *slash = strrchr(lib, '/'), *old = getenv("PYTHONPATH");
	char *dir = slash ? layer_keepf(p, "%.*s/python", (int)(slash - lib), lib) : NULL;
	char probe[PATH_MAX];

	if (!dir || snprintf(probe, sizeof(probe), "%s/sitecustomize.py", dir) >= (int)sizeof(probe) ||
	    access(probe, R_OK) < 0 || (old && strstr(old, dir)))
		return;
	p->env[p->nenv][0] = "PYTHONPATH";
	p->env[p->nenv++][1] = old && *old ? layer_keepf(p, "%s:%s", old, dir) : dir;
}

/* A launcher parastack does not read (a job script): shims for the Open MPI launchers it may
 * run, first in PATH. */
static int place_shims(struct layer_placement *p, const char *lib)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *path = getenv("PATH");

	if (n > 0)
		self[n] = '\0';
	if (n <= 0 || layershims_make(self, p->tmpdir, sizeof(p->tmpdir)) < 0) {
		snprintf(p->why_not, sizeof(p->why_not), "no private directory for the launcher shims: %s",
			 strerror(errno));
		return 0;
	}
	p->env[p->nenv][0] = "PATH";
	p->env[p->nenv++][1] = layer_keepf(p, "%s:%s", p->tmpdir, path && *path ? path : "/usr/bin:/bin");
	p->env[p->nenv][0] = SHIM_DIR_ENV;
	p->env[p->nenv++][1] = p->tmpdir;
	p->env[p->nenv][0] = SHIM_LIB_ENV;
	p->env[p->nenv++][1] = lib;
	place_python_record(p, lib);
	p->how = "shims for mpirun, mpiexec and orterun first in the job's PATH";
	return p->env[0][1] ? 0 : -1;
}

int layer_place(char **argv, const char *lib, struct layer_placement *p)
{
	int rc = 0;

	*p = (struct layer_placement){ .argv = argv };
	if (strpbrk(lib, ": \t\n")) {
		snprintf(p->why_not, sizeof(p->why_not), "its path (%s) has a ':' or a space", lib);
		return 0;
	}
	switch (launcher_kind(argv[0])) {
	case LAUNCHER_OMPI: rc = layer_place_ompi(p, argv, lib); break;
	case LAUNCHER_HYDRA: rc = place_hydra(p, argv, lib); break;
	case LAUNCHER_SRUN: place_srun(p, argv, lib); break;
	case LAUNCHER_OTHER: rc = place_shims(p, lib); break;
	}
	if (rc < 0 || p->why_not[0]) {
		if (p->argv != argv)
			free(p->argv);
		p->argv = argv;
		p->nenv = 0;
		p->how = NULL;
		if (rc < 0)
			snprintf(p->why_not, sizeof(p->why_not), "out of memory");
	}
	return rc;
}

void layer_placement_setenv(const struct layer_placement *p)
{
	for (int i = 0; i < p->nenv; i++)
		setenv(p->env[i][0], p->env[i][1], 1);
}

void layer_placement_free(struct layer_placement *p)
{
	if (p->tmpdir[0] && !p->borrowed_tmpdir) {
		/* The shims, or an appfile copy, and the appfile copies the shims made. */
		layershims_remove(p->tmpdir, (uid_t)-1);
		p->tmpdir[0] = '\0';
	}
	for (int i = 0; i < p->nstrs; i++)
		free(p->strs[i]);
	p->nstrs = 0;
}

bool layer_shim_invoked(const char *argv0)
{
	return getenv(SHIM_DIR_ENV) && in_list(layer_base_name(argv0), layershims_names);
}

int layer_shim_main(int argc, char **argv)
{
	const char *dir = getenv(SHIM_DIR_ENV), *lib = getenv(SHIM_LIB_ENV);
	char real[PATH_MAX];
	struct layer_placement p = { .argv = NULL };

	(void)argc;
	if (!layer_find_program(layer_base_name(argv[0]), dir, real, sizeof(real))) {
		fprintf(stderr, "%s: command not found\n", layer_base_name(argv[0]));
		return 127;
	}
	argv[0] = real;
	if (getenv(SHIM_PASS_ENV)) {
		execv(real, argv); /* an srun that mpirun runs for its daemons */
		fprintf(stderr, "%s: cannot run %s: %s\n", layer_base_name(argv[0]), real, strerror(errno));
		return 126;
	}
	if (strcmp(layer_base_name(real), "srun"))
		setenv(SHIM_PASS_ENV, "1", 1);
	if (lib && layer_place(argv, lib, &p) == 0 && !p.why_not[0])
		layer_placement_setenv(&p);
	else if (lib)
		fprintf(stderr, "parastack: recording layer not loaded: %s; communication hangs are "
			"diagnosed from stacks\n", p.why_not[0] ? p.why_not : "out of memory");
	/* An appfile copy stays in the shims' directory, which `parastack run` removes. */
	execv(real, p.argv ? p.argv : argv);
	fprintf(stderr, "%s: cannot run %s: %s\n", layer_base_name(argv[0]), real, strerror(errno));
	return 126;
}
