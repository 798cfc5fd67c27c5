# SPDX-License-Identifier: BSD-3-Clause
# training.sh — torch.distributed training jobs under `parastack run` (issue 54): Debian's
# python3-torch (gloo, CPU), tests/apps/ddp_train.py at 4 ranks, launched by mpirun
# (`mpirun -np 4 python3 train.py`) and by torchrun's layout (tests/apps/torchrun_layout.py, which
# starts the workers as torchrun's elastic agent does; Debian's torchrun cannot start).
# Healthy runs: PS_SECONDS (90 s) of training with a checkpoint at 40 s that holds rank 0 for
# 30 s while the others wait in the gradient all-reduce, under parastack's defaults (no
# option): the job must end by itself (exit 0). Faults, at a random rank and moment (seeded,
# BENCH_SEED), TRAIN_FAULT_FROM to TRAIN_FAULT_TO s into training (default 20 to 40):
#   spin   the rank loops in its own Python code (a computation hang)
#   recv   the rank waits in dist.recv for a tensor nobody sends (a communication hang)
#   stop   the rank is stopped by SIGSTOP (sent by itself at the moment: a frozen process)
# Per (launcher, fault): runs, reported, the right type, the faulty rank named exactly, the delay
# from the fault (the rank's own "fault … at T" line) to the suspicion and to the report (median,
# max), against gloo's own timeout (30 min by default, the only other thing that would end
# such a job). TRAIN_HEALTHY (2 quick, 10 full), TRAIN_RUNS per fault row (1 quick, 5 full),
# TRAIN_TORCHRUN_HEALTHY and TRAIN_TORCHRUN_RUNS for torchrun's rows (default the same),
# TRAIN_WIDTH jobs side by side (default 2), TRAIN_LAUNCHERS, TRAIN_FAULTS. Writes
# results/training.md and training.tsv (TRAIN_NAME=NAME: NAME.md and NAME.tsv); TRAIN_KEEP=DIR
# keeps each run's log and sample trace there (for `parastack replay`).
. "$(dirname "$0")/lib.sh"
HEALTHY=${TRAIN_HEALTHY:-$(pick 2 10)}
RUNS=${TRAIN_RUNS:-$(pick 1 5)}
TR_HEALTHY=${TRAIN_TORCHRUN_HEALTHY:-$HEALTHY}
TR_RUNS=${TRAIN_TORCHRUN_RUNS:-$RUNS}
FAULT_FROM=${TRAIN_FAULT_FROM:-20}
FAULT_TO=${TRAIN_FAULT_TO:-40}
NAME=${TRAIN_NAME:-training}
WIDTH=${TRAIN_WIDTH:-2}
LAUNCHERS=${TRAIN_LAUNCHERS:-mpirun torchrun}
FAULTS=${TRAIN_FAULTS:-spin recv stop}
PY=/usr/bin/python3
APP=$ROOT/tests/apps/ddp_train.py
GLOO_TIMEOUT_S=1800
"$ROOT/scripts/install-deps" --test >&2 || exit 1
$PY -c 'import torch.distributed' || { echo "bench: training: python3-torch does not import" >&2; exit 1; }
: >"$WORK/runs.tsv"
RUN=0
RUNNING=""

# start LAUNCHER DIR PORT [ENV=VALUE...]: one job under parastack run in the background.
start() {
	launcher=$1 dir=$2 port=$3
	shift 3
	mkdir -p "$dir"
	case $launcher in
	mpirun)
		xs=""
		for e in "$@"; do xs="$xs -x ${e%%=*}"; done
		# shellcheck disable=SC2086
		bg "$dir/log" env "$@" MASTER_PORT="$port" "$PARASTACK" run --seed "$RUN" --report "$dir/report.json" --trace "$dir/trace" -- \
			mpirun --oversubscribe --bind-to none -np 4 -x MASTER_PORT $xs $PY "$APP" ;;
	torchrun)
		bg "$dir/log" env "$@" "$PARASTACK" run --seed "$RUN" --report "$dir/report.json" --trace "$dir/trace" -- \
			$PY "$ROOT/tests/apps/torchrun_layout.py" --nproc-per-node 4 --master-port "$port" \
			--rdzv-id "bench$RUN" "$APP" ;;
	esac
	# A run that has not ended 300 s after it began is stopped (and counted as it stands).
	RUNNING="$RUNNING $BG:$(($(date +%s) + 300)):$dir:$launcher"
}

