# SPDX-License-Identifier: BSD-3-Clause
# The Debian packages (issue 55): `dpkg-buildpackage -b -us -uc` in a copy of the sources builds
# parastack and, split, parastack-slurm-plugin; lintian at its default level finds no error and
# no warning; `apt-get install ./parastack_*.deb` installs them on this machine, and the
# installed /usr/bin/parastack runs the demo's job and finds its hang, with the layer from
# /usr/lib/<triplet>/parastack in every rank. The packages are removed again at the end (only
# those this test installed: it does nothing where a parastack package was already installed).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STENCIL=$(cd "$BUILD" && pwd)/tests/apps/stencil

if [ "$(id -u)" -ne 0 ]; then
	skip "the Debian packages (installing them needs root)"
	finish
	exit
fi
if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null || ! command -v lintian >/dev/null; then
	fail "dpkg-buildpackage, debhelper or lintian is not installed (scripts/install-deps --test)"
	finish
	exit 1
fi
if dpkg-query -W -f='${Status}' parastack 2>/dev/null | grep -q " installed"; then
	skip "the Debian packages (a parastack package is installed here already; it is left alone)"
	finish
	exit
fi
INSTALLED=""
remove_ours() {
	[ -n "$INSTALLED" ] && apt-get -o DPkg::Lock::Timeout=300 purge -y -q $INSTALLED >/dev/null 2>&1
	INSTALLED=""
}
trap 'remove_ours; stop_started; tmp_remove' EXIT

# The sources as a clone has them: tracked files and new ones not ignored (no build tree).
SRC=$TMP/deb/parastack-0.1.0
mkdir -p "$SRC"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$ROOT" && git ls-files --cached --others --exclude-standard -z | xargs -0 tar cf - --no-recursion) |
		(cd "$SRC" && tar xf -)
else
	(cd "$ROOT" && tar cf - --exclude=./build --exclude='./build*' .) | (cd "$SRC" && tar xf -)
fi
RUN_TIMEOUT=1200 run sh -c "cd '$SRC' && DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -b -us -uc"
expect_status "dpkg-buildpackage -b -us -uc" 0
[ "$RC" -eq 0 ] || printf '%s\n' "$ERR" | tail -n 20 >&2
DEB=$(ls "$TMP"/deb/parastack_*_*.deb 2>/dev/null | head -n 1)
PLUGIN=$(ls "$TMP"/deb/parastack-slurm-plugin_*_*.deb 2>/dev/null | head -n 1)
if [ -n "$DEB" ] && [ -n "$PLUGIN" ]; then ok; else fail "no packages built: $(ls "$TMP/deb")"; fi
if dpkg -c "$PLUGIN" 2>/dev/null | grep -q 'parastack/spank_parastack\.so$' &&
	! dpkg -c "$DEB" | grep -q spank_parastack; then ok; else fail "the SPANK plugin is not in its own package"; fi

RUN_TIMEOUT=600 run lintian --display-info "$TMP"/deb/parastack_*.changes
tags=$(printf '%s\n' "$OUT" | grep -E '^[EW]: ')
if [ "$RC" -eq 0 ] && [ -z "$tags" ]; then ok; else fail "lintian: exit $RC: $tags $ERR"; fi
# The hardening tags are lintian's informational ones: none, the layer's builds included.
hardening=$(printf '%s\n' "$OUT" | grep -E 'hardening-')
if [ -z "$hardening" ]; then ok; else fail "lintian: hardening tags: $hardening"; fi

# Another apt or dpkg at work on the machine (an upgrade, another installer) is waited for.
RUN_TIMEOUT=600 run env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q "$DEB" "$PLUGIN"
expect_status "apt-get install ./parastack_*.deb ./parastack-slurm-plugin_*.deb" 0
INSTALLED="parastack-slurm-plugin parastack"
run /usr/bin/parastack --version
expect_grep "installed: the layer's place" "recording layer: */usr/lib/[a-z0-9_-]*/parastack$" "$OUT"
if dpkg -L parastack-slurm-plugin | grep -q '/usr/lib/[a-z0-9_-]*/parastack/spank_parastack\.so$'; then ok; else fail "the plugin package does not hold the plugin"; fi
# torch.distributed's collective record beside the layer, where the layer looks (issue 67).
if dpkg -L parastack | grep -q '/usr/lib/[a-z0-9_-]*/parastack/python/sitecustomize\.py$'; then ok; else fail "the package does not hold python/sitecustomize.py beside the layer"; fi

# The modulefile under Debian's Lmod as a login shell sets it up (/etc/profile.d/lmod.sh: the
# paths of /etc/lmod/modulespath), after an MPI module that put its own bin first: parastack's
# module lists, loads, and keeps that MPI's bin ahead of /usr/bin.
if dpkg -L parastack | grep -q '^/etc/lmod/modules/parastack/'; then ok; else fail "the modulefile is not in /etc/lmod/modules"; fi
if [ -r /etc/profile.d/lmod.sh ]; then
	mkdir -p "$TMP/mods/mpi" "$TMP/openmpi-5/bin"
	printf '#%%Module1.0\nprepend-path PATH %s\n' "$TMP/openmpi-5/bin" >"$TMP/mods/mpi/5"
	RUN_TIMEOUT=60 run env -i HOME="$TMP" PATH=/usr/bin:/bin sh -c ". /etc/profile.d/lmod.sh &&
		module avail 2>&1 | tr -s ' ' '\n' | grep -x 'parastack/[0-9.]*'; module use '$TMP/mods' && module load mpi/5 &&
		module load parastack && echo \"PATH=\$PATH\" && command -v parastack"
	expect_grep "module avail lists parastack with Lmod's default paths" "^parastack/0.1.0" "$OUT"
	expect_grep "module load parastack: the MPI module's bin still first" "^PATH=$TMP/openmpi-5/bin:/usr/bin:/bin$" "$OUT"
	expect_grep "module load parastack: parastack found" "^/usr/bin/parastack$" "$OUT"
else
	skip "the modulefile under Lmod (Debian's lmod is not installed: scripts/install-deps --test)"
fi

# The demo's job under the installed program.
PARASTACK=/usr/bin/parastack psrun demo 240 PS_FAULT=spin PS_FAULT_RANK=2 PS_FAULT_AFTER=8 -- --confirm 5 \
	-- mpirun --oversubscribe -np 4 "$STENCIL"
expect_status "the installed parastack found the hang and ended the job" 86
jreport "the hung rank named" '.faulty_ranks == [2]'
jreport "the packaged layer in every rank" '[.ranks[].recording_layer] == [true, true, true, true]'

run env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 purge -y -q parastack-slurm-plugin parastack
expect_status "apt-get purge: the packages removed" 0
INSTALLED=""
if [ ! -e /usr/bin/parastack ]; then ok; else fail "/usr/bin/parastack is left after apt-get purge"; fi
# Purged, not removed: the modulefile in /etc is a conffile, and a removed package's would stay
# for every later `module avail` on this machine.
if [ ! -e /etc/lmod/modules/parastack ]; then ok; else fail "/etc/lmod/modules/parastack is left after apt-get purge"; fi
finish
