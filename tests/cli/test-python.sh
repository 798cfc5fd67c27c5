# SPDX-License-Identifier: BSD-3-Clause
# Python ranks (issue 27): pure-Python mpi4py jobs (Debian's python3-mpi4py, tests/apps/
# pysolver.py) under `parastack run`. The report shows the frames the user wrote, read from the
# interpreter's memory at the same stop as the native unwind: a rank spinning in a Python
# function is named at its file:line with the function; a rank waiting in comm.recv() for a
# message nobody sends is named at its Python line in the diagnosis; a healthy job whose rank 0
# computes alone in Python for 20 s is not ended. No frame is nameless anywhere.
. "$(dirname "$0")/lib.sh"
SRC=tests/apps/pysolver.py
APP="/usr/bin/python3 $(pwd)/$SRC"

# pyrun NAME NP [ENV=VALUE...]: the job under parastack run (a 10-s confirmation window, or
# CONFIRM's), its report in $REPORT.
pyrun() {
	name=$1 np=$2
	shift 2
	xs=""
	for e in "$@"; do xs="$xs -x $e"; done
	# shellcheck disable=SC2086
	psrun "$name" 240 -- --seed 3 --confirm "${CONFIRM:-10}" -- mpirun --oversubscribe -np "$np" $xs $APP
}

pyrun spin 4 PS_FAULT=spin PS_FAULT_AFTER=15
expect_status "spin in Python: the job was ended" 86
jreport "spin in Python: rank 2, a computation hang" '.hang_type == "computation" and .faulty_ranks == [2]'
expect_grep "spin in Python: the rank's position is its Python function and line" "rank 2 (host [^ ]*, pid [0-9]*) stays in application code in every snapshot, at spin_forever ([^ ]*pysolver.py:$(line py-spin))" "$ERR"
jreport "spin in Python: its frames say Python" '[.ranks[] | select(.rank == 2) | .frames[] | select(.lang == "python") | .func][0:2] == ["spin_forever", "<module>"]'
jreport "spin in Python: the groups show the Python frames" '[.groups[] | select(.ranks == "2") | .path][0] | test("<module> \\(pysolver.py:[0-9]+\\) > spin_forever \\(pysolver.py:'"$(line py-spin)"'\\)$")'
jreport "no nameless frames: in the groups" '[.groups[].path | test(">  >|^ *>|> *$|\\?\\?")] | any | not'
jreport "no nameless frames: in the ranks' frames" '[.ranks[].frames[].func | select(. == "" or . == "??")] == []'
expect_grep "spin in Python: the tree keeps <module> whole" "^    *<module> (pysolver.py:[0-9]*) " "$ERR"
expect_agree "spin in Python: text and JSON"
expect_keys_documented "spin in Python: report keys" "$REPORT"

pyrun recv 4 PS_FAULT=recv PS_FAULT_RANK=1 PS_FAULT_AFTER=3
expect_status "comm.recv() of a message nobody sends: the job was ended" 86
jreport "comm.recv(): rank 1" '.hang_type == "communication" and .faulty_ranks == [1]'
expect_grep "comm.recv(): the waiting rank's Python line in the diagnosis" "rank 1 waits in MPI_Mprobe from rank 2 (tag 77) at pysolver.py:$(line py-recv) (Python, in <module>)" "$ERR"
expect_agree "comm.recv(): text and JSON"

# Issue 37's case: rank 1, at a line of its own, waits for a tag nobody uses from rank 2, which
# then waits for rank 1's halo (a cycle whose odd member is rank 1); the others wait in the
# collectives. After 6 s mpi4py's collectives of Python objects (a new tag each time, on a
# communicator of their own) may have filled the layer's table: matching on the world stays
# exact. The Isend inside the neighbours' comm.sendrecv is no "started and not completed".
pyrun oddrecv 4 PS_FAULT=oddrecv PS_FAULT_RANK=1 PS_FAULT_AFTER=6
jreport "odd receive in a cycle: rank 1 alone, likely or certain" '.faulty_ranks == [1] and (.culprits[0].evidence | IN("likely", "certain"))'
jreport "odd receive in a cycle: no request inside a sendrecv reported" '.wait_for.requests == []'
expect_grep "odd receive in a cycle: its Python line" "rank 1 waits in MPI_Mprobe from rank 2 (tag 999) at pysolver.py:$(line py-oddrecv) (Python, in <module>)" "$ERR"
expect_agree "odd receive in a cycle: text and JSON"

# Healthy: rank 0 computes alone in Python for 20 s while the others wait in comm.bcast, watched
# with the default confirmation window, as users run (a window shorter than the phase would
# end it: that is what --confirm asks for).
CONFIRM=60 pyrun alone 4 PS_FAULT=alone PS_FAULT_AFTER=8 PS_ALONE=20 PS_ITERS=4000
expect_status "rank 0 alone for 20 s: the job ends by itself" 0
jreport "rank 0 alone for 20 s: no hang" '.verdict == "none"'

# `parastack stack` on a Python rank: its Python frames, marked [Python].
if mpirun_start "$TMP/job.out" 2 -x PS_PRINT_PIDS=1 -x PS_FAULT=spin -x PS_FAULT_RANK=1 -x PS_FAULT_AFTER=1 $APP; then
	p1=$(rank_pid "$TMP/job.out" 1)
	deadline=$(($(date +%s) + 60))
	until run "$PARASTACK" stack "$p1"; printf '%s' "$OUT" | grep -q "spin_forever \[Python\]" || [ "$(date +%s)" -ge "$deadline" ]; do
		sleep 0.5
	done
	expect_grep "stack: the Python frames" "spin_forever \[Python\] at [^ ]*pysolver.py:$(line py-spin)" "$OUT"
	run "$PARASTACK" stack --json "$p1"
	expect_json "stack --json: lang python" '[.. | objects | select(.lang? == "python") | .func] | index("spin_forever") != null'
fi
stop_started

# An interpreter version parastack has no layout for (a copy of python3.11 named python3.99):
# native frames only, and one line saying so, in `parastack stack` and in the report.
cp /usr/bin/python3.11 "$TMP/python3.99"
start "$TMP/sleep.out" "$TMP/python3.99" -c "import time; time.sleep(60)"
PY99=$BG
deadline=$(($(date +%s) + 30))
until run "$PARASTACK" stack "$PY99"; printf '%s' "$OUT" | grep -q "clock_nanosleep\|select" || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.2; done
expect_grep "unknown version: one line in parastack stack" "^  Python: CPython 3.99: no frame layout for this version in parastack (it reads 3.8-3.13): native frames only$" "$OUT"
stop_started_one "$PY99"
APP="$TMP/python3.99 $(pwd)/$SRC"
pyrun v399 4 PS_FAULT=spin PS_FAULT_AFTER=3
jreport "unknown version: the hang still found, native frames only" '.faulty_ranks == [2] and ([.ranks[].frames[] | select(.lang == "python")] == []) and ([.ranks[].python.frames] | unique) == [false]'
expect_grep "unknown version: one line in the report" "^  Python: ranks 0-3: CPython 3.99: no frame layout" "$ERR"
finish
