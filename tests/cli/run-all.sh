#!/bin/sh
# Run every tests/cli/test-*.sh with the build directory $1; print each file's FAIL and SKIP
# lines and its counts as it ends, then a table (file, passed, failed, skipped, seconds), the total as "N passed, N
# failed, N skipped" and the slowest files; exit non-zero if anything failed. A file that did
# not reach its own closing line counts as one failure, whatever it printed. A skip is never a
# pass: tests/cli/lib.sh's skip counts it apart (and fails it under CI=true).
BUILD=${1:-build}
export BUILD
dir=$(dirname "$0")
total_p=0
total_f=0
total_s=0
status=0
table=""
for t in "$dir"/test-*.sh; do
	name=$(basename "$t" .sh)
	start=$(date +%s)
	out=$(timeout 2400 sh "$t" 2>&1)
	rc=$?
	secs=$(($(date +%s) - start))
	summary=$(printf '%s\n' "$out" | tail -n 1)
	counts=$(printf '%s' "$summary" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}$/\1 \2 \4/p')
	if [ -z "$counts" ]; then
		p=0 f=1 s=0
		echo "$out"
		echo "$name: did not finish (exit $rc)"
	else
		set -- $counts
		p=$1 f=$2 s=${3:-0}
		printf '%s\n' "$out" | grep -E '^(FAIL|SKIP)' || true
		echo "$name: $summary (${secs} s)"
	fi
	[ "$rc" -eq 0 ] || status=1
	table="$table$(printf '%-22s %6d %6d %6d %6d' "$name" "$p" "$f" "$s" "$secs")
"
	total_p=$((total_p + p))
	total_f=$((total_f + f))
	total_s=$((total_s + s))
done
printf '%-22s %6s %6s %6s %6s\n' file passed failed skipped seconds
printf '%s' "$table"
echo "slowest: $(printf '%s' "$table" | sort -k5 -n -r | head -n 5 | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $1, $5 }')"
echo "cli: $total_p passed, $total_f failed, $total_s skipped"
exit $status
