# SPDX-License-Identifier: BSD-3-Clause
# Command-line tests of `parastack plot`: pictures from generated and monitor-style traces, the
# model's view as a table (the recorded checks honoured), and a one-line error with a non-zero
# status for every kind of bad input.
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/tests/tracegen

$GEN short --minutes 12 --seed 4 --hang-at 600 >"$TMP/hang.trace"
$GEN short --minutes 12 --seed 3 >"$TMP/healthy.trace"

run "$PARASTACK" plot -o "$TMP/hang.svg" --title "stencil, 4 ranks" "$TMP/hang.trace"
expect_status "svg" 0
expect_grep "summary names the picture" "plot: $TMP/hang.svg (" "$OUT"
expect_grep "summary: verdict after the hang" "hang verdict at 60[0-9]\.[0-9] s" "$OUT"
# Where the hang began: the last sample that still showed the job computing, just before 600 s.
expect_grep "summary: last progress just before the hang" "last progress seen at 59[0-9]\.[0-9] s;" "$OUT"
svg=$(cat "$TMP/hang.svg")
expect_grep "an SVG document" "<svg" "$svg"
expect_grep "the title" "stencil, 4 ranks" "$svg"
expect_grep "the verdict marked" "hang verdict (alpha 0.001)" "$svg"
expect_grep "the threshold in the key, in users' words" "threshold: suspicious when S is at or below it" "$svg"
expect_grep "the verdict's samples in users' words" "too many suspicious samples in a row: hang verdict" "$svg"
expect_grep "the interval panel" "interval I (ms)" "$svg"

run "$PARASTACK" plot -o "$TMP/hang.png" "$TMP/hang.trace"
expect_status "png" 0
expect_grep "a PNG file" "^PNG$" "$(dd if="$TMP/hang.png" bs=1 skip=1 count=3 2>/dev/null)"
# The clock time of t = 0 on the time axis, when the trace recorded it.
{ echo "# t_ms 0 is unix time 1795492934.5"; cat "$TMP/hang.trace"; } >"$TMP/clock.trace"
run "$PARASTACK" plot -o "$TMP/clock.svg" "$TMP/clock.trace"
expect_grep "wall-clock time on the axis" "0 s is 2026-11-24 04:02:14 UTC" "$(cat "$TMP/clock.svg")"
expect_grep "the last progress marked, with its clock time" "last progress seen at 04:1[12]:[0-9][0-9] UTC: the hang began after it" "$(cat "$TMP/clock.svg")"
run "$PARASTACK" plot -o "$TMP/healthy.svg" "$TMP/healthy.trace"
if printf '%s' "$OUT$(cat "$TMP/healthy.svg")" | grep -q "last progress"; then fail "a healthy trace has a last progress mark"; else ok; fi
# A trace of two samples still makes a picture (no gnuplot error, no broken file).
printf '0 1 2\n400 1 2\n' >"$TMP/two.trace"
run "$PARASTACK" plot -o "$TMP/two.svg" "$TMP/two.trace"
expect_status "two samples: drawn" 0
expect_grep "two samples: an SVG document" "</svg>" "$(cat "$TMP/two.svg" 2>/dev/null)"

# Default name: the trace's without .trace, plus .svg, in the current directory.
mkdir "$TMP/cwd"
abs=$(cd "$(dirname "$PARASTACK")" && pwd)/parastack
run sh -c "cd '$TMP/cwd' && '$abs' plot ../healthy.trace"
expect_status "default output" 0
if [ -s "$TMP/cwd/healthy.svg" ]; then ok; else fail "default output: no $TMP/cwd/healthy.svg"; fi
expect_grep "healthy: no verdict" "no hang verdict" "$OUT"

# Names gnuplot would run as a shell command ('|' first) are only ever file names: from the
# trace's name (the default output) or from -o.
cp "$TMP/healthy.trace" "$TMP/cwd/|touch pwned;.trace"
run sh -c "cd '$TMP/cwd' && '$abs' plot '|touch pwned;.trace'"
expect_status "a trace named like a pipe" 0
if [ ! -e "$TMP/cwd/pwned" ] && [ -s "$TMP/cwd/|touch pwned;.svg" ]; then ok; else fail "plot ran a shell command from the trace's name"; fi
run sh -c "cd '$TMP/cwd' && '$abs' plot -o '|touch pwned2.svg' ../healthy.trace"
expect_status "-o named like a pipe" 0
if [ ! -e "$TMP/cwd/pwned2.svg" ] && [ -s "$TMP/cwd/|touch pwned2.svg" ]; then ok; else fail "plot ran a shell command from -o"; fi
# Quotes and gnuplot's system() in a title or a trace's name are text, never gnuplot commands.
cp "$TMP/healthy.trace" "$TMP/cwd/q'\"\";system(\"touch pwned4\");\".trace"
run sh -c "cd '$TMP/cwd' && '$abs' plot --title '\"; system(\"touch pwned3\"); \"' ./q*system*.trace"
expect_status "quotes and system() in a title and a trace's name" 0
if [ ! -e "$TMP/cwd/pwned3" ] && [ ! -e "$TMP/cwd/pwned4" ] && ls "$TMP/cwd/" | grep -q "system.*svg"; then ok; else
	fail "plot ran gnuplot's system() from a title or a name: $(ls "$TMP/cwd")"; fi
