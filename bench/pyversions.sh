# SPDX-License-Identifier: BSD-3-Clause
# pyversions.sh — the sample's cost for a Python rank on every CPython parastack reads (issue 66):
# pyenv's 3.8-3.13 (shared libpython) and Debian's python3.11, each spinning 30 Python calls deep,
# beside a C rank (the call chain, ~43 frames) in the same run: the median time a sampled thread
# is stopped with the Python walk, without it (native frames only, the same target, samples
# alternating), and the C rank's. PYV_RUNS runs (default 5), PYV_SAMPLES samples each (500); the
# table gives the median over the runs of each run's median, and the ratios against the C rank
# and against Debian's 3.11 (what parastack read before issue 66). Writes results/python-versions.md.
. "$(dirname "$0")/lib.sh"
RUNS=${PYV_RUNS:-5}
SAMPLES=${PYV_SAMPLES:-500}
PYENV=${PYENV_ROOT:-$HOME/.pyenv}/versions
PYS=""
for minor in 8 9 10 11 12 13; do
	d=$(ls -d "$PYENV"/3."$minor".* 2>/dev/null | sort -t. -k3 -n -r | head -n 1)
	[ -n "$d" ] && [ -x "$d/bin/python3.$minor" ] && PYS="$PYS $d/bin/python3.$minor"
done
[ -x /usr/bin/python3.11 ] && PYS="$PYS /usr/bin/python3.11"
[ -n "$PYS" ] || { say "no CPython 3.8-3.13 found"; exit 0; }

: >"$WORK/rows.tsv"
for k in $(seq 1 "$RUNS"); do
	say "run $k of $RUNS:$PYS"
	# shellcheck disable=SC2086
	SAMPLE_COST_PYTHONS=1 "$BUILD/bench/sample_cost" "$BUILD/tests/callchain-O0" "$SAMPLES" $PYS >"$WORK/run.md" 2>&1
	awk -v run="$k" -F'|' '
		/C rank \(call chain/ { gsub(/ /, "", $5); print run "\tC\t-\t" $5 }
		/^\| \/.*python/ { py = $2; gsub(/ /, "", py) }
		/native frames only/ { gsub(/ /, "", $5); print run "\t" py "\tnative\t" $5 }
		/with the Python walk/ { gsub(/ /, "", $5); n = $2; sub(/.*\(/, "", n); sub(/ Python.*/, "", n);
			print run "\t" py "\twalk\t" $5 "\t" n }' "$WORK/run.md" >>"$WORK/rows.tsv"
done

# median of the column for (interpreter, kind) over the runs
med() {
	awk -F'\t' -v p="$1" -v k="$2" '$2 == p && $3 == k && $4 != "n/a" { print $4 }' "$WORK/rows.tsv" | stats | awk '{ print $4 }'
}

{
	header "The sample's cost for a Python rank, per CPython version"
	cat <<EOF
Each interpreter runs a script spinning 30 Python calls deep; \`bench/sample_cost\` samples it
$SAMPLES times a run, alternating the Python walk on and off on the same target, after sampling
a C rank (tests/fixtures/callchain.c spinning, one thread) in the same run. Medians of $RUNS
runs' medians, in microseconds a sampled thread is stopped (PTRACE_INTERRUPT to PTRACE_DETACH).
Reproduce: \`sh bench/pyversions.sh\` (PYV_RUNS, PYV_SAMPLES).

EOF
	c=$(med C -)
	base=$(med /usr/bin/python3.11 walk)
	echo "C rank: **$c us** (median of $RUNS runs)."
	echo
	echo "| interpreter | Python frames | stopped, with the walk (us) | native frames only (us) | walk / C rank | walk / Debian 3.11's |"
	echo "|---|---|---|---|---|---|"
	for py in $PYS; do
		w=$(med "$py" walk) n=$(med "$py" native)
		frames=$(awk -F'\t' -v p="$py" '$2 == p && $3 == "walk" { print $5; exit }' "$WORK/rows.tsv")
		echo "| $py | ${frames:-?} | $w | $n | $(awk -v a="$w" -v b="$c" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }') | $(awk -v a="$w" -v b="$base" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }') |"
	done
	echo
	echo "Every run's rows (run, interpreter, kind, median us, Python frames):"
	echo
	echo '```'
	cat "$WORK/rows.tsv"
	echo '```'
} >"$RESULTS/python-versions.md"
say "wrote $RESULTS/python-versions.md"
