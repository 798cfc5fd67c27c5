# SPDX-License-Identifier: BSD-3-Clause
# livesinmpi.sh — hangs in jobs that live in MPI (issue 24): the stencil with little compute per
# iteration (PS_WORK, default 0.005: its ranks wait in MPI over 90 % of the time) at 8 and 16
# ranks on this machine's cores (4x and 8x oversubscribed), watched by `parastack run` at its
# defaults (alpha 0.001, the 60 s confirmation window). Per fault (a skipped Allreduce; a receive
# nobody matches), at a random time 25-45 s in on a random rank, >= 5 runs per row: hangs
# detected, which detector suspected (the model of S or the stall model), the delay from the
# fault to the suspicion and to the confirmed hang, and the sampling the monitor achieved
# (mean interval, how late samples were taken). Then healthy runs of the same jobs, minutes
# each: suspicions dismissed and jobs ended (none may be). Then shapes the stencil is not
# (issue 36, tests/apps/shapes.c, no faults.h): a ring Sendrecv + Allreduce, an
# Isend/Irecv/Waitall halo + Allreduce, an Alltoall-bound transpose, a pure collective loop, at
# 8 and 16 ranks, under Open MPI and MPICH; a rank skips one collective from outside (psinject)
# at a random rank and moment; and their healthy runs. Writes results/livesinmpi.md.
#   SHAPE_RUNS=N   faulted runs per (shape, ranks, MPI) row (default 5, 10 with BENCH=full)
#   SHAPE_HEALTHY_S=S  seconds of each healthy shape run (default 120, 300 with BENCH=full)
#   SHAPES="ring halo" MPIS="ompi" NPS="8"   narrow the rows; STENCIL=0 skips the stencil rows
#   BENCH_STATE=DIR    keep the campaign across sessions (lib.sh): the same command again goes
#                      on where it stopped
. "$(dirname "$0")/lib.sh"
RUN=0
WORK_SCALE=${PS_WORK:-0.005}
# The code the numbers are of: a campaign in BENCH_STATE resumes only over the same (lib.sh).
state_begin base monitor stats record launcher inspect sched tests/apps tests/fixtures bench/livesinmpi.sh bench/lib.sh
state_params "bench=$BENCH stencil=${STENCIL:-1} shapes=${SHAPES:-ring halo alltoall collective} mpis=${MPIS:-ompi mpich} nps=${NPS:-8 16} shape_runs=${SHAPE_RUNS:-$(pick 5 10)} healthy_s=${SHAPE_HEALTHY_S:-$(pick 120 300)} work=$WORK_SCALE seed=${BENCH_SEED:-1}"
[ -n "${BENCH_STATE:-}" ] || : >"$STATE/runs.tsv"
touch "$STATE/runs.tsv"

