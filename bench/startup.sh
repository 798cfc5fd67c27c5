# SPDX-License-Identifier: BSD-3-Clause
# startup.sh — hangs at start-up (issue 68): a rank that never reaches MPI_Init (it reads its
# input from a pipe no one writes: tests/apps/faults.h's PS_PREINIT=stuck) while the others wait
# in MPI_Init, in an 8-rank stencil under `parastack run` with its defaults; the rank and the
# seed drawn per run. Per run: the rank named, the delay from the moment the rank began its read
# (PS_FAULT_LOG) to the suspicion and to the report. Then healthy start-ups: a random rank reads
# its input for 45 s before MPI_Init (PS_PREINIT=slow), none may be ended. The same two for a
# 4-rank torch.distributed job on gloo at init_process_group (tests/apps/ddp_train.py), where
# Debian's python3-torch is installed. Two jobs at a time on the machine's cores.
# Runs: STARTUP_RUNS (10), STARTUP_HEALTHY (5), STARTUP_TORCH_RUNS (5), STARTUP_TORCH_HEALTHY (3).
# BASELINE_BUILD=DIR also runs one stuck job with an older build's parastack (its 600-s rule:
# ten minutes), the application from BUILD.
# Writes results/startup.md.
. "$(dirname "$0")/lib.sh"
RUNS=${STARTUP_RUNS:-10}
HEALTHY=${STARTUP_HEALTHY:-5}
TRUNS=${STARTUP_TORCH_RUNS:-5}
THEALTHY=${STARTUP_TORCH_HEALTHY:-3}
TRAIN="/usr/bin/python3 $(pwd)/tests/apps/ddp_train.py"

# start BUILD NAME SEED NP KIND RANK PORT: one job in the background ($BG); KIND stuck or slow;
# PORT: empty for the stencil, else the torch job's rendezvous port.
start() {
	b=$1 name=$2 seed=$3 np=$4 kind=$5 rank=$6 port=$7
	rm -f "$WORK/$name.log"
	if [ -z "$port" ]; then
		bg "$WORK/$name.out" timeout 900 "$b/parastack" run --seed "$seed" --report "$WORK/$name.json" \
			-- mpirun --oversubscribe -np "$np" -x PS_PREINIT="$kind" -x PS_PREINIT_RANK="$rank" \
			-x PS_PREINIT_SECONDS=45 -x PS_SECONDS=10 -x PS_FAULT_LOG="$WORK/$name.log" "$BUILD/tests/apps/stencil"
	else
		# shellcheck disable=SC2086
		bg "$WORK/$name.out" timeout 900 "$b/parastack" run --seed "$seed" --report "$WORK/$name.json" \
			-- mpirun --oversubscribe -np "$np" -x MASTER_PORT="$port" -x PS_SECONDS=10 -x PS_CKPT_AT=-1 \
			-x PS_PREINIT="$kind" -x PS_PREINIT_RANK="$rank" -x PS_PREINIT_SECONDS=45 \
			-x PS_FAULT_LOG="$WORK/$name.log" $TRAIN
	fi
}

# row NAME RANK: a stuck run's line: "| named | suspicion s | report s |", delays from the log.
row() {
	t0=$(awk 'NR == 1 { print $1 }' "$WORK/$1.log" 2>/dev/null)
	jq -r --argjson r "$2" --arg t0 "${t0:-0}" '[(.faulty_ranks | map(tostring) | join(",")),
		(if .faulty_ranks == [$r] then "yes" else "no" end),
		(.confirmation.suspected_at - ($t0 | tonumber) | . * 10 | round / 10 | tostring),
		(.confirmation.reported_at - ($t0 | tonumber) | . * 10 | round / 10 | tostring)] | join(" | ")' \
		"$WORK/$1.json" 2>/dev/null || echo "no report (exit $RC) | no | - | -"
}

