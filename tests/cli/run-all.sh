#!/bin/sh
# Run every tests/cli/test-*.sh with the build directory $1; print each file's counts and the
# total as "N passed, N failed"; exit non-zero if anything failed.
BUILD=${1:-build}
export BUILD
dir=$(dirname "$0")
total_p=0
total_f=0
status=0
for t in "$dir"/test-*.sh; do
	name=$(basename "$t" .sh)
	out=$(timeout 2400 sh "$t" 2>&1)
	rc=$?
	summary=$(printf '%s\n' "$out" | tail -n 1)
	p=$(printf '%s' "$summary" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	f=$(printf '%s' "$summary" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	if [ -z "$p" ]; then
		p=0
		f=1
		echo "$out"
		echo "$name: did not finish (exit $rc)"
	else
		printf '%s\n' "$out" | grep '^FAIL' || true
		echo "$name: $summary"
	fi
	[ "$rc" -eq 0 ] || status=1
	total_p=$((total_p + p))
	total_f=$((total_f + f))
done
echo "cli: $total_p passed, $total_f failed"
exit $status