# one LABEL NP KIND|healthy ITERS: one run; a line of runs.tsv.
one() {
	RUN=$((RUN + 1))
	np=$2 kind=$3
	rank=$(randint 0 $((np - 1)))
	after=$(rand 25 45)
	log=$WORK/fault-$RUN.log rep=$WORK/report-$RUN.json
	state_has runs.tsv 16 "$RUN" && return 0
	if [ "$kind" = healthy ]; then
		say "livesinmpi: run $RUN: $1, healthy, $4 iterations"
		set -- "$1" "$np" "$kind" "$4" env PS_ITERS="$4"
	else
		say "livesinmpi: run $RUN: $1, $kind on rank $rank after $after s"
		set -- "$1" "$np" "$kind" "$4" env PS_FAULT="$kind" PS_FAULT_RANK="$rank" PS_FAULT_AFTER="$after" PS_FAULT_LOG="$log"
	fi
	label=$1
	shift 4
	start=$(now)
	bg "$WORK/run-$RUN.out" "$@" PS_WORK="$WORK_SCALE" "$PARASTACK" run --seed "$RUN" --report "$rep" \
		-- mpirun --oversubscribe --bind-to none -np "$np" "$APPS/stencil"
	finish_bg "$BG" 1800
	fault=$(cut -d' ' -f1 "$log" 2>/dev/null | head -n 1)
	moved=$(grep -c "moved on" "$WORK/run-$RUN.out")
	if [ -s "$rep" ]; then
		jq -r --arg l "$label" --arg k "$kind" --arg r "$rank" --arg f "${fault:--}" --arg s "$start" \
			--arg e "$(now)" --arg m "$moved" --arg n "$RUN" \
			'[$l, $k, $r, $f, $s, $e, .verdict, (.confirmation.suspected_at // "-"), (.confirmation.confirmed_at // "-"),
			  (.confirmation.basis // "-"), ((.faulty_ranks // []) | map(tostring) | join(",") | if . == "" then "none" else . end),
			  (.model.sampling.interval_achieved_ms // "-"), (.model.sampling.late_ms_mean // "-"),
			  (.model.sampling.late_ms_max // "-"), $m, $n] | map(tostring) | join("\t")' "$rep" >>"$STATE/runs.tsv"
	else
		printf '%s\t%s\t%s\t%s\t%s\t%s\tnone\t-\t-\t-\tnone\t-\t-\t-\t%s\t%s\n' "$label" "$kind" "$rank" \
			"${fault:--}" "$start" "$(now)" "$moved" "$RUN" >>"$STATE/runs.tsv"
	fi
}

# BENCH_RUNS=FILE: no runs; the tables again from an earlier campaign's runs (the block at the
# end of its livesinmpi.md, saved as FILE), for a change of the analysis alone.
if [ -n "${BENCH_RUNS:-}" ]; then
	cp "$BENCH_RUNS" "$STATE/runs.tsv"
else
N=$(pick 5 10)
[ "${STENCIL:-1}" = 0 ] && N=0
for _ in $(seq "$N"); do
	for kind in skip deadlock; do
		one "8 ranks" 8 "$kind" -1
		one "16 ranks" 16 "$kind" -1
	done
done
# Healthy: minutes each (measured here: about 950 iterations a second at 8 ranks, 1250 at 16).
for _ in $(seq "$([ "${STENCIL:-1}" = 0 ] && echo 0 || pick 1 6)"); do
	one "8 ranks" 8 healthy "$(pick 570000 1700000)"
	one "16 ranks" 16 healthy "$(pick 750000 2200000)"
done
fi

# shape_run SHAPE NP MPI KIND: one run of tests/apps/shapes.c; KIND skip (a random rank skips
# one collective, injected from outside 25-45 s in) or healthy (SHAPE_HEALTHY_S seconds, then
# the launcher is stopped and the run read: no hang may have been reported). A line of
# shapes.tsv: shape, np, mpi, kind, rank, fault time, start, end, verdict, suspected at,
# confirmed at, basis, faulty ranks, suspicions dismissed, run (the key state_has reads).
shape_run() {
	RUN=$((RUN + 1))
	sh=$1 np=$2 mpi=$3 kind=$4
	rank=$(randint 0 $(($2 - 1)))
	after=$(rand 25 45)
	go=$WORK/go-$RUN rep=$WORK/report-$RUN.json out=$WORK/run-$RUN.out
	state_has shapes.tsv 15 "$RUN" && return 0
	func=allreduce
	[ "$sh" = alltoall ] && func=alltoall
	if [ "$mpi" = mpich ]; then
		inj=$BUILD/mpich/tests/libpsinject.so app=$BUILD/mpich/tests/apps/shapes
		set -- mpiexec.mpich -n "$np" -genv LD_PRELOAD "$inj" -genv PS_INJECT_RANK "$rank" \
			-genv PS_INJECT_CALL 1 -genv PS_INJECT_WHEN "$go" -genv PS_INJECT_FUNC "$func" "$app" "$sh"
	else
		inj=$BUILD/tests/libpsinject.so app=$APPS/shapes
		set -- mpirun --oversubscribe --bind-to none -np "$np" -x LD_PRELOAD="$inj" -x PS_INJECT_RANK="$rank" \
			-x PS_INJECT_CALL=1 -x PS_INJECT_WHEN="$go" -x PS_INJECT_FUNC="$func" "$app" "$sh"
	fi
	[ "$kind" = healthy ] && rank=-
	say "livesinmpi: run $RUN: $sh, $np ranks, $mpi, $kind$([ "$rank" = - ] || echo " on rank $rank")"
	start=$(now)
	bg "$out" "$PARASTACK" run --seed "$RUN" --report "$rep" -- "$@"
	run_pid=$BG
	fault=-
	if [ "$kind" = skip ]; then
		sleep "$after"
		fault=$(now)
		touch "$go"
		finish_bg "$run_pid" 900
	else
		sleep "${SHAPE_HEALTHY_S:-$(pick 120 300)}"
		# A healthy job runs forever: ending it is the bench's doing, after reading its state.
		finish_bg "$run_pid" 1
	fi
	moved=$(grep -c "moved on" "$out")
	if [ -s "$rep" ]; then
		jq -r --arg a "$sh" --arg n "$np" --arg m "$mpi" --arg k "$kind" --arg r "$rank" --arg f "$fault" \
			--arg s "$start" --arg e "$(now)" --arg d "$moved" --arg u "$RUN" \
			'[$a, $n, $m, $k, $r, $f, $s, $e, .verdict, (.confirmation.suspected_at // "-"),
			  (.confirmation.confirmed_at // "-"), (.confirmation.basis // "-"),
			  ((.faulty_ranks // []) | map(tostring) | join(",") | if . == "" then "none" else . end), $d, $u]
			 | map(tostring) | join("\t")' "$rep" >>"$STATE/shapes.tsv"
	else
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\tnone\t-\t-\t-\tnone\t%s\t%s\n' "$sh" "$np" "$mpi" "$kind" \
			"$rank" "$fault" "$start" "$(now)" "$moved" "$RUN" >>"$STATE/shapes.tsv"
	fi
}

[ -n "${BENCH_STATE:-}" ] || : >"$STATE/shapes.tsv"
touch "$STATE/shapes.tsv"
if [ -n "${BENCH_SHAPE_RUNS:-}" ]; then
	cp "$BENCH_SHAPE_RUNS" "$STATE/shapes.tsv"
elif [ -z "${BENCH_RUNS:-}" ]; then
	for sh in ${SHAPES:-ring halo alltoall collective}; do
		for mpi in ${MPIS:-ompi mpich}; do
			[ "$mpi" = mpich ] && ! command -v mpiexec.mpich >/dev/null 2>&1 && continue
			for np in ${NPS:-8 16}; do
				for _ in $(seq "${SHAPE_RUNS:-$(pick 5 10)}"); do
					shape_run "$sh" "$np" "$mpi" skip
				done
				shape_run "$sh" "$np" "$mpi" healthy
			done
		done
	done
fi

shapes_table() {
	echo "| shape | ranks | MPI | runs | hangs suspected and confirmed | injected rank named | by the model / stall model / evidence | suspicion median s | max | healthy runs | minutes watched | false hangs | suspicions dismissed |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' '{ print $1 "\t" $2 "\t" $3 }' "$STATE/shapes.tsv" | awk '!seen[$0]++' | while IFS=$(printf '\t') read -r sh np mpi; do
		awk -F'\t' -v a="$sh" -v n="$np" -v m="$mpi" '$1 == a && $2 == n && $3 == m' "$STATE/shapes.tsv" >"$WORK/srows"
		sd=$(awk -F'\t' '$4 == "skip" && $9 == "hang" && $10 != "-" { print $10 - $6 }' "$WORK/srows" | stats)
		awk -F'\t' -v a="$sh" -v n="$np" -v m="$mpi" -v sd="$sd" '
			$4 == "skip" { runs++; if ($9 == "hang" && $11 != "-") { hangs++; b[$12]++ }
				k = split($13, f, ","); for (i = 1; i <= k; i++) if (f[i] == $5) { named++; break } }
			$4 == "healthy" { h++; mins += ($8 - $7) / 60; fh += ($9 == "hang"); dis += $14 }
			END { split(sd, s, " ")
				printf "| %s | %s | %s | %d | %d/%d | %d/%d | %d / %d / %d | %s | %s | %d | %.1f | %d | %d |\n", a, n, m, runs,
					hangs, runs, named, runs, b["model"], b["stall model"], b["progress evidence"],
					s[4], s[6], h, mins, fh, dis }' "$WORK/srows"
	done
}

faulted_table() {
	echo "| job | fault | runs | hangs detected | suspected by the model / the stall model / progress evidence | injected rank named | suspicion median s | max | end to end median s | max | interval achieved ms | late mean ms | late max ms |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for job in "8 ranks" "16 ranks"; do
		for kind in skip deadlock; do
			awk -F'\t' -v j="$job" -v k="$kind" '$1 == j && $2 == k' "$STATE/runs.tsv" >"$WORK/rows"
			runs=$(grep -c . "$WORK/rows")
			hangs=$(awk -F'\t' '$7 == "hang" && $4 != "-" && $8 + 0 >= $4 - 1' "$WORK/rows" | grep -c .)
			bym=$(awk -F'\t' '$7 == "hang" && $10 == "model"' "$WORK/rows" | grep -c .)
			bys=$(awk -F'\t' '$7 == "hang" && $10 == "stall model"' "$WORK/rows" | grep -c .)
			bye=$(awk -F'\t' '$7 == "hang" && $10 == "progress evidence"' "$WORK/rows" | grep -c .)
			named=$(awk -F'\t' '$7 == "hang" { n = split($11, f, ","); for (i = 1; i <= n; i++) if (f[i] == $3) { c++; break } } END { print c + 0 }' "$WORK/rows")
			sd=$(awk -F'\t' '$7 == "hang" && $4 != "-" { print $8 - $4 }' "$WORK/rows" | stats)
			se=$(awk -F'\t' '$7 == "hang" && $4 != "-" && $9 != "-" { print $9 - $4 }' "$WORK/rows" | stats)
			iv=$(awk -F'\t' '$12 != "-" { print $12 }' "$WORK/rows" | stats | cut -d' ' -f2)
			lm=$(awk -F'\t' '$13 != "-" { print $13 }' "$WORK/rows" | stats | cut -d' ' -f2)
			lx=$(awk -F'\t' '$14 != "-" { print $14 }' "$WORK/rows" | stats | cut -d' ' -f6)
			echo "$sd $se" | awk -v j="$job" -v k="$kind" -v r="$runs" -v h="$hangs" -v m="$bym" -v s="$bys" -v e="$bye" \
				-v n="$named" -v iv="$iv" -v lm="$lm" -v lx="$lx" \
				'{ printf "| %s | %s | %d | %d/%d | %d / %d / %d | %d/%d | %s | %s | %s | %s | %s | %s | %s |\n", j, k, r, h, r, m, s, e, n, h, $4, $6, $11, $13, iv, lm, lx }'
		done
	done
}

healthy_table() {
	echo "| job | runs | ended (false hangs) | suspicions dismissed | minutes watched | interval achieved ms | late max ms |"
	echo "|---|---|---|---|---|---|---|"
	awk -F'\t' '$2 == "healthy" { if (!($1 in r)) o[++n] = $1; r[$1]++; fa[$1] += ($7 == "hang"); mv[$1] += $15; mn[$1] += ($6 - $5) / 60
			if ($12 != "-") { iv[$1] += $12; ni[$1]++ } if ($14 != "-" && $14 > lx[$1]) lx[$1] = $14 }
		END { for (i = 1; i <= n; i++) { a = o[i]; printf "| %s | %d | %d | %d | %.1f | %.0f | %.0f |\n", a, r[a], fa[a], mv[a], mn[a], ni[a] ? iv[a] / ni[a] : 0, lx[a] } }' "$STATE/runs.tsv"
}

{
	header "Hangs in jobs that live in MPI"
	cat <<EOF
The stencil (tests/apps/stencil.c) with PS_WORK=$WORK_SCALE: its ranks wait in MPI over 90 % of
the time, so S (ranks outside MPI among those sampled) is 0 in most healthy samples and the model
of S needs a long run of suspicions (its q is near 1) or never has a usable level. 8 and 16 ranks
on $(nproc) cores, \`parastack run\` at its defaults (alpha 0.001, 60 s confirmation window);
faults at a random time 25-45 s in on a random rank (seeded: BENCH_SEED): skip (the rank skips
an Allreduce: every other rank waits in it) and deadlock (the rank waits for a message never
sent). Delays from the fault firing (its own log line) to the suspicion (its line printed: \`confirmation.suspected_at\`) and to the confirmed hang.
"injected rank named": the report's faulty ranks include it (a deadlock's pair names two ranks).
The sampling columns: the mean interval between samples as taken (I = 400 ms planned), and how
late after its planned time a sample was taken, mean and worst over the runs (the monitor
waiting for a core among 8 or 16 busy ranks; it runs at nice -5 where permitted).

EOF
	faulted_table
	echo
	echo "### Healthy runs of the same jobs"
	echo
	healthy_table
	echo
	echo "### Shapes the stencil is not (issue 36)"
	echo
	echo "tests/apps/shapes.c, which knows nothing of parastack: each iteration a short sweep and the"
	echo "shape's communication (ring: MPI_Sendrecv both ways, then MPI_Allreduce; halo: the same with"
	echo "Isend/Irecv/Waitall; alltoall: an MPI_Alltoall transpose, then MPI_Allreduce; collective:"
	echo "MPI_Bcast, MPI_Allreduce, MPI_Barrier). A random rank skips one collective (the Allreduce; the"
	echo "Alltoall in the alltoall shape) 25-45 s in, injected from outside (tests/fixtures/psinject.c);"
	echo "\`parastack run\` at its defaults (60 s window). Suspicion delay: from the injection (the bench"
	echo "creating the file whose existence arms it) to the suspicion (\`confirmation.suspected_at\`)."
	echo "Healthy runs: watched SHAPE_HEALTHY_S seconds each, then stopped by the bench."
	echo
	shapes_table
	echo
	echo "Every shape run (shape, ranks, MPI, kind, rank, fault time, start, end, verdict, suspected at,"
	echo "confirmed at, basis, faulty ranks, suspicions dismissed, run):"
	echo
	echo '```'
	cat "$STATE/shapes.tsv"
	echo '```'
	echo
	echo "Every run (job, fault, rank, fault time, start, end, verdict, suspected at, confirmed at, basis,"
	echo "faulty ranks, interval achieved, late mean, late max, suspicions dismissed):"
	echo
	echo '```'
	cat "$STATE/runs.tsv"
	echo '```'
} >"$RESULTS/livesinmpi.md"
say "livesinmpi: wrote $RESULTS/livesinmpi.md"
