# SPDX-License-Identifier: BSD-3-Clause
# stragglers.sh — the rank that holds the job back (issue 69): jobs under `parastack run` with
# its defaults, one rank (drawn per run) slowed from AT seconds after MPI_Init, and healthy
# jobs with an imbalance built in (a rank that computes more from the start). Per run: the
# ranks the report's "stragglers" names, whether that is the slowed rank, the delay from the
# slowdown (PS_FAULT_LOG) to its flag (flagged_at), the flag's "since" against the slowdown,
# the verdict and the exit status (a rank that is only slow is never called hung). One job at
# a time: the machine's cores are the job's.
# STRAG_CASES: "RANKS:FACTOR:AT ..." (default "8:2:10 8:1.25:90 16:1.25:90"; FACTOR 1.25 is 25 %
# slower), STRAG_RUNS per case (5), STRAG_AFTER seconds each job runs after its slowdown (150),
# STRAG_HEALTHY_RUNS (10: the imbalanced shapes in turn), STRAG_DDP_RUNS (2: DDP jobs, 4
# ranks, rank 2 sleeping 50 ms more every step from 30 s; skipped without python3-torch).
# Writes results/stragglers.md (STRAG_NAME: another file name).
. "$(dirname "$0")/lib.sh"
CASES=${STRAG_CASES:-8:2:10 8:1.25:90 16:1.25:90}
RUNS=${STRAG_RUNS:-5}
AFTER=${STRAG_AFTER:-150}
HEALTHY=${STRAG_HEALTHY_RUNS:-10}
NAME=${STRAG_NAME:-stragglers}
PY=/usr/bin/python3 # Debian's, with python3-torch (as training.sh)

# row NAME RANK: "named | exact | flag (s) | since (s) | verdict | exit" (times from the slowdown).
row() {
	t0=$(awk 'NR == 1 { print $1 }' "$WORK/$1.log" 2>/dev/null)
	jq -r --argjson r "$2" --arg t0 "${t0:-0}" --arg rc "$RC" '
		(.stragglers | map(.rank | tostring) | join(",")) as $named
		| (.stragglers | map(select(.rank == $r)) | .[0]) as $s
		| [(if $named == "" then "none" else $named end),
		   (if (.stragglers | map(.rank)) == [$r] then "yes" else "no" end),
		   (if $s then ($s.flagged_at - ($t0 | tonumber) | . * 10 | round / 10 | tostring) else "-" end),
		   (if $s then ($s.since - ($t0 | tonumber) | . * 10 | round / 10 | tostring) else "-" end),
		   .verdict, $rc] | join(" | ")' "$WORK/$1.json" 2>/dev/null || echo "no report | no | - | - | - | $RC"
}

# run NAME NP SEED MPIRUN-ARGS...: one job to its end; its exit status in $RC.
run() {
	name=$1 np=$2 seed=$3
	shift 3
	rm -f "$WORK/$name.log"
	bg "$WORK/$name.out" timeout 900 "$PARASTACK" run --seed "$seed" --report "$WORK/$name.json" \
		-- mpirun --oversubscribe --bind-to none -np "$np" -x PS_FAULT_LOG="$WORK/$name.log" "$@"
	finish_bg "$BG" 960
}

