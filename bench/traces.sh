# SPDX-License-Identifier: BSD-3-Clause
# traces.sh — trace-driven estimates: dense S(t) traces recorded with `parastack run --trace`
# (sampled every ~50 ms, the model silenced with alpha 1e-300 so nothing interrupts the record)
# from healthy runs and from runs with an injected hang, then replayed (bench/trace_eval) over
# thousands of seeds by ParaStack's model exactly as the live monitor samples, and by fixed
# timeouts of the paper's Table 1 (I = 400/800 ms, K = 5/10 consecutive samples with S = 0).
# Beside them, Open MPI's own `mpirun --timeout T` on real runs. Writes results/false-alarms.md
# and results/timeouts.md.
. "$(dirname "$0")/lib.sh"
NP=4
N=0
SEEDS=$(pick 2000 10000)
TRACES=""

# dense LABEL SECONDS APP ENV...: record a trace of a test application's run with ENV; a faulty
# run is cut SECONDS after its fault fires, a healthy one ends by itself (ENV holds PS_ITERS).
dense() {
	N=$((N + 1))
	label=$1 keep=$2 app=$3
	shift 3
	tr=$WORK/dense-$label-$N.trace log=$WORK/dense-$N.log
	say "traces: recording $label ($*)"
	bg "$WORK/dense-$N.out" env PS_FAULT_LOG="$log" "$@" "$PARASTACK" run --interval 50 \
		--max-interval 50 --alpha 1e-300 --on-hang=report --trace "$tr" \
		-- mpirun --oversubscribe --bind-to none -np $NP "$app"
	job=$BG
	deadline=$(($(date +%s) + 600))
	while kill -0 "$job" 2>/dev/null && [ ! -s "$log" ] && [ "$(date +%s)" -lt "$deadline" ]; do
		sleep 0.2
	done
	if [ -s "$log" ]; then
		finish_bg "$job" "$keep"
		t0=$(sed -n 's/^# t_ms 0 is unix time //p' "$tr")
		fault=$(awk -v t0="$t0" '{ printf "%.0f", ($1 - t0) * 1000; exit }' "$log")
		TRACES="$TRACES $tr@$fault"
	else
		finish_bg "$job" 600
		TRACES="$TRACES $tr"
	fi
}

dense healthy-stencil 0 "$APPS/stencil" PS_ITERS="$(pick 600 6000)"
dense healthy-phases 0 "$APPS/phases" PS_ITERS="$(pick 5 60)"
for _ in $(seq "$(pick 1 5)"); do
	dense spin-stencil 30 "$APPS/stencil" PS_FAULT=spin PS_FAULT_RANK="$(randint 0 3)" PS_FAULT_AFTER="$(rand 20 28)"
	dense deadlock-stencil 30 "$APPS/stencil" PS_FAULT=deadlock PS_FAULT_RANK="$(randint 0 3)" PS_FAULT_AFTER="$(rand 20 28)"
done
if [ "$BENCH" = full ]; then
	dense spin-phases 60 "$APPS/phases" PS_FAULT=spin PS_FAULT_RANK="$(randint 0 3)" PS_FAULT_AFTER="$(rand 30 60)"
fi

say "traces: replaying over $SEEDS seeds"
# shellcheck disable=SC2086
"$BUILD/bench/trace_eval" --seeds "$SEEDS" $TRACES >"$WORK/eval.md"

# mpirun --timeout T: the job's whole run time is the limit.
TIMEOUT=20
mpirun_timeout() {
	start=$(now)
	bg "$WORK/mt.out" env "$@" mpirun --timeout $TIMEOUT --oversubscribe --bind-to none -np $NP "$APPS/stencil"
	finish_bg "$BG" 120
	echo "$RC $(awk -v s="$start" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }')"
}
say "traces: mpirun --timeout $TIMEOUT on real runs"
after=$(rand 4 12)
hung=$(mpirun_timeout PS_FAULT=spin PS_FAULT_RANK=1 PS_FAULT_AFTER="$after")
long=$(mpirun_timeout PS_ITERS=700)
short=$(mpirun_timeout PS_ITERS=150)

trace_list() {
	for t in $TRACES; do
		f=${t#*@}
		base=$(basename "${t%@*}")
		[ "$f" = "$t" ] && f="healthy" || f="fault at $(awk -v f="$f" 'BEGIN { printf "%.1f s", f / 1000 }')"
		echo "- $base: $(grep -vc '^#' "${t%@*}") samples over $(grep -v '^#' "${t%@*}" | tail -n 1 | awk '{ printf "%.0f s", $1 / 1000 }'), $f"
	done
}

{
	header "False alarms: healthy traces replayed over many seeds"
	cat <<EOF
A live healthy run shows whether one run raised an alarm; a rate of about alpha per run needs
far more. So dense traces of healthy runs (S every ~50 ms, recorded by \`parastack run --trace\`)
are replayed by the model exactly as the live monitor samples them (its randomized steps, its
interval doubling), once per seed: each seed is another run's sampling of the same behaviour.
"hours replayed" is seeds x trace length. The fixed-timeout detectors of the paper's Table 1 on
the same traces, for contrast. (The live healthy runs are in [detection.md](detection.md).)
ParaStack gives no verdict before two randomness windows at the current interval have passed
(about 13 s at 400 ms; or four, passed or not), so only the part of a trace after that can raise
an alarm: the quick set's traces
are short, and \`BENCH=full\` records ten times longer ones.

Traces:

$(trace_list | grep healthy)

EOF
	sed -n '/^### False alarms/,/^### Injected/p' "$WORK/eval.md" | sed '$d'
} >"$RESULTS/false-alarms.md"

{
	header "Against timeouts: the same faults, side by side"
	cat <<EOF
Fixed timeouts need a guess; ParaStack decides from the job's own history. On the same recorded
traces with injected hangs, each detector is replayed over $SEEDS seeds (each seed: another
sampling phase; for ParaStack, another run of its randomized sampling). A fixed detector samples
every I ms and declares a hang after K consecutive samples with S = 0 (no sampled rank outside
MPI) — the paper's Table 1 settings. AC: hang detected after the fault; FP: an alarm before the
fault fired (in the healthy part of the run); D: fault to verdict. False alarms on purely healthy
traces are in [false-alarms.md](false-alarms.md).

Traces:

$(trace_list | grep -v healthy)

EOF
	sed -n '/^### Injected/,$p' "$WORK/eval.md"
	cat <<EOF

### Open MPI's \`mpirun --timeout $TIMEOUT\` (real runs)

\`mpirun --timeout\` limits the job's whole run time: it cannot tell a hang from a long run.

| run | exit status | ended after s | verdict |
|---|---|---|---|
| stencil, rank 1 spins after $after s | ${hung%% *} | ${hung#* } | hang ended $(awk -v e="${hung#* }" -v a="$after" 'BEGIN { printf "%.1f", e - a }') s after the fault (the timeout's delay) |
| stencil, healthy, 700 iterations | ${long%% *} | ${long#* } | $( [ "${long%% *}" = 0 ] && echo "completed" || echo "killed: a false alarm" ) |
| stencil, healthy, 150 iterations | ${short%% *} | ${short#* } | $( [ "${short%% *}" = 0 ] && echo "completed" || echo "killed: a false alarm" ) |

A job-level timeout must exceed the longest healthy run, so its delay is that margin plus the rest
of the run; ParaStack's delay does not depend on the job's length (see [detection.md](detection.md)).
EOF
} >"$RESULTS/timeouts.md"
say "traces: wrote $RESULTS/false-alarms.md and $RESULTS/timeouts.md"
