# SPDX-License-Identifier: BSD-3-Clause
# parastack — GNU Make build.
#   make                  build parastack, parastack-monitor, parastack-sbatch, parastack-qsub,
#                         the Slurm SPANK plugin (spank_parastack.so)
#   make check            unit tests (plain and under ASan/UBSan), fuzzing from a fixed seed,
#                         and command-line tests (J=N: N test files at a time, default 3)
#   make fuzz             only the fuzz targets (tests/fuzz)
#   make check-repeat N=5 each command-line test file N times, alone and beside a load
#   make install PREFIX=/usr/local DESTDIR=
#   make deps             install missing Debian packages (root), or list them (others): all
#                         make check needs (scripts/install-deps --help: build, runtime, demo, test)
# CI=true (or WERROR=1) turns warnings into errors; V=1 shows the full commands.
#
# Where it installs, and what it is built for (each a variable on make's command line; the same
# ones for `make` and `make install`, which builds again what they change):
#   PREFIX      /usr/local               BINDIR  PREFIX/bin      MANDIR  PREFIX/share/man
#   LIBDIR      PREFIX/lib (the layer, the task prolog and the SPANK plugin in LIBDIR/parastack)
#   SYSCONFDIR  /etc/parastack (parastack's own: the site's default options, SYSCONFDIR/options)
#   MODULEDIR   PREFIX/share/modulefiles (the modulefile, parastack/VERSION)
#   DATADIR     PREFIX/share/parastack (the report's JSON Schema, report.schema.json; with the
#               SPANK plugin, plugstack.conf: its line for /etc/slurm/plugstack.conf.d/)
#   DESTDIR     a staging root prefixed to every installed path (packages)
#   MPICC       mpicc      the MPI compiler of the monitor (the recording layer is built for
#                          each MPI found, mpicc and mpicc.mpich, to be preloaded into its jobs)
#   MPIRUN      mpirun     the launcher that starts the monitors (Open MPI's mpirun, or MPICH's
#                          hydra: mpiexec.mpich, mpiexec.hydra), its kind read from --version
#   SLURM       yes        no: no libslurm; the Slurm front end (parastack-sbatch), the SPANK
#                          plugin and the Slurm lookups are left out, the rest builds
# `parastack --version` prints what a build was configured with.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
MANDIR     ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc/parastack
MODULEDIR  ?= $(PREFIX)/share/modulefiles
DATADIR    ?= $(PREFIX)/share/parastack
DESTDIR    ?=
PKGLIBDIR  := $(LIBDIR)/parastack
MPICC      ?= mpicc
MPIRUN     ?= mpirun
SLURM      ?= yes
VERSION := 0.1.0

B := build
CC      ?= cc
CFLAGS  ?= -O2 -g
WERROR  ?= $(if $(filter true 1,$(CI)),1,)
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes $(if $(WERROR),-Werror,)
# The monitors' launcher and the MPI it belongs to, for the monitors' command line and --version
# ("Open MPI 4.1.4", "MPICH 4.0.2"): Open MPI's mpirun says "mpirun (Open MPI) 4.1.4", hydra
# "HYDRA build details: Version: 4.0.2".
MPIRUN_SAYS := $(shell $(MPIRUN) --version 2>/dev/null | head -n 3 | tr -s ' \n' ' ')
MPIRUN_KIND := $(if $(findstring HYDRA,$(MPIRUN_SAYS)),hydra,openmpi)
MPI_BUILT := $(if $(filter hydra,$(MPIRUN_KIND)),$(shell echo '$(MPIRUN_SAYS)' | sed -n 's/.*Version: *\([0-9][0-9.a-z]*\).*/MPICH \1/p'),$(shell echo '$(MPIRUN_SAYS)' | sed -n 's/^[^(]*(\([^)]*\)) \([0-9][0-9.a-z]*\).*/\1 \2/p'))
WITH_SLURM := $(filter yes,$(SLURM))
CPPFLAGS_ALL := -std=gnu11 -D_GNU_SOURCE -DPARASTACK_VERSION='"$(VERSION)"' -MMD -MP -I$(B)/gen
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all


