# SPDX-License-Identifier: BSD-3-Clause
# Installed as a centre installs it (issue 55): `make install` with the site's own directories
# (DESTDIR staging, LIBDIR=.../lib64, SYSCONFDIR), the stage then seen at / (bind mounts in a
# mount namespace of this test's own, so nothing outside it changes): the installed parastack
# finds its layer and the site's options, its man page and modulefile work; a build for MPICH's
# launcher (MPICC=mpicc.mpich MPIRUN=mpiexec.mpich) runs its monitors under hydra and watches an
# MPICH job; a build without Slurm (SLURM=no) builds and says what it cannot do. Each build is a
# copy of $BUILD made again with other settings (what they change is built again; the rest is
# kept), so $BUILD itself is never touched while other test files use it.
. "$(dirname "$0")/lib.sh"
STENCIL=$(cd "$BUILD" && pwd)/tests/apps/stencil
ABS_BUILD=$(cd "$BUILD" && pwd)

# build_as DIR MAKE-VARIABLES...: $BUILD copied to DIR (its dependency files pointed at DIR),
# then `make all` there with the variables. 0 when it built.
build_as() {
	dir=$1
	shift
	rm -rf "$dir"
	cp -a "$ABS_BUILD" "$dir" &&
		find "$dir" -name '*.d' -exec sed -i "s#\(^\| \)\($BUILD\|$ABS_BUILD\)/#\1$dir/#g" {} + &&
		timeout 600 make -s --no-print-directory B="$dir" "$@" all >"$dir.make.out" 2>&1
}

# --- set-up: `make demo` asks only for what the demo needs ----------------------------------------
run make -n --no-print-directory B="$BUILD" demo
expect_grep "make demo installs the demo's needs only" "install-deps --demo$" "$OUT"
if command -v apt-cache >/dev/null; then
	# What apt-get would bring in for them, every dependency followed: no daemon among it.
	deps=$(sh scripts/install-deps --demo --list)
	# shellcheck disable=SC2086
	closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances $deps 2>&1 | grep -E '^[a-z0-9]' | sort -u)
	expect_grep "the demo's packages resolve (apt-cache)" "^libslurm-dev$" "$closure"
	daemons=$(printf '%s\n' "$closure" | grep -xE 'slurmd|slurmctld|slurmdbd|munge' | tr '\n' ' ')
	if [ -z "$daemons" ]; then ok; else fail "make demo's packages bring in daemons: $daemons"; fi
else
	skip "the demo's package closure (no apt-cache: not Debian)"
fi

# --- an install into another prefix of the same layout builds nothing again -------------------
B1=$TMP/b
if build_as "$B1"; then ok; else fail "copy of the build: $(tail -3 "$B1.make.out")"; fi
before=$(stat -c %Y "$B1/parastack" "$B1/parastack-monitor" 2>/dev/null)
if make -s --no-print-directory B="$B1" PREFIX="$TMP/prefix" install >"$TMP/install1.out" 2>&1 &&
	[ -x "$TMP/prefix/bin/parastack" ] && [ -f "$TMP/prefix/share/modulefiles/parastack/0.1.0" ]; then ok
else fail "make install PREFIX=$TMP/prefix: $(tail -3 "$TMP/install1.out")"; fi
after=$(stat -c %Y "$B1/parastack" "$B1/parastack-monitor" 2>/dev/null)
if [ "$before" = "$after" ]; then ok; else fail "an install into another prefix of the same layout linked the programs again"; fi
run "$TMP/prefix/bin/parastack" --version
expect_grep "installed --version: the layer's place" "recording layer: *$TMP/prefix/lib/parastack$" "$OUT"

# --- staged: PREFIX=/opt/parastack LIBDIR=.../lib64 SYSCONFDIR=/etc/opt/parastack -------------
STAGE=$TMP/stage
if make -s --no-print-directory B="$B1" DESTDIR="$STAGE" PREFIX=/opt/parastack LIBDIR=/opt/parastack/lib64 \
	SYSCONFDIR=/etc/opt/parastack install >"$TMP/install2.out" 2>&1 &&
	[ -f "$STAGE/opt/parastack/lib64/parastack/libparastack-mpi.so" ] && [ ! -e "$STAGE/opt/parastack/lib" ]; then ok
else fail "staged install: $(tail -3 "$TMP/install2.out") $(cd "$STAGE" 2>/dev/null && find . | head -20)"; fi
mkdir -p "$STAGE/etc/opt/parastack"
printf '# the site: a shorter confirmation window\n--confirm 7\n' >"$STAGE/etc/opt/parastack/options"
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null || [ ! -d /etc/opt ]; then
	skip "the staged install seen at / (needs root and mount namespaces: unshare -m)"
else
	# Inside the namespace: /opt and /etc/opt are the stage's; the job is the demo's.
	cat >"$TMP/at-root.sh" <<EOF
mount --bind "$STAGE/opt" /opt && mount --bind "$STAGE/etc/opt" /etc/opt || exit 90
/opt/parastack/bin/parastack --version >"$TMP/version.out" 2>&1
MANPAGER=cat MANWIDTH=80 man -M /opt/parastack/share/man parastack >"$TMP/man.out" 2>&1
if [ -r /usr/share/lmod/lmod/init/sh ]; then
	( . /usr/share/lmod/lmod/init/sh && module use /opt/parastack/share/modulefiles &&
	  module load parastack && command -v parastack && echo "MANPATH=\$MANPATH" ) >"$TMP/module.out" 2>&1