# The picture replaces a symbolic link, never writes through it.
echo keep >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/link.svg"
run "$PARASTACK" plot -o "$TMP/link.svg" "$TMP/healthy.trace"
if [ "$(cat "$TMP/victim")" = keep ] && [ ! -L "$TMP/link.svg" ]; then ok; else fail "plot wrote through a symbolic link"; fi

# --data: the model's view, one row per sample taken; a dense trace is sampled like replay.
run "$PARASTACK" plot --data "$TMP/hang.trace"
expect_status "data" 0
rows=$(printf '%s\n' "$OUT" | grep -vc '^#')
if [ "$rows" -gt 1000 ] && [ "$rows" -lt 3000 ]; then ok; else fail "data: $rows rows, want the ~1800 samples of 12 min at 400 ms"; fi
first=$(printf '%s\n' "$OUT" | awk '$5 == "hang" { print $1; exit }')
run "$PARASTACK" replay --json "$TMP/hang.trace"
expect_json "data's first hang is replay's verdict" ".detected_at_ms / 1000 | . * 1000 | round / 1000 == $first"
run "$PARASTACK" plot --data --seed 2 "$TMP/hang.trace"
other=$(printf '%s\n' "$OUT" | awk '$5 == "hang" { print $1; exit }')
if [ "$other" != "$first" ]; then ok; else fail "--seed changes the sampling of a dense trace"; fi

# A monitor-recorded trace (#! model): every point is a sample, with the recorded settings;
# a recorded slowdown dismisses the suspicion run exactly as the live monitor did.
{ echo "#! model alpha=0.01 interval=400 max_interval=30000"; awk 'NR % 40 == 2' "$TMP/hang.trace"; } >"$TMP/live.trace"
run "$PARASTACK" plot --data "$TMP/live.trace"
pts=$(grep -vc '^#' "$TMP/live.trace")
rows=$(printf '%s\n' "$OUT" | grep -vc '^#')
if [ "$rows" -eq "$pts" ]; then ok; else fail "live trace: $rows rows for $pts points"; fi
verdict=$(printf '%s\n' "$OUT" | awk '$5 == "hang" { print $1 * 1000; exit }')
if [ -n "$verdict" ]; then ok; else fail "live trace: no hang verdict at alpha 0.01"; fi
after=$(printf '%s\n' "$OUT" | awk -v v="$verdict" '$1 * 1000 > v { print $5; exit }')
expect_grep "without a check the run stays a hang" "^hang$" "$after"
{ cat "$TMP/live.trace"; } | awk -v v="$verdict" '{ print } !done && $1 == v { print "#! slowdown " v; done = 1 }' >"$TMP/slow.trace"
run "$PARASTACK" plot --data "$TMP/slow.trace"
after=$(printf '%s\n' "$OUT" | awk -v v="$verdict" '$1 * 1000 > v { print $5; exit }')
expect_grep "a recorded slowdown dismisses the run" "^suspicion$" "$after"
run "$PARASTACK" plot -o "$TMP/slow.svg" "$TMP/slow.trace"
expect_grep "the check is counted" "1 recorded check(s)" "$OUT"
expect_grep "the check is drawn" "moved: dismissed" "$(cat "$TMP/slow.svg")"
run "$PARASTACK" plot --data --alpha 1e-12 "$TMP/live.trace"
strict=$(printf '%s\n' "$OUT" | awk '$5 == "hang" { print $1 * 1000; exit }')
if awk -v a="$strict" -v b="$verdict" 'BEGIN { exit !(a > b) }'; then ok; else fail "--alpha 1e-12 overrides the recorded 0.01: first hang at $strict, not after $verdict"; fi

# Bad input: one line, non-zero status.
run "$PARASTACK" plot
expect_error "no trace" 2 "expected exactly one TRACE"
run "$PARASTACK" plot "$TMP/none.trace"
expect_error "missing trace" 1 "none.trace: cannot open"
run "$PARASTACK" plot -o "$TMP/x.pdf" "$TMP/hang.trace"
expect_error "unknown format" 2 "must end in .svg or .png"
run "$PARASTACK" plot -o "$TMP/no/such/dir/x.svg" "$TMP/hang.trace"
expect_error "unwritable output" 2 "cannot write in $TMP/no/such/dir"
printf '0 1 4\n400 x 4\n' >"$TMP/bad.trace"
run "$PARASTACK" plot "$TMP/bad.trace"
expect_error "malformed sample" 1 "bad.trace: line 2: expected S"
printf '#! model alpha=2 interval=400 max_interval=30000\n0 1 4\n' >"$TMP/badmodel.trace"
run "$PARASTACK" plot "$TMP/badmodel.trace"
expect_error "malformed model line" 1 "line 1: expected \"#! model alpha=A"
printf '0 1 4\n#! hang soon\n' >"$TMP/badevent.trace"
run "$PARASTACK" plot "$TMP/badevent.trace"
expect_error "malformed event line" 1 "line 2: expected \"#! hang T_MS\""
run "$PARASTACK" plot --set-size 3 "$TMP/hang.trace"
expect_error "set size mismatch" 2 "set size is C = 10 but --set-size is 3"
run "$PARASTACK" plot --colour red "$TMP/hang.trace"
expect_error "unknown option" 2 "unknown option '--colour'"
run env PATH=/nonexistent "$PARASTACK" plot -o "$TMP/nognuplot.svg" "$TMP/hang.trace"
expect_error "no gnuplot" 1 "gnuplot is not installed"
run env PATH=/nonexistent "$PARASTACK" plot --data "$TMP/hang.trace"
expect_status "--data needs no gnuplot" 0

finish