STATS_SRC    := $(wildcard stats/*.c)
# The parastack command: its launcher (run, attach, the monitors started) and the tools that
# inspect (stack, replay, plot, view).
LAUNCHER_SRC := $(wildcard launcher/*.c inspect/*.c)
# What every program stands on (base/).
BASE_SRC     := $(wildcard base/*.c)
# The monitor's MPI parts (built with mpicc) and the rest (usable by every program).
MONITOR_MPI_SRC := monitor/job/comm.c monitor/daemon/jobstack.c monitor/job/job.c monitor/daemon/daemon.c \
	monitor/daemon/watch.c monitor/daemon/output.c monitor/daemon/pipeline.c monitor/daemon/proof.c monitor/daemon/gather.c \
	monitor/daemon/source_ptrace.c monitor/daemon/site.c monitor/daemon/stragglers.c monitor/daemon/jobmeta.c
# The schedulers' lookups (sched/lookup/): what Slurm and Torque say about a job, on the base's
# floor, for the monitor and the front ends alike. The Slurm lookups link libslurm (no pkg-config
# file in Debian: -lslurm by name): only the programs that ask Slurm take them. Built without
# Slurm (SLURM=no), each lookup answers "built without Slurm" instead (lookup_slurm_none.c).
SLURM_SRC    := $(if $(WITH_SLURM),sched/lookup/lookup_slurm.c,sched/lookup/lookup_slurm_none.c)
TORQUE_SRC   := sched/lookup/lookup_torque.c
MONITOR_SRC  := $(BASE_SRC) sched/lookup/slurm_ids.c $(TORQUE_SRC) \
	$(filter-out $(MONITOR_MPI_SRC),$(wildcard monitor/*/*.c monitor/*/*/*.c))
# libstdc++ for its C++ demangler (monitor/sample/addr/demangle.c).
MONITOR_LIBS := -lunwind-ptrace -lunwind-generic -lunwind -ldw -lelf -ljansson -lstdc++
SCHED_LIBS   := $(if $(WITH_SLURM),-lslurm,)
TESTLIB_SRC  := $(wildcard tests/lib/*.c)
UNIT_SRC     := $(wildcard tests/unit/*.c)

obj = $(patsubst %.c,$(B)/$(1)/%.o,$(2))
Q   := $(if $(V),,@)
say  = $(if $(V),,@printf '  %-7s %s\n' $(1) $(2);)

PROGRAMS := $(B)/parastack $(B)/parastack-monitor $(if $(WITH_SLURM),$(B)/parastack-sbatch,) $(B)/parastack-qsub
# The Slurm SPANK plugin (sched/slurm/spank_parastack.c), installed in LIBDIR/parastack: it
# starts `BINDIR/parastack attach` (found from its own place) for the jobs that ask.
SPANK_PLUGIN := $(if $(WITH_SLURM),$(B)/spank_parastack.so,)
$(if $(WITH_SLURM),,$(info parastack: SLURM=$(SLURM): building without libslurm (no parastack-sbatch, no SPANK plugin; Slurm jobs cannot be watched)))
# The recording layer preloaded into the ranks (record/), found next to the programs in the
# build tree and in LIBDIR/parastack once installed.
RECORD_LIB := $(B)/libparastack-mpi.so
RECORD_PY := $(B)/python/sitecustomize.py $(B)/python/parastack_torchrec.py
# Slurm's task prolog that preloads it into srun's tasks (launcher/layer_place.c), installed
# beside it.
TASK_PROLOG := $(B)/parastack-task-prolog
# The same layer built against MPICH (mpicc.mpich, Debian's libmpich-dev), with its own task
# prolog beside it: jobs whose ranks run MPICH get this one (launcher/layer_place.c).
MPICH_CC := $(shell command -v mpicc.mpich 2>/dev/null)
RECORD_MPICH := $(if $(MPICH_CC),$(B)/mpich/libparastack-mpi.so $(B)/mpich/parastack-task-prolog,)
MPICH_APPS := $(if $(MPICH_CC),$(B)/mpich/tests/apps/stencil $(B)/mpich/tests/apps/layercheck \
	$(B)/mpich/tests/apps/shapes $(B)/mpich/tests/libpsinject.so,)
TEST_PROGRAMS := $(B)/tests/unit $(B)/tests/unit-asan $(B)/tests/tracegen
# Processes with known states for the sampler's tests (tests/fixtures).
APPS := $(B)/tests/apps/stencil $(B)/tests/apps/solver $(B)/tests/apps/threaded \
	$(B)/tests/apps/busywait $(B)/tests/apps/phases $(B)/tests/apps/commfaults \
	$(B)/tests/apps/commfaults_f $(B)/tests/apps/commfaults_fh $(B)/tests/apps/commfaults_f08 \
	$(B)/tests/apps/layercheck $(B)/tests/apps/mt_stress $(B)/tests/apps/halo $(B)/tests/apps/masterworker \
	$(B)/tests/apps/transpose $(B)/tests/apps/shapes $(B)/tests/apps/subcomm \
	$(B)/tests/apps/halo_cxx $(B)/tests/apps/halo_cxx-stripped $(B)/tests/apps/heat_mod $(B)/tests/apps/heat_mod-stripped
FIXTURES := $(APPS) $(B)/tests/libparastack-mpi-asan.so $(B)/tests/callchain-O0 $(B)/tests/callchain-inlined $(B)/tests/mpi_states \
	$(B)/tests/dstate $(B)/tests/evilname $(B)/tests/remap $(B)/tests/libremap_a.so $(B)/tests/libremap_b.so \
	$(B)/tests/mpi_states_f $(B)/tests/sample_loop $(B)/tests/slurm_probe $(B)/tests/libpsinject.so \
	$(B)/tests/pylayout $(B)/tests/libnopidfd.so

.PHONY: all check unit cli fuzz install uninstall clean deps demo bench check-repeat cli-build FORCE
all: $(PROGRAMS) $(RECORD_LIB) $(RECORD_PY) $(TASK_PROLOG) $(RECORD_MPICH) $(SPANK_PLUGIN)

# The recording layer's regular part, generated from one description of the MPI API
# (record/mpi.api): its wrappers, and the list of functions the monitor reads too.
GEN := $(B)/gen
GEN_FILES := $(GEN)/psrec_funcs.h $(GEN)/record_wrappers.c
$(GEN_FILES) &: record/mpi.api record/gen_wrappers.py
	$(call say,GEN,$(GEN))python3 record/gen_wrappers.py record/mpi.api $(GEN)

# What a build was configured with, for the programs (build/gen/config.h): rewritten only when a
# value changes. The layer and the programs find each other by the path from one directory to the
# other, not by absolute paths: a staged (DESTDIR) or moved installation works, and installing
# into another prefix of the same layout builds nothing again.
CONFIG_H := $(GEN)/config.h
LAYER_FROM_BIN := $(shell realpath -m --relative-to='$(BINDIR)' '$(PKGLIBDIR)')
BIN_FROM_LAYER := $(shell realpath -m --relative-to='$(PKGLIBDIR)' '$(BINDIR)')
$(CONFIG_H): FORCE
	@mkdir -p $(@D)
	$(Q){ echo '/* Generated by the Makefile from what the build was configured with: do not edit. */'; \
	  echo '#define PARASTACK_MPI "$(or $(MPI_BUILT),an unknown MPI)"'; \
	  echo '#define PARASTACK_MPICC "$(MPICC)"'; \
	  echo '#define PARASTACK_MPIRUN "$(MPIRUN)"'; \
	  echo '#define PARASTACK_MPIRUN_HYDRA $(if $(filter hydra,$(MPIRUN_KIND)),1,0)'; \
	  echo '#define PARASTACK_WITH_SLURM $(if $(WITH_SLURM),1,0)'; \
	  echo '#define PARASTACK_SYSCONFDIR "$(SYSCONFDIR)"'; \
	  echo '#define PARASTACK_LAYER_FROM_BIN "$(LAYER_FROM_BIN)"'; \
	  echo '#define PARASTACK_BIN_FROM_LAYER "$(BIN_FROM_LAYER)"'; } >$@.$$$$ && \
	if cmp -s $@.$$$$ $@; then rm -f $@.$$$$; else mv -f $@.$$$$ $@; fi