fi
cd "$TMP" && PS_FAULT=spin PS_FAULT_RANK=2 PS_FAULT_AFTER=8 /opt/parastack/bin/parastack run \\
	--report "$TMP/staged.json" -- mpirun --oversubscribe -np 4 "$STENCIL"
EOF
	RUN_TIMEOUT=300 run unshare -m sh "$TMP/at-root.sh"
	expect_status "the installed parastack found the hang and ended the job" 86
	V=$(cat "$TMP/version.out")
	expect_grep "--version: the layer in LIBDIR" "recording layer: */opt/parastack/lib64/parastack$" "$V"
	expect_grep "--version: the site options in SYSCONFDIR" "site options: */etc/opt/parastack/options$" "$V"
	expect_grep "man -M /opt/parastack/share/man parastack opens" "^NAME" "$(cat "$TMP/man.out")"
	REPORT=$TMP/staged.json
	jreport "the installed layer in every rank" '[.ranks[].recording_layer] == [true, true, true, true]'
	jreport "the hung rank named" '.faulty_ranks == [2]'
	# The site's --confirm 7, not the default 60 s.
	jreport "the site options read from /etc/opt/parastack/options" '.confirmation.window_s >= 7 and .confirmation.window_s < 30'
	if [ -r /usr/share/lmod/lmod/init/sh ]; then
		M=$(cat "$TMP/module.out")
		expect_grep "module load parastack: parastack on PATH" "^/opt/parastack/bin/parastack$" "$M"
		expect_grep "module load parastack: its man pages" "MANPATH=/opt/parastack/share/man" "$M"
	else
		skip "module load parastack (Debian's lmod is not installed: scripts/install-deps --test)"
	fi
fi

# --- MPICC=mpicc.mpich MPIRUN=mpiexec.mpich: monitors under hydra, an MPICH job watched ---------
MSTENCIL=$ABS_BUILD/mpich/tests/apps/stencil
if ! command -v mpiexec.mpich >/dev/null || [ ! -x "$MSTENCIL" ]; then
	skip "the MPICH build (mpich is not installed: scripts/install-deps --test)"
else
	B2=$TMP/mpich
	if build_as "$B2" MPICC=mpicc.mpich MPIRUN=mpiexec.mpich; then ok; else fail "MPICH build: $(tail -3 "$B2.make.out")"; fi
	run "$B2/parastack" --version
	expect_grep "MPICH build: --version names MPICH" "^parastack [0-9.]* (built with MPICH [0-9]" "$OUT"
	expect_grep "MPICH build: --version names hydra" "monitors run by: *mpiexec.mpich (MPICH's hydra)" "$OUT"
	if ldd "$B2/parastack-monitor" | grep -q 'libmpich\.so'; then ok; else fail "MPICH build: the monitor is not linked with MPICH: $(ldd "$B2/parastack-monitor" | grep -i mpi)"; fi
	PARASTACK=$B2/parastack psrun_later mpich 240 PS_FAULT=spin PS_FAULT_RANK=1 PS_FAULT_AFTER=8 -- --confirm 5 \
		-- mpiexec.mpich -n 4 "$MSTENCIL"
	# The monitor's parent, while it runs: hydra's proxy.
	deadline=$(($(date +%s) + 120)) parent=""
	while [ -z "$parent" ] && [ "$(date +%s)" -lt "$deadline" ]; do
		for p in $(descendants "$LATER_mpich"); do
			[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$B2/parastack-monitor" ] &&
				parent=$(cat "/proc/$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null)/comm" 2>/dev/null)
		done
		[ -n "$parent" ] || sleep 0.2
	done
	expect_grep "MPICH build: the monitor started by hydra" "^hydra_pmi_proxy$" "$parent"
	psrun_collect mpich
	expect_status "MPICH build: the MPICH job's hang found and the job ended" 86
	jreport "MPICH build: the hung rank named" '.faulty_ranks == [1]'
	jreport "MPICH build: the MPICH layer in every rank" '[.ranks[].recording_layer] == [true, true, true, true]'
fi

# --- SLURM=no: no libslurm; what needs Slurm says so ------------------------------------------
B3=$TMP/noslurm
if build_as "$B3" SLURM=no; then ok; else fail "SLURM=no build: $(tail -3 "$B3.make.out")"; fi
expect_grep "SLURM=no: one line says what is left out" "building without libslurm" "$(cat "$B3.make.out")"
if ! ldd "$B3/parastack" "$B3/parastack-monitor" | grep -q libslurm; then ok; else fail "SLURM=no: linked with libslurm"; fi
run make -s --no-print-directory B="$B3" SLURM=no DESTDIR="$TMP/stage3" install
if [ "$RC" -eq 0 ] && [ -x "$TMP/stage3/usr/local/bin/parastack" ] && [ ! -e "$TMP/stage3/usr/local/bin/parastack-sbatch" ] &&
	[ ! -e "$TMP/stage3/usr/local/lib/parastack/spank_parastack.so" ]; then ok
else fail "SLURM=no install: rc $RC, $(cd "$TMP/stage3" 2>/dev/null && find . -type f | head) $ERR"; fi
run "$B3/parastack" --version
expect_grep "SLURM=no: --version says so" "^parastack [0-9.]* (built with .*, without Slurm)$" "$OUT"
run "$B3/parastack" attach --slurm-job 5
expect_error "SLURM=no: attach --slurm-job says why not" 1 "built without Slurm (make SLURM=no)"
finish
