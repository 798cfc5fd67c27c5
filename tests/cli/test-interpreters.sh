# SPDX-License-Identifier: BSD-3-Clause
# Python ranks from the interpreters users run (issue 66): every CPython 3.8-3.13 the machine has
# (pyenv's, built with a shared libpython as conda's, Spack's and most modules' are; Debian's
# python3.11, static). For each:
#   - parastack's layout table (monitor/sample/stop/pylayouts.c) equals the offsets compiled from
#     that interpreter's own headers (tests/tools/pyoffsets.c), field by field;
#   - `parastack stack PID` of a script looping in inner() called from outer()
#     (tests/apps/pyloop.py) shows both at their lines, and --json has them as Python frames.
# Then an MPI program in Python without mpi4py (MPI through ctypes, tests/apps/ctypes_ring.py)
# under `parastack run -- mpirun` on pyenv's 3.12 and 3.13: rank 2 spinning in its own function
# 20 s in is named at that function's line; a healthy run is untouched; the same from a venv
# through a `#!/usr/bin/env python3` script. A version the machine
# lacks is a SKIP (a failure under CI=true). Every run has a hard timeout.
. "$(dirname "$0")/lib.sh"
PYENV=${PYENV_ROOT:-$HOME/.pyenv}/versions
LOOP=$(pwd)/tests/apps/pyloop.py
RING=$(pwd)/tests/apps/ctypes_ring.py
INNER=$(grep -n "# site: pyloop-inner" "$LOOP" | cut -d: -f1)
OUTER=$(grep -n "# site: pyloop-outer\$" "$LOOP" | cut -d: -f1)
SPIN=$(grep -n "# site: ctypes-spin\$" "$RING" | cut -d: -f1)

# interpreter MINOR: pyenv's newest 3.MINOR (its bin/python3.MINOR), or nothing.
interpreter() {
	for d in $(ls -d "$PYENV"/3."$1".* 2>/dev/null | sort -t. -k3 -n -r); do
		[ -x "$d/bin/python3.$1" ] && { echo "$d/bin/python3.$1"; return; }
	done
}

# headers PY: the directory of PY's Python.h (its internal/ beside it).
headers() {
	"$1" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null
}

# layout_matches NAME PY MINOR: parastack's table for 3.MINOR is what PY's headers say.
layout_matches() {
	inc=$(headers "$2")
	if [ ! -f "$inc/Python.h" ] || [ ! -d "$inc/internal" ]; then
		skip "$1: no internal headers of $2 (in $inc)"
		return
	fi
	if ! cc -I"$inc" -I"$inc/internal" -o "$TMP/pyoffsets" tests/tools/pyoffsets.c 2>"$TMP/cc.err"; then
		fail "$1: tests/tools/pyoffsets.c does not build against $inc: $(head -3 "$TMP/cc.err")"
		return
	fi
	"$TMP/pyoffsets" | sort >"$TMP/headers.txt"
	"$BUILD/tests/pylayout" "$3" | sort >"$TMP/table.txt"
	if diff "$TMP/headers.txt" "$TMP/table.txt" >"$TMP/layout.diff"; then ok; else
		fail "$1: the table differs from $inc (< headers, > table): $(tr '\n' ' ' <"$TMP/layout.diff")"; fi
}

# frames_read NAME PY: parastack stack of PY running pyloop.py shows inner and outer at their
# lines (polled while the interpreter starts, with a deadline); --json has them as frames.
frames_read() {
	start "$TMP/loop.out" "$2" "$LOOP"
	LOOPPID=$BG
	deadline=$(($(date +%s) + 60))
	# Until the script runs its loop: at start-up the frames are site.py's and importlib's.
	until run "$PARASTACK" stack "$LOOPPID"; printf '%s' "$OUT" | grep -q "#0  *inner \[Python\]" ||
		[ "$(date +%s)" -ge "$deadline" ]; do sleep 0.3; done
	expect_grep "$1: inner at its line" "#0  *inner \[Python\] at $LOOP:$INNER\$" "$OUT"
	expect_grep "$1: outer, its caller, at its line" "#1  *outer \[Python\] at $LOOP:$OUTER\$" "$OUT"
	if printf '%s' "$OUT" | grep -q "no frame layout\|was not found"; then fail "$1: $OUT"; else ok; fi
	run "$PARASTACK" stack --json "$LOOPPID"
	expect_json "$1: --json has inner and outer as Python frames" \
		'[.. | objects | select(.lang? == "python") | "\(.func):\(.line)"][0:2] == ["inner:'"$INNER"'", "outer:'"$OUTER"'"]'
	stop_started_one "$LOOPPID"
}