FORCE:

$(B)/obj/%.o: %.c | $(GEN)/psrec_funcs.h $(CONFIG_H)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(WARN) $(CFLAGS) -c $< -o $@

$(B)/asan/%.o: %.c | $(GEN)/psrec_funcs.h $(CONFIG_H)
	@mkdir -p $(@D)
	$(call say,CC-SAN,$<)$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) -c $< -o $@

$(B)/pic/%.o: %.c | $(GEN)/psrec_funcs.h $(CONFIG_H)
	@mkdir -p $(@D)
	$(call say,CC-PIC,$<)$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

# The monitor's MPI objects depend on the configuration itself: another MPICC builds them again.
$(B)/mpiobj/%.o: %.c $(CONFIG_H) | $(GEN)/psrec_funcs.h
	@mkdir -p $(@D)
	$(call say,MPICC,$<)$(MPICC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(WARN) $(CFLAGS) -c $< -o $@

$(B)/parastack-monitor: $(call obj,mpiobj,$(MONITOR_MPI_SRC)) $(call obj,obj,$(MONITOR_SRC) $(SLURM_SRC) $(STATS_SRC))
	$(call say,LINK,$@)$(MPICC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MONITOR_LIBS) $(SCHED_LIBS) -lm

# torch.distributed's collective record: python/ beside the layer, put on a Python rank's
# PYTHONPATH by the layer (record/python_path.c).
$(B)/python/%.py: record/python/%.py
	@mkdir -p $(@D)
	$(call say,COPY,$@)cp $< $@

# The layer's compilation units (record/layer.h has the map), the generated wrappers last.
RECORD_UNITS := record/layer.c record/channels.c record/requests.c record/start.c record/fortran.c record/python_path.c \
	$(GEN)/record_wrappers.c
RECORD_SRC := $(RECORD_UNITS) record/layer.h record/record_format.h $(GEN_FILES)
# The layer with the build's CFLAGS and LDFLAGS (a distribution's hardening flags reach it too).
$(RECORD_LIB): $(RECORD_SRC)
	@mkdir -p $(@D)
	$(call say,MPICC,$@)mpicc -std=gnu11 $(CPPFLAGS) $(CFLAGS) -fPIC -shared -fvisibility=hidden -Irecord -I$(GEN) $(WARN) $(LDFLAGS) -o $@ $(RECORD_UNITS) -ldl

# The layer under ASan/UBSan, for the test of 4 threads per rank calling MPI at once.
$(B)/tests/libparastack-mpi-asan.so: $(RECORD_SRC)
	@mkdir -p $(@D)
	$(call say,MPICC,$@)mpicc -std=gnu11 -O1 -g -fPIC -shared -fvisibility=hidden $(SAN) -Irecord -I$(GEN) $(WARN) -o $@ $(RECORD_UNITS) -ldl

$(TASK_PROLOG): $(call obj,obj,sched/slurm/task_prolog.c)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

$(B)/mpich/libparastack-mpi.so: $(RECORD_SRC)
	@mkdir -p $(@D)
	$(call say,MPICC,$@)mpicc.mpich -std=gnu11 $(CPPFLAGS) $(CFLAGS) -fPIC -shared -fvisibility=hidden -Irecord -I$(GEN) $(WARN) $(LDFLAGS) -o $@ $(RECORD_UNITS) -ldl

$(B)/mpich/parastack-task-prolog: $(TASK_PROLOG)
	@mkdir -p $(@D)
	$(Q)cp $< $@

# Test applications built against MPICH, run by mpiexec.mpich in tests/cli/test-mpich.sh.
$(B)/mpich/tests/apps/%: tests/apps/%.c tests/apps/faults.h
	@mkdir -p $(@D)
	$(call say,MPICC,$@)mpicc.mpich -std=gnu11 -O2 -g -pthread -o $@ $< -lm

$(B)/parastack: $(call obj,obj,$(LAUNCHER_SRC) $(MONITOR_SRC) $(SLURM_SRC) $(STATS_SRC))
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MONITOR_LIBS) $(SCHED_LIBS) -lm

