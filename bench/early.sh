# SPDX-License-Identifier: BSD-3-Clause
# early.sh — faults early in a job (issue 68): an 8-rank stencil on the machine's cores under
# `parastack run` with its defaults, one rank (drawn per run) faulting EARLY_AT seconds after
# MPI_Init (default 8): it spins in its own code, deadlocks (a receive its blocked neighbour
# never sends: the records prove it), or skips one MPI_Allreduce (the records prove it). Per
# run: the rank named, which basis confirmed, the delay from the fault (PS_FAULT_LOG) to the
# suspicion, to the report and to the job's end (parastack's exit). Two jobs at a time.
# Runs: EARLY_RUNS per kind (10); EARLY_KINDS ("spin deadlock skip"; "": none); EARLY_AT (8).
# BASELINE_BUILD=DIR runs the same draws with an older build's parastack beside it.
# EARLY_MEMORY=1 (the default; 0: off) runs them a third time with --memory: one healthy run of
# the same job first leaves its model there (issue 68 part 2, the remembered model).
# EARLY_HEALTHY_RUNS (2): healthy jobs with pauses, each shape that many times with and
# without --memory: the job must end by itself (exit 0); the suspicions raised are counted.
# Writes results/early.md (EARLY_NAME: another file name).
. "$(dirname "$0")/lib.sh"
RUNS=${EARLY_RUNS:-10}
KINDS=${EARLY_KINDS-spin deadlock skip} # set and empty: only the healthy jobs
AT=${EARLY_AT:-8}
NAME=${EARLY_NAME:-early}

# start BUILD NAME SEED KIND RANK: one job in the background ($BG); its start time in NAME.t0.
start() {
	rm -f "$WORK/$2.log"
	now >"$WORK/$2.t0"
	memory=""
	case $2 in memory-*) memory="--memory $WORK/memory" ;; esac
	bg "$WORK/$2.out" timeout 400 "$1/parastack" run --seed "$3" $memory --report "$WORK/$2.json" \
		-- mpirun --oversubscribe --bind-to none -np 8 -x PS_FAULT="$4" -x PS_FAULT_RANK="$5" \
		-x PS_FAULT_AFTER="$AT" -x PS_FAULT_LOG="$WORK/$2.log" "$BUILD/tests/apps/stencil"
}

# row NAME RANK: "| named | exact | basis | suspicion s | report s | end s |" (delays from the fault).
row() {
	t0=$(awk 'NR == 1 { print $1 }' "$WORK/$1.log" 2>/dev/null)
	end=$(cat "$WORK/$1.end" 2>/dev/null)
	jq -r --argjson r "$2" --arg t0 "${t0:-0}" --arg tend "${end:-0}" '[(.faulty_ranks | map(tostring) | join(",")),
		(if .faulty_ranks == [$r] then "yes" else "no" end), .confirmation.basis,
		(.confirmation.suspected_at - ($t0 | tonumber) | . * 10 | round / 10 | tostring),
		(.confirmation.reported_at - ($t0 | tonumber) | . * 10 | round / 10 | tostring),
		(($tend | tonumber) - ($t0 | tonumber) | . * 10 | round / 10 | tostring)] | join(" | ")' \
		"$WORK/$1.json" 2>/dev/null || echo "no report (exit $RC) | no | - | - | - | -"
}

# finish NAME PID: wait for the job; its end time.
finish() {
	finish_bg "$2" 420
	now >"$WORK/$1.end"
}

# kind_rows BUILD TAG KIND: RUNS runs of KIND, two at a time; delays in $WORK/TAG-KIND.{susp,rep,end}.
kind_rows() {
	b=$1 tag=$2 kind=$3
	for f in susp rep end; do : >"$WORK/$tag-$kind.$f"; done
	k=1
	while [ "$k" -le "$RUNS" ]; do
		ra=$(awk -v k="$k" -v s="${BENCH_SEED:-1}" -v n="$kind" 'BEGIN { srand(s * 7919 + k * 31 + length(n)); print int(rand() * 8) }')
		rb=$(awk -v k="$((k + 1))" -v s="${BENCH_SEED:-1}" -v n="$kind" 'BEGIN { srand(s * 7919 + k * 31 + length(n)); print int(rand() * 8) }')
		say "$tag $kind runs $k and $((k + 1)): ranks $ra and $rb, $AT s in"
		start "$b" "$tag-$kind$k" $((k * 13 + 5)) "$kind" "$ra"
		pa=$BG pb=""
		if [ $((k + 1)) -le "$RUNS" ]; then
			start "$b" "$tag-$kind$((k + 1))" $(((k + 1) * 13 + 5)) "$kind" "$rb"
			pb=$BG
		fi
		finish "$tag-$kind$k" "$pa"
		[ -n "$pb" ] && finish "$tag-$kind$((k + 1))" "$pb"
		for j in "$k" $((k + 1)); do
			[ "$j" -le "$RUNS" ] || continue
			r=$ra
			[ "$j" = "$k" ] || r=$rb
			line=$(row "$tag-$kind$j" "$r")
			echo "| $tag | $kind | $j | $r | $line |"
			printf '%s\n' "$line" | awk -F' [|] ' -v w="$WORK/$tag-$kind" '$4 != "-" { print $4 >> (w ".susp"); print $5 >> (w ".rep"); print $6 >> (w ".end") }'
		done
		k=$((k + 2))
	done
}

