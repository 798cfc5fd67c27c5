#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run.sh BUILD — run every fuzz target over its corpus (tests/fuzz/corpus/NAME) and then for a
# fixed number of new inputs from a fixed seed, so `make check` is repeatable. New inputs go to
# a scratch directory, not into the kept corpus; to grow it, run a target by hand with the
# corpus directory first. Exit non-zero when a target finds a crash.
BUILD=${1:-build}
dir=$(dirname "$0")
status=0
for target in "$BUILD"/fuzz/fuzz_*; do
	name=${target##*/fuzz_}
	runs=${FUZZ_RUNS:-200000}
	# A forged record is a whole 1.5 MB area per input (and a report for three of them).
	case $name in
	record) runs=$((runs / 10)) ;;
	waitfor) runs=$((runs / 40)) ;;
	snapclass) runs=$((runs / 10)) ;; # a rank set may stand for millions of ranks
	esac
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/parastack-fuzz.XXXXXX")
	if "$target" -seed=1 -runs="$runs" -max_len=4096 -artifact_prefix="$scratch/" \
		"$scratch" "$dir/corpus/$name" >"$scratch/log" 2>&1; then
		echo "fuzz $name: $(grep -o 'Done [0-9]* runs' "$scratch/log")"
	else
		echo "fuzz $name: FAILED"
		tail -30 "$scratch/log"
		status=1
	fi
	rm -rf "$scratch"
done
exit $status