$(B)/parastack-sbatch: $(call obj,obj,sched/slurm/parastack_sbatch.c sched/batch/batch_job.c base/options.c base/option_docs.c base/install_paths.c $(STATS_SRC))
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

$(SPANK_PLUGIN): $(call obj,pic,sched/slurm/spank_parastack.c sched/slurm/spank_collect.c sched/slurm/spank_streams.c base/options.c base/layershims.c base/runtimes.c \
		base/promfile.c monitor/sample/safe/trustedpath.c $(STATS_SRC))
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -shared -o $@ $^ -lm

$(B)/parastack-qsub: $(call obj,obj,sched/torque/parastack_qsub.c sched/batch/batch_job.c base/options.c base/option_docs.c base/install_paths.c $(STATS_SRC) $(TORQUE_SRC))
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

$(B)/tests/slurm_probe: $(call obj,obj,tests/tools/slurm_probe.c sched/lookup/slurm_ids.c $(SLURM_SRC) $(TORQUE_SRC))
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SCHED_LIBS)

CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lpthread -lm)

$(B)/tests/unit: $(call obj,obj,$(UNIT_SRC) $(TESTLIB_SRC) $(STATS_SRC) $(MONITOR_SRC) sched/slurm/spank_streams.c)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(MONITOR_LIBS) -ljansson -lm

$(B)/tests/unit-asan: $(call obj,asan,$(UNIT_SRC) $(TESTLIB_SRC) $(STATS_SRC) $(MONITOR_SRC) sched/slurm/spank_streams.c)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) -g $(SAN) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(MONITOR_LIBS) -ljansson -lm

$(B)/tests/tracegen: $(call obj,obj,tests/tools/tracegen_main.c $(TESTLIB_SRC) $(STATS_SRC))
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

$(B)/tests/callchain-O0: tests/fixtures/callchain.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -std=gnu11 -O0 -g -pthread -o $@ $<

$(B)/tests/callchain-inlined: tests/fixtures/callchain.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -std=gnu11 -O2 -g -DINLINED -pthread -o $@ $<

# Test applications with fault injection (tests/apps): built with debug info, as users would.
$(B)/tests/apps/%: tests/apps/%.c tests/apps/faults.h
	@mkdir -p $(@D)
	$(call say,MPICC,$@)mpicc -std=gnu11 -O2 -g -pthread -o $@ $< -lm

