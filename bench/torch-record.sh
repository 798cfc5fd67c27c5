#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# torch-record.sh [BUILD] — what parastack's torch.distributed collective record (record/python)
# costs a training job: bench/torch_record_loop.py under mpirun (gloo, CPU), with the
# record (the build's python/ on PYTHONPATH, as the layer puts it there) and without (the same
# PYTHONPATH, PARASTACK_TORCH_RECORD=0), alternating, TORCH_RECORD_RUNS times each (default 5),
# at TORCH_RECORD_NP ranks (default 2; 1 shows the wrapper's own cost, without a peer's noise).
# Prints each run and a markdown table of the medians with the ratio with/without: for
# results/torch-record.md.
set -eu
BUILD=${1:-build}
RUNS=${TORCH_RECORD_RUNS:-5}
NP=${TORCH_RECORD_NP:-2}
DIR=$(cd "$BUILD/python" && pwd)
APP=$(cd "$(dirname "$0")" && pwd)/torch_record_loop.py
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
port=29611
for i in $(seq "$RUNS"); do
	for on in 1 0; do
		port=$((port + 1))
		line=$(PYTHONPATH=$DIR PARASTACK_TORCH_RECORD=$on MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
			mpirun --oversubscribe -np "$NP" -x PYTHONPATH -x PARASTACK_TORCH_RECORD -x MASTER_ADDR -x MASTER_PORT \
			-x ITERS /usr/bin/python3 "$APP" | grep '^record ')
		echo "run $i: $line" >&2
		echo "$line" >>"$WORK/rows"
	done
done
echo "| call | without the record (µs, median) | with it | ratio | runs |"
echo "|---|---:|---:|---:|---:|"
awk -v runs="$RUNS" '
	function median(list,   n, a, i, j, t) {
		n = split(list, a, ",")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ ar[$2] = ar[$2] (ar[$2] == "" ? "" : ",") $4; dd[$2] = dd[$2] (dd[$2] == "" ? "" : ",") $6 }
	END {
		if (ar[1] == "" || ar[0] == "") { print "torch-record: a side kept no rows (was the record kept?)" > "/dev/stderr"; exit 1 }
		printf "| dist.all_reduce, 1 element | %.1f | %.1f | %.3f | %d |\n", median(ar[0]), median(ar[1]), median(ar[1]) / median(ar[0]), runs
		printf "| DDP step (forward, backward) | %.1f | %.1f | %.3f | %d |\n", median(dd[0]), median(dd[1]), median(dd[1]) / median(dd[0]), runs
	}' "$WORK/rows"