# remember: one healthy run of the job leaves its model in $WORK/memory (the memory runs' start).
remember() {
	rm -rf "$WORK/memory"
	mkdir -p "$WORK/memory"
	say "memory: one healthy run of the job first (40 s)"
	PS_SECONDS=40 timeout 300 "$BUILD/parastack" run --seed 3 --memory "$WORK/memory" \
		-- mpirun --oversubscribe --bind-to none -np 8 "$BUILD/tests/apps/stencil" >"$WORK/remember.out" 2>&1
	ls "$WORK/memory"/*.prior >/dev/null 2>&1 || { say "memory: the healthy run left no model"; cat "$WORK/remember.out"; }
}

# healthy_rows: the pause shapes of the verdicts' healthy runs (a rank pausing 10, 20 or 25 s
# from 6 s in, and no pause), each EARLY_HEALTHY_RUNS times afresh and with the memory.
healthy_rows() {
	n=0
	for pause in 0 10 20 25; do
		j=1
		while [ "$j" -le "${EARLY_HEALTHY_RUNS:-2}" ]; do
			for tag in after memory; do
				[ "$tag" = memory ] && [ "${EARLY_MEMORY:-1}" != 1 ] && continue
				n=$((n + 1))
				name="healthy-$tag-$pause-$j"
				memory=""
				[ "$tag" = memory ] && memory="--memory $WORK/memory"
				rank=$(awk -v k="$n" 'BEGIN { srand(k * 17 + 3); print int(rand() * 8) }')
				fault=""
				[ "$pause" -gt 0 ] && fault="-x PS_FAULT=stall -x PS_FAULT_RANK=$rank -x PS_STALL=$pause -x PS_FAULT_AFTER=6"
				say "healthy $tag: pause $pause s (rank $rank), run $j"
				# shellcheck disable=SC2086
				bg "$WORK/$name.out" timeout 400 "$BUILD/parastack" run --seed $((n * 7 + 1)) $memory \
					--report "$WORK/$name.json" -- mpirun --oversubscribe --bind-to none -np 8 \
					-x PS_SECONDS=$((pause + 30)) $fault "$BUILD/tests/apps/stencil"
				eval "pid_$tag=\$BG"
			done
			for tag in after memory; do
				[ "$tag" = memory ] && [ "${EARLY_MEMORY:-1}" != 1 ] && continue
				eval "finish_bg \$pid_$tag 420"
				name="healthy-$tag-$pause-$j"
				susp=$(grep -c "^parastack: suspected hang" "$WORK/$name.out")
				echo "| $tag | $([ "$pause" -gt 0 ] && echo "a rank pauses $pause s, 6 s in" || echo "no pause") | $j | $(jq -r '.verdict' "$WORK/$name.json" 2>/dev/null || echo "no report") | $susp | $(jq -r '.model.remembered_from != null' "$WORK/$name.json" 2>/dev/null) |"
			done
			j=$((j + 1))
		done
	done
}

median_of() {
	set -- $(stats <"$1")
	echo "$4"
}

{
	header "Faults early in a job: $AT s after MPI_Init"
	cat <<EOF
An 8-rank stencil (\`tests/apps/stencil\`) on $(nproc) cores under \`parastack run\` with its
defaults, one rank drawn per run faulting $AT s after MPI_Init: spin (its own code), deadlock (a
receive its blocked neighbour never sends), skip (one MPI_Allreduce). Delays from the fault
(PS_FAULT_LOG) to the suspicion, the report and the job's end; two jobs at a time. Reproduce:
\`sh bench/early.sh\` (\`BASELINE_BUILD=DIR\` adds an older build's runs). Build \`memory\`: the
same draws with \`--memory DIR\`, after one healthy 40-s run of the same job left its model there.

| build | fault | run | rank | named | exact | basis | suspicion (s) | report (s) | end (s) |
|---|---|---|---|---|---|---|---|---|---|
EOF
	tags="after"
	[ -n "${BASELINE_BUILD:-}" ] && tags="before after"
	if [ "${EARLY_MEMORY:-1}" = 1 ]; then
		tags="$tags memory"
		remember >&2
	fi
	for kind in $KINDS; do
		for tag in $tags; do
			b=$BUILD
			[ "$tag" = before ] && b=$(cd "$BASELINE_BUILD" && pwd)
			kind_rows "$b" "$tag" "$kind"
		done
	done
	echo
	echo "| build | fault | runs | median suspicion (s) | median report (s) | median end (s) |"
	echo "|---|---|---|---|---|---|"
	for kind in $KINDS; do
		for tag in $tags; do
			echo "| $tag | $kind | $(grep -c . "$WORK/$tag-$kind.rep") | $(median_of "$WORK/$tag-$kind.susp") | $(median_of "$WORK/$tag-$kind.rep") | $(median_of "$WORK/$tag-$kind.end") |"
		done
	done
	[ -n "${BASELINE_BUILD:-}" ] && echo && echo "before: $(git -C "$BASELINE_BUILD/.." rev-parse --short HEAD 2>/dev/null || echo "$BASELINE_BUILD")"
	if [ "${EARLY_HEALTHY_RUNS:-2}" -gt 0 ]; then
		[ "${EARLY_MEMORY:-1}" = 1 ] && [ ! -d "$WORK/memory" ] && remember >&2
		cat <<EOF

## Healthy jobs with pauses, afresh and with the memory

The same stencil, healthy: a rank drawn per run pauses (sleeps outside MPI) from 6 s in, or no
pause; the job ends by itself. Afresh (\`after\`) and from the remembered model (\`memory\`),
the two at once. A suspicion costs one line; a verdict other than "none" would be a healthy job
ended.

| build | job | run | verdict | suspicions raised | model remembered |
|---|---|---|---|---|---|
EOF
		healthy_rows
	fi
} >"$RESULTS/$NAME.md"
say "wrote $RESULTS/$NAME.md"