$(B)/tests/apps/commfaults_f: tests/apps/commfaults_f.F90
	@mkdir -p $(@D)
	$(call say,MPIF90,$@)mpif90 -O1 -g -J $(@D) -o $@ $<

$(B)/tests/apps/commfaults_fh: tests/apps/commfaults_f.F90
	@mkdir -p $(@D)
	$(call say,MPIF90,$@)mpif90 -O1 -g -DUSE_MPIF_H -J $(@D) -o $@ $<

$(B)/tests/apps/commfaults_f08: tests/apps/commfaults_f08.f90
	@mkdir -p $(@D)/f08
	$(call say,MPIF90,$@)mpif90 -O1 -g -J $(@D)/f08 -o $@ $<

$(B)/tests/apps/halo: tests/apps/halo.f90
	@mkdir -p $(@D)
	$(call say,MPIF90,$@)mpif90 -O1 -g -o $@ $<

# Names to read in reports: a C++ code laid out as LAMMPS is, a Fortran code whose work lives in
# a module, and stripped copies of both (no symbol table: main is found from the C runtime).
$(B)/tests/apps/halo_cxx: tests/apps/halo_cxx.cpp tests/apps/faults.h
	@mkdir -p $(@D)
	$(call say,MPICXX,$@)mpicxx $(CXX_APP_FLAGS) -o $@ $<

$(B)/tests/apps/heat_mod: tests/apps/heat_mod.f90
	@mkdir -p $(@D)/heat
	$(call say,MPIF90,$@)mpif90 -O1 -g -fno-inline -J $(@D)/heat -o $@ $<

$(B)/tests/apps/%-stripped: $(B)/tests/apps/%
	$(call say,STRIP,$@)strip -o $@ $<

# LAMMPS's packaging: the program stripped, its classes in a library that keeps only .dynsym.
CXX_APP_FLAGS := -O2 -g -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX -Wall -Wextra -Wno-unused-function $(if $(WERROR),-Werror,)
$(B)/tests/apps/libsimcxx.so: tests/apps/halo_cxx.cpp tests/apps/faults.h
	@mkdir -p $(@D)
	$(call say,MPICXX,$@)mpicxx $(CXX_APP_FLAGS) -fPIC -shared -DSIM_LIBRARY -o $@ $< && strip --strip-unneeded $@

$(B)/tests/apps/halo_cxx-stripped: tests/apps/halo_cxx.cpp $(B)/tests/apps/libsimcxx.so
	$(call say,MPICXX,$@)mpicxx $(CXX_APP_FLAGS) -DSIM_MAIN_ONLY -o $@ $< -L$(@D) -lsimcxx -Wl,-rpath,'$$ORIGIN' && strip $@

$(B)/tests/apps/solver: tests/apps/solver.f90
	@mkdir -p $(@D)
	$(call say,MPIF90,$@)mpif90 -O2 -g -o $@ $<

# A user's own LD_PRELOAD library (an MPI fault injector), for the launch-line tests.
# -O2: a wrapper that passes a call on ends in a sibling call (a jump), so the recording layer
# after it records the application's call site, not the injector's.
$(B)/tests/libpsinject.so: tests/fixtures/psinject.c record/record_format.h $(GEN)/psrec_funcs.h
	@mkdir -p $(@D)
	$(call say,MPICC,$@)mpicc -std=gnu11 -O2 -g -fPIC -shared -I$(GEN) -o $@ $< -ldl

$(B)/mpich/tests/libpsinject.so: tests/fixtures/psinject.c record/record_format.h $(GEN)/psrec_funcs.h
	@mkdir -p $(@D)
	$(call say,MPICC,$@)mpicc.mpich -std=gnu11 -O2 -g -fPIC -shared -I$(GEN) -o $@ $< -ldl

$(B)/tests/dstate: tests/fixtures/dstate.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -std=gnu11 -O1 -g -o $@ $<

$(B)/tests/remap: tests/fixtures/remap.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -std=gnu11 -O1 -g -o $@ $< -ldl

# pidfd_open failing for parastack (the kill of a job's leftovers without it: test-run).
$(B)/tests/libnopidfd.so: tests/fixtures/nopidfd.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -std=gnu11 -O1 -g -fPIC -shared -o $@ $< -ldl

$(B)/tests/libremap_a.so: tests/fixtures/remap_lib.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -std=gnu11 -O1 -g -fPIC -shared -DLIB_A -o $@ $<

$(B)/tests/libremap_b.so: tests/fixtures/remap_lib.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -std=gnu11 -O1 -g -fPIC -shared -o $@ $<

$(B)/tests/evilname: tests/fixtures/evilname.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -std=gnu11 -O1 -g -o $@ $<