# wait_slot N: wait until fewer than N jobs run; each ended one is recorded.
wait_slot() {
	while :; do
		left=""
		n=0
		for j in $RUNNING; do
			pid=${j%%:*} rest=${j#*:}
			end=${rest%%:*} rest=${rest#*:}
			if [ "$(date +%s)" -lt "$end" ] && running "$pid"; then
				left="$left $j"
				n=$((n + 1))
			else
				finish_bg "$pid" 0
				record "${rest%%:*}" "$RC" "${rest#*:}"
			fi
		done
		RUNNING=$left
		[ "$n" -lt "$1" ] && return 0
		sleep 1
	done
}

# record DIR RC LAUNCHER (its own variable names: it runs inside one(), between its draws and
# its start): the run's line of runs.tsv: launcher, fault, run, rank, exit, verdict,
# type, faulty ranks, exact, delay to suspicion, delay to report.
record() {
	rdir=$1
	rfault=$(cat "$rdir/fault") rrank=$(cat "$rdir/rank")
	# The first such line: mpirun sends SIGCONT before SIGTERM, and a stopped rank prints again.
	ft=$(sed -n 's/^rank [0-9]* fault [a-z]* at \([0-9.]*\)$/\1/p' "$rdir/log" | head -n 1)
	if [ -s "$rdir/report.json" ]; then
		jq -r --arg l "$3" --arg f "$rfault" --arg n "${rdir##*-}" --arg r "$rrank" --arg rc "$2" --arg ft "${ft:-}" '
			[$l, $f, $n, $r, $rc, .verdict, (.hang_type // "-"),
			 ((.faulty_ranks // []) | map(tostring) | join(",")),
			 (if ((.faulty_ranks // []) | map(tostring)) == [$r] then 1 else 0 end),
			 (if $ft != "" and .confirmation.suspected_at != null then (.confirmation.suspected_at - ($ft | tonumber) | . * 10 | round / 10 | tostring) else "-" end),
			 (if $ft != "" and .detected_at != null then (.detected_at - ($ft | tonumber) | . * 10 | round / 10 | tostring) else "-" end),
			 (.confirmation.basis // "-")
			] | @tsv' "$rdir/report.json" >>"$WORK/runs.tsv"
	else
		printf '%s\t%s\t%s\t%s\t%s\tno report\t-\t-\t0\t-\t-\t-\n' "$3" "$rfault" "${rdir##*-}" "$rrank" "$2" >>"$WORK/runs.tsv"
	fi
	cp "$rdir/log" "$WORK/log-${rdir##*-}"
	if [ -n "${TRAIN_KEEP:-}" ]; then
		mkdir -p "$TRAIN_KEEP"
		cp "$rdir/log" "$TRAIN_KEEP/log-${rdir##*-}"
		[ -f "$rdir/trace" ] && cp "$rdir/trace" "$TRAIN_KEEP/trace-${rdir##*-}"
	fi
}

# one LAUNCHER FAULT: a run ("healthy" for none).
one() {
	RUN=$((RUN + 1))
	rank=$(randint 0 3)
	at=$(rand "$FAULT_FROM" "$FAULT_TO")
	dir=$WORK/run-$RUN
	wait_slot "$WIDTH"
	mkdir -p "$dir"
	echo "$2" >"$dir/fault"
	echo "$rank" >"$dir/rank"
	if [ "$2" = healthy ]; then say "training: run $RUN: $1, healthy"; else say "training: run $RUN: $1, $2 on rank $rank at $at s"; fi
	if [ "$2" = healthy ]; then
		start "$1" "$dir" $((29500 + RUN * 10)) PS_SECONDS=90 PS_CKPT_AT=40 PS_CKPT_S=30
	else
		start "$1" "$dir" $((29500 + RUN * 10)) PS_SECONDS=600 PS_CKPT_AT=-1 PS_FAULT="$2" \
			PS_FAULT_RANK="$rank" PS_FAULT_AFTER="$at"
	fi
}

for l in $LAUNCHERS; do
	h=$HEALTHY r=$RUNS
	[ "$l" = torchrun ] && h=$TR_HEALTHY r=$TR_RUNS
	for _ in $(seq "$h"); do one "$l" healthy; done
	for f in $FAULTS; do
		for _ in $(seq "$r"); do one "$l" "$f"; done
	done
done
wait_slot 1
cp "$WORK/runs.tsv" "$RESULTS/$NAME.tsv"

{
	header "Training jobs: torch.distributed (gloo, CPU) under parastack run"
	cat <<EOF
tests/apps/ddp_train.py, 4 ranks (a DDP MLP on random data, one gloo all-reduce of a stop flag
per step and DDP's gradient all-reduce), Debian's python3-torch $($PY -c 'import torch; print(torch.__version__)'),
launched by \`mpirun -np 4 python3\` or by torchrun's layout (tests/apps/torchrun_layout.py);
$WIDTH jobs side by side on this machine. parastack's defaults (no option given): alpha 0.001,
the 60-s confirmation window. Healthy: 90 s of training with a checkpoint at 40 s that holds
rank 0 for 30 s (the others wait in the all-reduce). Faults at a random rank $FAULT_FROM-$FAULT_TO s into
training (seeded, BENCH_SEED=${BENCH_SEED:-1}). Delay: from the rank's own "fault at" line to
the suspicion, and to the report (after the confirmation window); gloo's own timeout, the only
other end of such a job, is $GLOO_TIMEOUT_S s by default.

| launcher | run | runs | ended by parastack | exit 0 | right type | faulty rank exact | suspected by | suspicion delay, median (max) s | report delay, median s | x faster than gloo's timeout (median report) |
|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|
EOF
	for l in $LAUNCHERS; do
		for f in healthy $FAULTS; do
			rows=$(awk -F'\t' -v l="$l" -v f="$f" '$1 == l && $2 == f' "$WORK/runs.tsv")
			[ -n "$rows" ] || continue
			n=$(printf '%s\n' "$rows" | wc -l)
			ended=$(printf '%s\n' "$rows" | awk -F'\t' '$6 == "hang"' | wc -l)
			zero=$(printf '%s\n' "$rows" | awk -F'\t' '$5 == 0' | wc -l)
			if [ "$f" = healthy ]; then
				# a suspicion the job's moving on dismissed (its checkpoint, say): the log's line
				dis=0
				for r in $(printf '%s\n' "$rows" | cut -f3); do
					grep -q "suspected hang" "$WORK/log-$r" 2>/dev/null && dis=$((dis + 1))
				done
				printf '| %s | healthy | %d | %d | %d | - | - | suspected and dismissed in %d | - | - | - |\n' \
					"$l" "$n" "$ended" "$zero" "$dis"
				continue
			fi
			want=communication
			[ "$f" = recv ] || want=computation
			typed=$(printf '%s\n' "$rows" | awk -F'\t' -v w="$want" '$7 == w' | wc -l)
			exact=$(printf '%s\n' "$rows" | awk -F'\t' '$9 == 1' | wc -l)
			# "stall model 4, model 1": which detector opened the window, per run
			by=$(printf '%s\n' "$rows" | awk -F'\t' '$12 != "-" { n[$12]++ } END { for (b in n) printf "%s%s %d", (o++ ? ", " : ""), b, n[b] }')
			set -- $(printf '%s\n' "$rows" | awk -F'\t' '$10 != "-" { print $10 }' | stats)
			sm=$4 sx=$6
			set -- $(printf '%s\n' "$rows" | awk -F'\t' '$11 != "-" { print $11 }' | stats)
			rm_=$4
			x=$(awk -v g="$GLOO_TIMEOUT_S" -v d="$rm_" 'BEGIN { if (d + 0 > 0) printf "%.0f", g / d; else print "-" }')
			printf '| %s | %s (%s) | %d | %d | %d | %d | %d | %s | %s (%s) | %s | %s |\n' "$l" "$f" "$want" "$n" "$ended" "$zero" \
				"$typed" "$exact" "${by:--}" "$sm" "$sx" "$rm_" "$x"
		done
	done
	echo
	echo "Each run (launcher, fault, run, rank, exit status, verdict, type, faulty ranks, exact, suspicion delay, report delay, suspected by):"
	echo
	echo '```'
	cat "$WORK/runs.tsv"
	echo '```'
} >"$RESULTS/$NAME.md"
say "training: $RESULTS/$NAME.md"