for minor in 8 9 10 11 12 13; do
	py=$(interpreter "$minor")
	if [ -z "$py" ]; then
		skip "CPython 3.$minor: not on this machine (pyenv's $PYENV/3.$minor.*)"
		continue
	fi
	layout_matches "CPython 3.$minor ($py)" "$py" "$minor"
	frames_read "CPython 3.$minor ($py)" "$py"
done
if [ -x /usr/bin/python3.11 ]; then
	layout_matches "Debian's python3.11" /usr/bin/python3.11 11
	frames_read "Debian's python3.11" /usr/bin/python3.11
else
	skip "Debian's python3.11: not installed"
fi

# MPI through ctypes on pyenv's 3.12 and 3.13 (no mpi4py is built for them).
for minor in 12 13; do
	py=$(interpreter "$minor")
	if [ -z "$py" ]; then
		skip "ctypes ring on CPython 3.$minor: not on this machine"
		continue
	fi
	psrun "ring3$minor" 200 -- --seed 3 --confirm 10 -- mpirun --oversubscribe -np 4 -x PS_FAULT=spin \
		-x PS_FAULT_AFTER=20 -x PS_STEPS=1000000 "$py" "$RING"
	expect_status "ctypes ring, CPython 3.$minor, rank 2 spins: the job was ended" 86
	jreport "ctypes ring, CPython 3.$minor: rank 2, a computation hang" '.hang_type == "computation" and .faulty_ranks == [2]'
	expect_grep "ctypes ring, CPython 3.$minor: rank 2 at its Python function and line" \
		"rank 2 (host [^ ]*, pid [0-9]*) stays in application code in every snapshot, at spin_forever ([^ ]*ctypes_ring.py:$SPIN)" "$ERR"
	jreport "ctypes ring, CPython 3.$minor: the waiting ranks' Python call sites" \
		'[.groups[] | select(.ranks != "2") | .path | test("^<module> \\(ctypes_ring.py:[0-9]+\\) > main \\(ctypes_ring.py:[0-9]+\\) > step \\(ctypes_ring.py:[0-9]+\\)")] | all'
	expect_agree "ctypes ring, CPython 3.$minor: text and JSON"
	psrun "ringok3$minor" 200 -- --seed 3 --confirm 10 -- mpirun --oversubscribe -np 4 -x PS_STEPS=300 "$py" "$RING"
	expect_status "ctypes ring, CPython 3.$minor, healthy: ran to its end" 0
	jreport "ctypes ring, CPython 3.$minor, healthy: no hang" '.verdict == "none"'
done
# A venv on pyenv's 3.12 and a script that starts `#!/usr/bin/env python3` (the interpreter
# found through PATH, and `env` exec'ing it after the rank was found): the same report.
py=$(interpreter 12)
if [ -n "$py" ] && "$py" -m venv --without-pip "$TMP/venv" 2>"$TMP/venv.err"; then
	{ printf '#!/usr/bin/env python3\n'; cat "$RING"; } >"$TMP/ring-script"
	chmod +x "$TMP/ring-script"
	VSPIN=$(grep -n "# site: ctypes-spin\$" "$TMP/ring-script" | cut -d: -f1)
	psrun ringvenv 200 -- --seed 3 --confirm 10 -- mpirun --oversubscribe -np 4 -x PATH="$TMP/venv/bin:$PATH" \
		-x PS_FAULT=spin -x PS_FAULT_AFTER=20 -x PS_STEPS=1000000 "$TMP/ring-script"
	expect_status "ctypes ring from a venv through env: the job was ended" 86
	jreport "ctypes ring from a venv through env: rank 2, every rank read as Python 3.12" \
		'.faulty_ranks == [2] and ([.ranks[].python.minor] | unique) == [12] and ([.ranks[].python.frames] | unique) == [true]'
	expect_grep "ctypes ring from a venv through env: rank 2 at its line" \
		"stays in application code in every snapshot, at spin_forever ([^ ]*ring-script:$VSPIN)" "$ERR"
else
	skip "a venv on CPython 3.12: ${py:-no 3.12 on this machine} $(cat "$TMP/venv.err" 2>/dev/null)"
fi
finish