$(B)/tests/mpi_states: tests/fixtures/mpi_states.c
	@mkdir -p $(@D)
	$(call say,MPICC,$@)mpicc -std=gnu11 -O1 -g -o $@ $<

$(B)/tests/mpi_states_f: tests/fixtures/mpi_states_f.f90
	@mkdir -p $(@D)
	$(call say,MPIF90,$@)mpif90 -O1 -g -o $@ $<

# parastack's CPython layout tables, printed for test-python to hold against each interpreter's
# headers (tests/tools/pyoffsets.c, compiled there against them).
$(B)/tests/pylayout: $(call obj,obj,tests/tools/pylayout.c monitor/sample/stop/pylayouts.c)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

$(B)/tests/sample_loop: $(call obj,obj,tests/tools/sample_loop.c $(MONITOR_SRC) $(STATS_SRC))
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MONITOR_LIBS) -lm

# The simulated monitor (bench/scale-sim.sh, tests): the installed monitor with the scripted
# ranks of tests/sim/source_sim.c in place of source_ptrace.c. Never installed.
SIM_MPI_SRC := $(filter-out monitor/daemon/source_ptrace.c,$(MONITOR_MPI_SRC)) tests/sim/source_sim.c
$(B)/bench/parastack-monitor-sim: $(call obj,mpiobj,$(SIM_MPI_SRC)) $(call obj,obj,$(MONITOR_SRC) $(SLURM_SRC) $(STATS_SRC))
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(MPICC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MONITOR_LIBS) $(SCHED_LIBS) -lm

$(B)/bench/sample_cost: $(call obj,obj,bench/sample_cost.c $(MONITOR_SRC) $(STATS_SRC))
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MONITOR_LIBS) -lm

$(B)/bench/trace_eval: $(call obj,obj,bench/trace_eval.c $(STATS_SRC))
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

$(B)/bench/straggler_eval: $(call obj,obj,bench/straggler_eval.c $(STATS_SRC))
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

$(B)/bench/record_micro: bench/record_micro.c
	@mkdir -p $(@D)
	$(call say,MPICC,$@)mpicc -std=gnu11 -O2 -g -o $@ $<

$(B)/bench/model_eval: $(call obj,obj,bench/model_eval.c $(TESTLIB_SRC) $(STATS_SRC))
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

# Fuzz targets (libFuzzer, clang from Debian): the parsers of what users hand in.
FUZZ_FLAGS := -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
$(B)/fuzz/fuzz_trace: tests/fuzz/fuzz_trace.c stats/trace.c
	@mkdir -p $(@D)
	$(call say,CLANG,$@)clang $(FUZZ_FLAGS) -o $@ $^ -lm

$(B)/fuzz/fuzz_pidlist: tests/fuzz/fuzz_pidlist.c base/pidlist.c
	@mkdir -p $(@D)
	$(call say,CLANG,$@)clang $(FUZZ_FLAGS) -o $@ $^

$(B)/fuzz/fuzz_procfs: tests/fuzz/fuzz_procfs.c monitor/sample/addr/maps.c monitor/sample/addr/modreg.c base/runtimes.c monitor/sample/safe/procfs.c
	@mkdir -p $(@D)
	$(call say,CLANG,$@)clang $(FUZZ_FLAGS) -o $@ $^ -lelf

$(B)/fuzz/fuzz_torque: tests/fuzz/fuzz_torque.c sched/lookup/lookup_torque.c
	@mkdir -p $(@D)
	$(call say,CLANG,$@)clang $(FUZZ_FLAGS) -o $@ $^

$(B)/fuzz/fuzz_pyframes: tests/fuzz/fuzz_pyframes.c monitor/sample/stop/pyframes.c monitor/sample/stop/pylayouts.c monitor/sample/addr/maps.c monitor/sample/addr/modreg.c base/runtimes.c \
		monitor/sample/safe/procfs.c
	@mkdir -p $(@D)
	$(call say,CLANG,$@)clang $(FUZZ_FLAGS) -o $@ $^ -lelf

# What a rank controls: its record, read into the report and the wait-for analysis.
RECORD_READER_SRC := monitor/sample/record/mpirecord.c monitor/sample/record/torchrecord.c monitor/sample/stop/record_area.c \
	base/runtimes.c monitor/sample/record/record_check.c base/ranges.c \
	monitor/sample/safe/textsafe.c monitor/sample/safe/watchdog.c monitor/sample/safe/fscreds.c \
	monitor/sample/safe/procfs.c monitor/sample/safe/identity.c monitor/sample/addr/symbolize.c \
	monitor/sample/addr/maps.c monitor/sample/addr/modreg.c monitor/sample/addr/demangle.c \
	monitor/sample/print/mpiname.c