slow_rows() {
	for c in $CASES; do
		np=${c%%:*} rest=${c#*:}
		f=${rest%%:*} at=${rest#*:}
		: >"$WORK/case-$c.delay"
		k=1
		while [ "$k" -le "$RUNS" ]; do
			r=$(randint 0 $((np - 1)))
			say "$np ranks, rank $r ${f}x from $at s: run $k"
			run "slow-$np-$f-$k" "$np" $((k * 11 + 3)) -x PS_FAULT=slow -x PS_FAULT_RANK="$r" -x PS_SLOW="$f" \
				-x PS_FAULT_AFTER="$at" -x PS_SECONDS=$((at + AFTER)) -x PS_COMPUTE_MS=40 "$APPS/stencil"
			line=$(row "slow-$np-$f-$k" "$r")
			echo "| stencil | $np | $(awk -v f="$f" 'BEGIN { printf "%.0f %%", (f - 1) * 100 }') | $at | $k | $r | $line |"
			printf '%s\n' "$line" | awk -F' [|] ' -v w="$WORK/case-$c.delay" '$2 == "yes" { print $3 >> w }'
			k=$((k + 1))
		done
	done
}

ddp_rows() {
	$PY -c 'import torch.distributed' 2>/dev/null || { echo "| DDP | 4 | skipped: no python3-torch | | | | | | | | | |"; return; }
	k=1
	while [ "$k" -le "${STRAG_DDP_RUNS:-2}" ]; do
		say "DDP: rank 2 sleeps 50 ms more every step from 30 s: run $k"
		run "ddp-$k" 4 $((k * 5 + 2)) -x PS_FAULT=slow -x PS_FAULT_RANK=2 -x PS_SLOW_MS=50 -x PS_FAULT_AFTER=30 \
			-x PS_CKPT_AT=-1 -x PS_SECONDS=150 -x MASTER_PORT=$((29700 + k)) "$PY" "$ROOT/tests/apps/ddp_train.py"
		echo "| DDP (gloo) | 4 | +50 ms a step | 30 | $k | 2 | $(row "ddp-$k" 2) |"
		k=$((k + 1))
	done
}

# healthy_rows: an imbalance by design, from the start: the stencil with a rank computing 1.25x,
# 1.5x or 2x, the phases application whose rank 3 computes 1.5x as long in every compute phase
# (the others wait for it in the next Alltoall), and the balanced stencil.
healthy_rows() {
	k=1
	while [ "$k" -le "$HEALTHY" ]; do
		case $((k % 5)) in
		1) r=0 h=1.5 app=stencil shape="stencil, rank 0 computes 1.5x" ;;
		2) r=$(randint 0 7) h=2 app=stencil shape="stencil, a rank computes 2x" ;;
		3) r=3 h=1.5 app=phases shape="phases, rank 3 computes 1.5x in each compute phase" ;;
		4) r=$(randint 0 7) h=1.25 app=stencil shape="stencil, a rank computes 1.25x" ;;
		*) r=-1 h=1 app=stencil shape="stencil, balanced" ;;
		esac
		say "healthy $k: $shape (rank $r)"
		run "healthy-$k" 8 $((k * 7 + 1)) -x PS_HEAVY_RANK="$r" -x PS_HEAVY="$h" -x PS_SECONDS=120 -x PS_COMPUTE_MS=40 \
			"$APPS/$app"
		echo "| $k | $shape | $r | $(jq -r '(.stragglers | map(.rank | tostring) | join(",")) as $n | [(if $n == "" then "none" else $n end), .verdict] | join(" | ")' "$WORK/healthy-$k.json" 2>/dev/null || echo "no report | -") | $RC |"
		k=$((k + 1))
	done
}

{
	header "Stragglers: the rank that holds the job back"
	cat <<EOF
Jobs under \`parastack run\` with its defaults on $(nproc) cores, one at a time. The stencil
computes 40 ms of wall time per iteration (\`PS_COMPUTE_MS=40\`), as a rank with a core of its own
would: with 8 or 16 ranks on these cores, a slowdown counted in work would be absorbed by the
cycles its waiting neighbours yield. A slowed rank (drawn per run) computes FACTOR times as long
per iteration from AT s after MPI_Init (\`PS_FAULT=slow\`); the job runs $AFTER s more, to its end. *flag*: when the line "rank R holds the
job back" came (the report's \`flagged_at\`); *since*: the flag's own estimate of when the slowdown
began; both in seconds after it began (PS_FAULT_LOG). *exit*: \`parastack run\`'s status (0: the
job ended by itself, never called hung). Reproduce: \`sh bench/stragglers.sh\` (STRAG_CASES,
STRAG_RUNS, STRAG_HEALTHY_RUNS, STRAG_DDP_RUNS).

| program | ranks | slowdown | at (s) | run | rank | named | exact | flag (s) | since (s) | verdict | exit |
|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
	slow_rows
	ddp_rows
	echo
	for c in $CASES; do
		set -- $(stats <"$WORK/case-$c.delay")
		echo "- $c (ranks:factor:at s): the slowed rank flagged alone in $1 of $RUNS runs; its flag a median $4 s after the slowdown, at most $6 s."
	done
	cat <<EOF

## Healthy jobs with an imbalance built in

8 ranks, 120 s each, the imbalance from the first iteration (\`PS_HEAVY_RANK\`, \`PS_HEAVY\`): no
rank slowed down, so none may be named.

| run | shape | heavy rank | named | verdict | exit |
|---|---|---|---|---|---|
EOF
	healthy_rows
} >"$RESULTS/$NAME.md.new"
mv "$RESULTS/$NAME.md.new" "$RESULTS/$NAME.md"
say "wrote $RESULTS/$NAME.md"
