#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run every tests/cli/test-*.sh with the build directory $1, J files at a time (default 3: the
# files mostly wait — for faults, confirmation windows, Slurm — so three share 2 cores), the
# longest first; print each file's SKIP lines (a failed file: all it printed) and its counts as
# it ends, then a table
# (file, passed, failed, skipped, seconds), the total as "N passed, N failed, N skipped" and the
# slowest files; exit non-zero if anything failed. A file that did not reach its own closing
# line counts as one failure, whatever it printed. A skip is never a pass: tests/cli/lib.sh's
# skip counts it apart (and fails it under CI=true).
# Each file gets its own TMPDIR, so that what one file checks is left in a temporary directory
# (a job script's copy, a shims directory) is never another file's.
#   J=N        files at a time (1: one after another, as before)
#   TESTS="run stack"   only these files
#   KEEP_TMP=1 every file's temporary directory kept (its path in the file's failures);
#   KEEP_TMP=failed only a failed file's (its jobs' and the test cluster's logs, to read)
BUILD=${1:-build}
export BUILD
J=${J:-3}
dir=$(dirname "$0")
case $J in '' | *[!0-9]* | 0) echo "run-all: J=$J: want a number of files at a time (1 or more)" >&2; exit 2 ;; esac
RES=$(mktemp -d "${TMPDIR:-/tmp}/parastack-runall.XXXXXX") || exit 1
RUNNING="" # "name:pid" of each file running now (pid: its timeout process)
trap 'for e in $RUNNING; do kill -TERM "${e#*:}" 2>/dev/null; done; rm -rf "$RES"' EXIT
trap 'exit 1' TERM INT HUP

# The files, longest first (seconds of the last full runs; a new file goes at the end until it is
# measured): a long file started last would end the run alone.
SLOW="test-run test-livesinmpi test-slurm test-spank test-record test-attach test-package test-hostile
test-scale test-culprits test-python test-interpreters test-install test-stack test-readme test-training test-mpich
test-torque test-launch test-coverage"
files=""
for n in $SLOW; do [ -f "$dir/$n.sh" ] && files="$files $n"; done
for t in "$dir"/test-*.sh; do
	n=$(basename "$t" .sh)
	case " $files " in *" $n "*) ;; *) files="$files $n" ;; esac
done
if [ -n "${TESTS:-}" ]; then
	want=""
	for n in $files; do case " $TESTS " in *" ${n#test-} "* | *" $n "*) want="$want $n" ;; esac; done
	files=$want
fi

# file_start NAME: the file in the background, its output and start time in $RES.
file_start() {
	tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/parastack-t.XXXXXX") && chmod 1777 "$tmpdir"
	date +%s >"$RES/$1.start"
	echo "$tmpdir" >"$RES/$1.tmpdir"
	TMPDIR=$tmpdir timeout 2400 sh "$dir/$1.sh" >"$RES/$1.out" 2>&1 &
	RUNNING="$RUNNING $1:$!"
}

# file_ended NAME PID: its counts (a line of the table in $RES/NAME.row), its FAIL and SKIP
# lines and its summary printed; 1 in $RES/NAME.bad if it failed.
file_ended() {
	wait "$2"
	rc=$?
	secs=$(($(date +%s) - $(cat "$RES/$1.start")))
	summary=$(tail -n 1 "$RES/$1.out")
	counts=$(printf '%s' "$summary" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}$/\1 \2 \4/p')
	if [ -z "$counts" ]; then
		p=0 f=1 s=0
		cat "$RES/$1.out"
		echo "$1: did not finish (exit $rc)"
	else
		set -- "$1" $counts
		p=$2 f=$3 s=${4:-0}
		# A failed file's whole output (a FAIL line may go on, as a diff does); else its skips.
		if [ "$f" -gt 0 ] || [ "$rc" -ne 0 ]; then grep -v '^[0-9]* passed, ' "$RES/$1.out"; else grep '^SKIP' "$RES/$1.out"; fi
		echo "$1: $summary (${secs} s)"
	fi
	[ "$rc" -eq 0 ] || : >"$RES/$1.bad"
	tmp=$(cat "$RES/$1.tmpdir")
	case ${KEEP_TMP:-} in
	'') rm -rf "$tmp" ;;
	failed) if [ "$f" -gt 0 ] || [ "$rc" -ne 0 ]; then echo "$1: kept $tmp"; else rm -rf "$tmp"; fi ;;
	esac
	printf '%-22s %6d %6d %6d %6d\n' "$1" "$p" "$f" "$s" "$secs" >"$RES/$1.row"
}

# reap_ended: every running file that has ended is reported and forgotten.
reap_ended() {
	still=""
	for e in $RUNNING; do
		st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/${e#*:}/status" 2>/dev/null)
		if [ -z "$st" ] || [ "$st" = Z ]; then file_ended "${e%%:*}" "${e#*:}"; else still="$still $e"; fi
	done
	RUNNING=$still
}

for n in $files; do
	while [ "$(echo $RUNNING | wc -w)" -ge "$J" ]; do
		sleep 0.5
		reap_ended
	done
	file_start "$n"
done
while [ -n "$(echo $RUNNING)" ]; do
	sleep 0.5
	reap_ended
done

table=$(cat "$RES"/*.row 2>/dev/null | sort)
printf '%-22s %6s %6s %6s %6s\n' file passed failed skipped seconds
printf '%s\n' "$table"
echo "slowest: $(printf '%s\n' "$table" | sort -k5 -n -r | head -n 5 | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $1, $5 }')"
echo "cli: $(printf '%s\n' "$table" | awk '{ p += $2; f += $3; s += $4 } END { printf "%d passed, %d failed, %d skipped", p, f, s }')"
! ls "$RES"/*.bad >/dev/null 2>&1