$(B)/fuzz/fuzz_record: tests/fuzz/fuzz_record.c tests/fuzz/forged_areas.h $(RECORD_READER_SRC) $(GEN)/psrec_funcs.h
	@mkdir -p $(@D)
	$(call say,CLANG,$@)clang $(FUZZ_FLAGS) -I$(B)/gen -o $@ $(filter %.c,$^) -ldw -lelf -ljansson -lstdc++

$(B)/fuzz/fuzz_waitfor: tests/fuzz/fuzz_waitfor.c tests/fuzz/forged_areas.h $(RECORD_READER_SRC) \
		$(wildcard monitor/hang/*.c) $(GEN)/psrec_funcs.h
	@mkdir -p $(@D)
	$(call say,CLANG,$@)clang $(FUZZ_FLAGS) -I$(B)/gen -o $@ $(filter %.c,$^) -ldw -lelf -ljansson -lstdc++

$(B)/fuzz/fuzz_snapclass: tests/fuzz/fuzz_snapclass.c $(RECORD_READER_SRC) \
		$(wildcard monitor/hang/*.c) $(GEN)/psrec_funcs.h
	@mkdir -p $(@D)
	$(call say,CLANG,$@)clang $(FUZZ_FLAGS) -I$(B)/gen -o $@ $(filter %.c,$^) -ldw -lelf -ljansson -lstdc++

$(B)/fuzz/fuzz_torchrec: tests/fuzz/fuzz_torchrec.c $(RECORD_READER_SRC) \
		$(wildcard monitor/hang/*.c) $(GEN)/psrec_funcs.h
	@mkdir -p $(@D)
	$(call say,CLANG,$@)clang $(FUZZ_FLAGS) -I$(B)/gen -o $@ $(filter %.c,$^) -ldw -lelf -ljansson -lstdc++

$(B)/fuzz/fuzz_options: tests/fuzz/fuzz_options.c base/options.c $(STATS_SRC)
	@mkdir -p $(@D)
	$(call say,CLANG,$@)clang $(FUZZ_FLAGS) -o $@ $^ -lm

$(B)/fuzz/fuzz_demangle: tests/fuzz/fuzz_demangle.c monitor/sample/addr/demangle.c
	@mkdir -p $(@D)
	$(call say,CLANG,$@)clang $(FUZZ_FLAGS) -o $@ $^ -lstdc++

FUZZ_TARGETS := $(B)/fuzz/fuzz_demangle $(B)/fuzz/fuzz_options $(B)/fuzz/fuzz_trace $(B)/fuzz/fuzz_pidlist $(B)/fuzz/fuzz_procfs \
	$(B)/fuzz/fuzz_torque $(B)/fuzz/fuzz_pyframes $(B)/fuzz/fuzz_record $(B)/fuzz/fuzz_waitfor $(B)/fuzz/fuzz_snapclass \
	$(B)/fuzz/fuzz_torchrec
fuzz: $(FUZZ_TARGETS)
	@sh tests/fuzz/run.sh $(B)

# Measurements (numbers printed, never asserted): see bench/README.md. BENCH=full runs the
# longer campaign; the tables and plots go to bench/results/.
bench:
	$(Q)sh scripts/install-deps --bench
	$(Q)$(MAKE) --no-print-directory all $(B)/bench/sample_cost $(B)/bench/trace_eval \
		$(B)/bench/model_eval $(B)/bench/record_micro $(B)/bench/straggler_eval $(FIXTURES)
	$(Q)sh bench/run.sh $(B)

# Unit tests run twice: as built, and under AddressSanitizer/UBSan (CK_FORK=no so a sanitizer
# report aborts the run instead of hiding in a forked child's status).
# The dependency step: installs what is missing (as root, or through sudo), else says what to
# ask for. check and demo run it first, so a fresh machine needs nothing done by hand.
deps:
	$(Q)sh scripts/install-deps

unit: $(B)/tests/unit $(B)/tests/unit-asan
	$(B)/tests/unit
	CK_FORK=no ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(B)/tests/unit-asan

# What the command-line tests run. The bench programs are built here too, so a change cannot
# leave them broken unnoticed.
cli-build: $(PROGRAMS) $(RECORD_LIB) $(RECORD_PY) $(TASK_PROLOG) $(RECORD_MPICH) $(MPICH_APPS) $(B)/tests/tracegen $(FIXTURES) \
	$(B)/bench/sample_cost $(B)/bench/trace_eval $(B)/bench/model_eval $(B)/bench/record_micro \
	$(B)/bench/straggler_eval $(B)/bench/parastack-monitor-sim

# J: how many test files run at a time (they mostly wait: 3 fit 2 cores); J=1, one after another.
J ?= 3
cli: cli-build
	@J=$(J) sh tests/cli/run-all.sh $(B)

# Which integration tests depend on chance: each tests/cli file N times alone and N times beside
# a make -j2 (scripts/check-repeat); TESTS="run stack" narrows it to some files.
N ?= 5
check-repeat: cli-build
	@sh scripts/check-repeat -n $(N) $(B) $(TESTS)

# Prerequisites are built in order: deps before anything is compiled.
# Everything is built first, two compilers at a time; then the unit tests, the fuzzing and the
# command-line tests. (Fuzzing beside the cli files took a core from them for ten minutes and
# their confirmation windows misjudged starved ranks: it runs alone, about a minute.)
check: deps
	$(Q)$(MAKE) --no-print-directory -j2 $(B)/tests/unit $(B)/tests/unit-asan $(FUZZ_TARGETS) cli-build
	$(Q)$(MAKE) --no-print-directory unit fuzz cli

# The newcomer's first command: a real MPI job (the stencil solver, 4 ranks) whose rank 2 starts
# spinning in application code after 25 s; parastack detects the hang, reports it and ends it.
demo:
	$(Q)sh scripts/install-deps --demo
	$(Q)$(MAKE) --no-print-directory all $(B)/tests/apps/stencil
	@echo "== parastack run --confirm 15 -- mpirun -np 4 stencil   (rank 2 will loop forever after 25 s;"
	@echo "   the confirmation window is 15 s here, 60 s by default)"
	$(Q)if [ "$$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi; \
	PS_FAULT=spin PS_FAULT_RANK=2 PS_FAULT_AFTER=25 $(B)/parastack run --confirm 15 --report $(B)/demo-report.json \
		-- mpirun --oversubscribe -np 4 $(B)/tests/apps/stencil; \
	status=$$?; echo "== parastack run exited with $$status (86: it found the job hung and ended it);" \
		"JSON report: $(B)/demo-report.json"; [ $$status = 86 ]

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(PROGRAMS) $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(LIBDIR)/parastack
	install -m 755 $(RECORD_LIB) $(TASK_PROLOG) $(SPANK_PLUGIN) $(DESTDIR)$(LIBDIR)/parastack/
	$(if $(RECORD_MPICH),install -d $(DESTDIR)$(LIBDIR)/parastack/mpich)
	$(if $(RECORD_MPICH),install -m 755 $(RECORD_MPICH) $(DESTDIR)$(LIBDIR)/parastack/mpich/)
	install -d $(DESTDIR)$(LIBDIR)/parastack/python
	install -m 644 $(RECORD_PY) $(DESTDIR)$(LIBDIR)/parastack/python/
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -d $(DESTDIR)$(MANDIR)/man8
	install -m 644 man/*.8 $(DESTDIR)$(MANDIR)/man8/
	install -d $(DESTDIR)$(DATADIR)
	install -m 644 docs/report.schema.json $(DESTDIR)$(DATADIR)/
	$(if $(SPANK_PLUGIN),sed -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@DATADIR@|$(DATADIR)|g' sched/slurm/plugstack.conf.in >$(DESTDIR)$(DATADIR)/plugstack.conf)
	$(if $(SPANK_PLUGIN),chmod 644 $(DESTDIR)$(DATADIR)/plugstack.conf)
	install -d $(DESTDIR)$(MODULEDIR)/parastack
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
		-e 's|@MANDIR@|$(MANDIR)|g' launcher/modulefile.in >$(DESTDIR)$(MODULEDIR)/parastack/$(VERSION)
	chmod 644 $(DESTDIR)$(MODULEDIR)/parastack/$(VERSION)

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,parastack parastack-monitor parastack-sbatch parastack-qsub)
	rm -f $(DESTDIR)$(LIBDIR)/parastack/$(notdir $(RECORD_LIB)) $(DESTDIR)$(LIBDIR)/parastack/$(notdir $(TASK_PROLOG))
	rm -f $(DESTDIR)$(LIBDIR)/parastack/spank_parastack.so
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/parastack/python/,$(notdir $(RECORD_PY)))
	-rmdir $(DESTDIR)$(LIBDIR)/parastack/python 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/parastack/mpich/,libparastack-mpi.so parastack-task-prolog)
	-rmdir $(DESTDIR)$(LIBDIR)/parastack/mpich 2>/dev/null
	-rmdir $(DESTDIR)$(LIBDIR)/parastack 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard man/*.8)))
	rm -f $(DESTDIR)$(MODULEDIR)/parastack/$(VERSION) $(DESTDIR)$(DATADIR)/report.schema.json $(DESTDIR)$(DATADIR)/plugstack.conf
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null
	-rmdir $(DESTDIR)$(MODULEDIR)/parastack 2>/dev/null

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
