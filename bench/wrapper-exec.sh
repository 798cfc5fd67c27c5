# SPDX-License-Identifier: BSD-3-Clause
# wrapper-exec.sh — ranks started through a wrapper script that ends in `exec "$@"` (issue 72),
# as users wrap ranks for numactl, a container, an environment module: NPB FT's shape at 16
# ranks (tests/apps/subcomm.c, PS_SHAPE=dup), one rank skipping its 12th MPI_Alltoall (the
# injector, tests/fixtures/psinject.c), and one other rank's wrapper waiting WRAP_DELAY seconds
# (default 2) before its exec, so that discovery meets that rank as the shell. Per run: the
# skipping and the late rank (drawn from the seeded sequence), the faulty ranks named, the first
# culprit's evidence, the ranks not sampled. A run is exact when the faulty ranks are exactly the
# skipping rank and no rank is UNKNOWN.
# Runs: WRAP_RUNS, default 10. BASELINE_BUILD=DIR also runs an older build (the same runs, the
# same draws) for the before/after columns. Writes results/wrapper-exec.md.
. "$(dirname "$0")/lib.sh"
RUNS=${WRAP_RUNS:-10}
DELAY=${WRAP_DELAY:-2}
WRAP=$WORK/slow-exec.sh
printf '#!/bin/sh\n[ "$OMPI_COMM_WORLD_RANK" = "$PS_SLOW_RANK" ] && sleep "$PS_WRAP_DELAY"\nexec "$@"\n' >"$WRAP"
chmod +x "$WRAP"

# one BUILD_DIR SEED SKIPPER LATE NAME: one run; its line's columns after the draws.
one() {
	b=$1 seed=$2 skipper=$3 late=$4 name=$5
	bg "$WORK/$name.out" timeout 240 "$b/parastack" run --seed "$seed" --confirm 5 --report "$WORK/$name.json" \
		-- mpirun --oversubscribe -np 16 -x LD_PRELOAD="$b/tests/libpsinject.so" -x PS_SHAPE=dup \
		-x PS_INJECT_FUNC=alltoall -x PS_INJECT_KIND=skip -x PS_INJECT_RANK="$skipper" -x PS_INJECT_CALL=12 \
		-x PS_SLOW_RANK="$late" -x PS_WRAP_DELAY="$DELAY" "$WRAP" "$b/tests/apps/subcomm"
	finish_bg "$BG" 260
	jq -r --argjson s "$skipper" '[(.faulty_ranks | map(tostring) | join(",")), (.culprits[0].evidence // "-"),
		([.ranks[] | select(.state == "UNKNOWN") | .rank | tostring] | join(",") | if . == "" then "none" else . end),
		(if .faulty_ranks == [$s] and ([.ranks[] | select(.state == "UNKNOWN")] == []) then "yes" else "no" end)]
		| join(" | ")' "$WORK/$name.json" 2>/dev/null || echo "no report (exit $RC) | - | - | no"
}

{
	header "Ranks through a wrapper whose exec comes late"
	cat <<EOF
NPB FT's shape at 16 ranks on $(nproc) cores (\`tests/apps/subcomm\`, \`PS_SHAPE=dup\`), started as
\`mpirun -np 16 ... slow-exec.sh subcomm\` where \`slow-exec.sh\` is \`[ rank = LATE ] && sleep $DELAY; exec "\$@"\`;
the skipping rank skips its 12th \`MPI_Alltoall\` on FT's duplicate of the world. \`parastack run
--confirm 5\`, the seed of each run its own. Exact: faulty ranks exactly the skipping rank, no rank
UNKNOWN. Reproduce: \`sh bench/wrapper-exec.sh\` (\`BASELINE_BUILD=DIR\` adds an older build's runs).

EOF
	if [ -n "${BASELINE_BUILD:-}" ]; then
		echo "| run | seed | skipping rank | late rank | before: faulty | evidence | UNKNOWN | exact | after: faulty | evidence | UNKNOWN | exact |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	else
		echo "| run | seed | skipping rank | late rank | faulty | evidence | UNKNOWN | exact |"
		echo "|---|---|---|---|---|---|---|---|"
	fi
	exact=0 exact_before=0
	for k in $(seq 1 "$RUNS"); do
		seed=$((k * 7 + 1))
		skipper=$(randint 0 15)
		late=$(randint 0 15)
		[ "$late" = "$skipper" ] && late=$(((late + 8) % 16))
		say "run $k of $RUNS: rank $skipper skips, rank $late's exec comes ${DELAY} s late"
		after=$(one "$BUILD" "$seed" "$skipper" "$late" "after$k")
		case $after in *"| yes") exact=$((exact + 1)) ;; esac
		if [ -n "${BASELINE_BUILD:-}" ]; then
			before=$(one "$(cd "$BASELINE_BUILD" && pwd)" "$seed" "$skipper" "$late" "before$k")
			case $before in *"| yes") exact_before=$((exact_before + 1)) ;; esac
			echo "| $k | $seed | $skipper | $late | $before | $after |"
		else
			echo "| $k | $seed | $skipper | $late | $after |"
		fi
	done
	echo
	if [ -n "${BASELINE_BUILD:-}" ]; then
		echo "Exact: **$exact of $RUNS** runs (the baseline build, $(git -C "$BASELINE_BUILD/.." rev-parse --short HEAD 2>/dev/null || echo "$BASELINE_BUILD"): $exact_before of $RUNS)."
	else
		echo "Exact: **$exact of $RUNS** runs."
	fi
} >"$RESULTS/wrapper-exec.md"
say "wrote $RESULTS/wrapper-exec.md"