# stuck_rows WHAT NP RUNS PORT: RUNS stuck jobs, two at a time; a table row each, delays in
# $WORK/WHAT.susp and $WORK/WHAT.rep.
stuck_rows() {
	what=$1 np=$2 runs=$3 port=$4
	: >"$WORK/$what.susp"
	: >"$WORK/$what.rep"
	k=1
	while [ "$k" -le "$runs" ]; do
		ra=$(randint 0 $((np - 1))) rb=$(randint 0 $((np - 1)))
		say "$what runs $k and $((k + 1)): ranks $ra and $rb stuck before the start-up"
		start "$BUILD" "$what$k" $((k * 7 + 1)) "$np" stuck "$ra" "${port:+$((port + k))}"
		pa=$BG pb=""
		if [ $((k + 1)) -le "$runs" ]; then
			start "$BUILD" "$what$((k + 1))" $(((k + 1) * 7 + 1)) "$np" stuck "$rb" "${port:+$((port + k + 1))}"
			pb=$BG
		fi
		finish_bg "$pa" 900
		echo "| $k | $ra | $(row "$what$k" "$ra") |"
		if [ -n "$pb" ]; then
			finish_bg "$pb" 900
			echo "| $((k + 1)) | $rb | $(row "$what$((k + 1))" "$rb") |"
		fi
		for j in "$k" $((k + 1)); do
			[ -f "$WORK/$what$j.json" ] || continue
			row "$what$j" 0 | awk -F' [|] ' '$3 != "-" { print $3 >> "'"$WORK/$what.susp"'"; print $4 >> "'"$WORK/$what.rep"'" }'
		done
		k=$((k + 2))
	done
}

# healthy_rows WHAT NP RUNS PORT: slow start-ups, two at a time: exit status and verdict each.
healthy_rows() {
	what=$1 np=$2 runs=$3 port=$4
	k=1
	while [ "$k" -le "$runs" ]; do
		pids="" ranks=""
		for j in "$k" $((k + 1)); do
			[ "$j" -le "$runs" ] || continue
			r=$(randint 0 $((np - 1)))
			say "$what healthy run $j: rank $r reads its input for 45 s before the start-up"
			start "$BUILD" "${what}h$j" $((j * 11 + 3)) "$np" slow "$r" "${port:+$((port + 50 + j))}"
			pids="$pids $BG" ranks="$ranks $r"
		done
		set -- $ranks
		for p in $pids; do
			finish_bg "$p" 900
			echo "| $k | $1 | $RC | $(jq -r '.verdict' "$WORK/${what}h$k.json" 2>/dev/null || echo "no report") | $(grep -c 'suspected hang' "$WORK/${what}h$k.out") |"
			shift
			k=$((k + 1))
		done
	done
}

summary() {
	what=$1
	set -- $(stats <"$WORK/$what.susp") && s_med=$4 s_max=$6
	set -- $(stats <"$WORK/$what.rep") && r_med=$4 r_max=$6 n=$1
	echo "Median over $n runs: suspected **${s_med} s** after the rank stopped (max $s_max), reported **${r_med} s** after it (max $r_max)."
}

{
	header "Hangs at start-up: a rank that never reaches MPI_Init"
	cat <<EOF
A rank reads its input from a pipe nobody writes before MPI_Init (\`PS_PREINIT=stuck\`, the rank
drawn per run) while the others wait in MPI_Init; \`parastack run\` with its defaults (60-s window),
two jobs at a time on $(nproc) cores. Delays from the moment the rank began its read. Before this
work (issue 68) a start-up was given 600 s whatever its ranks did: suspected about 300 s and
reported about 600 s after it began. Reproduce: \`sh bench/startup.sh\`.

## 8-rank Open MPI stencil, a rank stuck before MPI_Init

| run | stuck rank | faulty named | exact | suspicion (s) | report (s) |
|---|---|---|---|---|---|
EOF
	stuck_rows mpi 8 "$RUNS" ""
	echo
	summary mpi
	cat <<EOF

## Healthy: a rank reads its input for 45 s before MPI_Init (8 ranks)

| run | slow rank | exit | verdict | suspicions raised (dismissed) |
|---|---|---|---|---|
EOF
	healthy_rows mpi 8 "$HEALTHY" ""
	if /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; then
		cat <<EOF

## 4-rank torch.distributed (gloo), a rank stuck before init_process_group

| run | stuck rank | faulty named | exact | suspicion (s) | report (s) |
|---|---|---|---|---|---|
EOF
		stuck_rows torch 4 "$TRUNS" 29900
		echo
		summary torch
		cat <<EOF

## Healthy: a rank reads its input for 45 s before init_process_group (4 ranks)

| run | slow rank | exit | verdict | suspicions raised (dismissed) |
|---|---|---|---|---|
EOF
		healthy_rows torch 4 "$THEALTHY" 29900
	fi
	if [ -n "${BASELINE_BUILD:-}" ]; then
		b=$(cd "$BASELINE_BUILD" && pwd)
		say "the baseline build: one stuck job (its 600-s rule)"
		start "$b" base1 8 8 stuck 5 ""
		finish_bg "$BG" 900
		echo
		echo "Baseline build ($(git -C "$b/.." rev-parse --short HEAD 2>/dev/null || echo "$b")), rank 5 stuck, one run: | $(row base1 5) |"
	fi
} >"$RESULTS/startup.md"
say "wrote $RESULTS/startup.md"
