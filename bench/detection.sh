# SPDX-License-Identifier: BSD-3-Clause
# detection.sh — the detection campaign, with the paper's definitions: runs with a fault injected
# at a random time on a random rank, watched by `parastack run` at its defaults (the 60 s
# confirmation window included); hang accuracy
# AC_h (hangs detected after the fault / runs), faulty-rank accuracy AC_f (runs whose report names
# the injected rank / hangs detected) and precision PR_f (mean of 1/x over detected hangs, x the
# ranks reported, 0 when the injected one is missing), response delay (fault to verdict), and
# false alarms over healthy runs that look hung for a while (a rank pausing in its own code,
# long phases of real data exchange, a job that lives in MPI). Two delays: to the suspicion and
# to the confirmed hang (end to end). LAMMPS from Debian is faulted unmodified: one rank is
# SIGSTOPped while `parastack stack` shows it in application code. Writes results/detection.md,
# the delay histogram results/detection-delays.svg and example plots of recorded traces.
. "$(dirname "$0")/lib.sh"
NP=4
RUN=0
: >"$WORK/runs.tsv"

# record APP KIND RANK FAULT_UNIX START END RC REPORT TRACE [OUT]: one line of runs.tsv.
record() {
	verdict=none detected=- faulty=- type=- named=0 confirmed=- moved=0
	[ -n "${10:-}" ] && moved=$(grep -c "moved on" "${10}")
	if [ -s "$8" ]; then
		verdict=$(jq -r '.verdict' "$8")
		detected=$(jq -r '.confirmation.suspected_at // "-"' "$8")
		confirmed=$(jq -r '.confirmation.confirmed_at // "-"' "$8")
		faulty=$(jq -r '(.faulty_ranks // []) | map(tostring) | join(",") | if . == "" then "none" else . end' "$8")
		type=$(jq -r '.hang_type // "-"' "$8")
		# A rank that left early is not OUT_MPI; the diagnosis names it instead.
		named=$(jq -r --arg r "$3" '[.diagnosis[]? | select(test("MPI_Finalize while|exited|died")) |
			select(test("rank\\(s\\) ([0-9,-]*[^0-9])?" + $r + "([^0-9]|$)"))] | length' "$8")
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" \
		"$verdict" "$detected" "$faulty" "$type" "${named:-0}" "$confirmed" "${moved:-0}" >>"$WORK/runs.tsv"
	# Labels may hold spaces and slashes: the file name keeps letters, digits, - and _.
	[ -s "$9" ] && cp "$9" "$WORK/trace-$(printf '%s' "$1" | tr -c 'A-Za-z0-9_-' '_')-$2-$RUN.trace"
}

# faulted APP KIND AFTER_LO AFTER_HI [RANKS [LABEL]]: one run of a test application with a fault
# (RANKS, default NP: 8 on this machine's 2 cores is a job that lives in MPI; LABEL names the
# row of the table, default APP).
faulted() {
	RUN=$((RUN + 1))
	np=${5:-$NP}
	rank=$(randint 0 $((np - 1)))
	after=$(rand "$3" "$4")
	log=$WORK/fault-$RUN.log rep=$WORK/report-$RUN.json tr=$WORK/run-$RUN.trace
	say "detection: run $RUN: $1 $2 on rank $rank after $after s"
	start=$(now)
	bg "$WORK/run-$RUN.out" env PS_FAULT="$2" PS_FAULT_RANK="$rank" PS_FAULT_AFTER="$after" \
		PS_FAULT_LOG="$log" "$PARASTACK" run --seed "$RUN" --report "$rep" --trace "$tr" \
		-- mpirun --oversubscribe --bind-to none -np "$np" "$APPS/$1"
	finish_bg "$BG" "$(awk -v a="$after" 'BEGIN { printf "%d", a + 240 }')"
	fault=$(cut -d' ' -f1 "$log" 2>/dev/null | head -n 1)
	record "${6:-$1}" "$2" "$rank" "${fault:--}" "$start" "$(now)" "$RC" "$rep" "$tr" "$WORK/run-$RUN.out"
}

# lammps_stopped AFTER_LO AFTER_HI: LAMMPS with one rank SIGSTOPped in application code.
lammps_stopped() {
	RUN=$((RUN + 1))
	rank=$(randint 0 $((NP - 1)))
	after=$(rand "$1" "$2")
	pids=$WORK/lmp-pids-$RUN rep=$WORK/report-$RUN.json tr=$WORK/run-$RUN.trace
	say "detection: run $RUN: LAMMPS, rank $rank stopped after $after s"
	start=$(now)
	bg "$WORK/run-$RUN.out" env PS_RANK_PIDS="$pids" "$PARASTACK" run --seed "$RUN" --report "$rep" \
		--trace "$tr" -- mpirun --oversubscribe --bind-to none -np $NP \
		sh "$ROOT/bench/rank-pid.sh" lmp -in "$ROOT/bench/in.lj" -var steps 100000000 -log none
	job=$BG
	fault=- pid=
	until [ "$(awk -v s="$start" -v a="$after" -v n="$(now)" 'BEGIN { print (n >= s + a) }')" = 1 ]; do
		sleep 0.2
	done
	pid=$(awk -v r="$rank" '$1 == r { print $2 }' "$pids" 2>/dev/null)
	for _ in $(seq 200); do
		[ -n "$pid" ] || break
		if [ "$("$PARASTACK" stack --json "$pid" 2>/dev/null | jq -r '.[0].state')" = OUT_MPI ]; then
			kill -STOP "$pid"
			fault=$(now)
			# The check and the stop race; confirm it stopped in application code.
			[ "$("$PARASTACK" stack --json "$pid" 2>/dev/null | jq -r '.[0].state')" = OUT_MPI ] && break
			kill -CONT "$pid"
			fault=-
		fi
		sleep 0.05
	done
	finish_bg "$job" 240
	[ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null
	record lammps sigstop "$rank" "$fault" "$start" "$(now)" "$RC" "$rep" "$tr" "$WORK/run-$RUN.out"
}


# healthy LABEL CMD...: one run that ends by itself, watched by parastack.
healthy() {
	RUN=$((RUN + 1))
	label=$1
	shift
	rep=$WORK/report-$RUN.json tr=$WORK/run-$RUN.trace
	say "detection: run $RUN: $label, healthy"
	start=$(now)
	bg "$WORK/run-$RUN.out" "$PARASTACK" run --seed "$RUN" --report "$rep" --trace "$tr" -- "$@"
	finish_bg "$BG" 1800
	record "$label" healthy - - "$start" "$(now)" "$RC" "$rep" "$tr" "$WORK/run-$RUN.out"
}

# BENCH_RUNS=FILE: no runs; the tables again from the runs of an earlier campaign (the block
# at the end of its detection.md, saved as FILE), for a change of the analysis alone.
if [ -n "${BENCH_RUNS:-}" ]; then
	cp "$BENCH_RUNS" "$WORK/runs.tsv"
else
	N=$(pick 1 10)
	say "detection: $N run(s) per fault kind; healthy runs; LAMMPS"
	for _ in $(seq "$N"); do
		for kind in spin sleep deadlock skip exit io; do
			faulted stencil "$kind" 15 25
		done
		# Hangs with no history: a collective skipped right after MPI_Init.
		faulted stencil skip 1 2 "$NP" "stencil, 1-2 s in"
		faulted phases spin 40 55
		lammps_stopped 20 30
		if [ "$BENCH" = full ]; then
			# Early (no history) and late, every kind; and 8 ranks on 2 cores.
			for kind in spin sleep deadlock skip io; do
				faulted stencil "$kind" 1 2 "$NP" "stencil, 1-2 s in"
				faulted stencil "$kind" 110 130 "$NP" "stencil, 110-130 s in"
				faulted stencil "$kind" 25 35 8 "stencil, 8 ranks"
			done
		fi
	done
	MPIRUN="mpirun --oversubscribe --bind-to none -np $NP"
	# shellcheck disable=SC2086
	healthy stencil env PS_ITERS="$(pick 500 6000)" $MPIRUN "$APPS/stencil"
	# shellcheck disable=SC2086
	healthy phases env PS_ITERS="$(pick 4 60)" $MPIRUN "$APPS/phases"
	# shellcheck disable=SC2086
	healthy lammps $MPIRUN lmp -in "$ROOT/bench/in.lj" -var steps "$(pick 1500 20000)" -log none
	# Healthy jobs that look hung for a while. A rank pausing in its own code (a checkpoint write)
	# for P seconds at T s into the job (the job then runs about 30 s more, 40 ms per iteration):
	for at in $(pick 30 "30 120"); do
		for p in $(pick 40 "5 10 20 40"); do
			# shellcheck disable=SC2086
			healthy "stencil, rank 1 pauses ${p} s at ${at} s" env PS_FAULT=stall PS_FAULT_RANK=1 \
				PS_STALL="$p" PS_FAULT_AFTER="$at" PS_ITERS=$(((at + 30) * 25)) $MPIRUN "$APPS/stencil"
		done
	done
	# Phases of 10 s of real data exchange (4 MiB blocks of MPI_Alltoall) and 10 s of compute.
	# shellcheck disable=SC2086
	healthy "phases, 10 s Alltoall / 10 s compute" env PS_COMPUTE=10 PS_COMM=10 PS_A2A_KB=4096 \
		PS_ITERS="$(pick 4 30)" $MPIRUN "$APPS/phases"
	# 8 ranks on this machine's cores: most of the time in MPI.
	# shellcheck disable=SC2086
	healthy "stencil, 8 ranks (lives in MPI)" env PS_ITERS="$(pick 1500 15000)" \
		mpirun --oversubscribe --bind-to none -np 8 "$APPS/stencil"
fi

# --- tables -----------------------------------------------------------------------------------
# Per application and fault: app, kind, runs, T_h, false alarms, type right, sum of 1/x, T_f,
# runs whose fault never fired, and the delays.
analyse() {
	awk -F'\t' '
	function expect(k) { return (k == "spin" || k == "sleep" || k == "sigstop") ? "computation" : k == "io" ? "io" : "communication" }
	$2 != "healthy" {
		key = $1 SUBSEP $2
		if (!(key in runs)) name[++n] = key
		runs[key]++
		if ($8 == "hang" && $4 != "-" && $9 + 0 >= $4 - 1) {
			th[key]++
			d = $9 - $4; if (d < 0) d = 0
			delays[key] = delays[key] " " d
			if ($13 != "-") e2e[key] = e2e[key] " " ($13 - $4)
			typeok[key] += ($11 == expect($2))
			x = split($10, f, ",")
			hit = 0
			for (i = 1; i <= x; i++) if (f[i] == $3) hit = 1
			if (hit) { tf[key]++; pr[key] += 1 / x }
			else if ($2 == "exit" && $12 > 0) tf[key]++
		} else if ($8 == "hang") fa[key]++
		else if ($4 == "-") nofault[key]++
	}
	END {
		for (i = 1; i <= n; i++) {
			k = name[i]
			split(k, a, SUBSEP)
			printf "%s\t%s\t%d\t%d\t%d\t%d\t%.4f\t%d\t%d\t%s\t%s\n", a[1], a[2], runs[k], th[k], fa[k], typeok[k], pr[k], tf[k], nofault[k], delays[k], e2e[k]
		}
	}' "$WORK/runs.tsv"
}

detection_table() {
	analyse | while IFS='	' read -r app kind runs th fa typeok pr tf nofault delays e2e; do
		st=$(printf '%s\n' $delays | grep . | stats)
		se=$(printf '%s\n' $e2e | grep . | stats)
		if [ "$kind" = exit ]; then
			acf=$(awk -v a="$tf" -v b="$th" 'BEGIN { if (b) printf "%d/%d named", a, b; else printf "-" }')
			prf="n/a"
		else
			acf=$(awk -v a="$tf" -v b="$th" 'BEGIN { if (b) printf "%d/%d", a, b; else printf "-" }')
			prf=$(awk -v a="$pr" -v b="$th" 'BEGIN { if (b) printf "%.2f", a / b; else printf "-" }')
		fi
		note=""
		[ "$nofault" -gt 0 ] && note=" ($nofault without the fault firing)"
		echo "$st $se" | awk -v app="$app" -v k="$kind$note" -v r="$runs" -v th="$th" -v fa="$fa" \
			-v t="$typeok" -v acf="$acf" -v prf="$prf" \
			'{ printf "| %s | %s | %d | %d/%d | %d | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s |\n", app, k, r, th, r, fa, t, th, acf, prf, $4, $7, $6, $11, $14, $13 }'
	done
}

healthy_table() {
	echo "| application | runs | ended (false hangs) | suspicions dismissed | hours watched |"
	echo "|---|---|---|---|---|"
	awk -F'\t' '$2 == "healthy" { if (!($1 in r)) o[++n] = $1; r[$1]++; fa[$1] += ($8 == "hang"); mv[$1] += $14; h[$1] += ($6 - $5) / 3600 }
		END {
			for (i = 1; i <= n; i++) { a = o[i]; printf "| %s | %d | %d | %d | %.3f |\n", a, r[a], fa[a], mv[a], h[a]; tr += r[a]; tf += fa[a]; tm += mv[a]; th += h[a] }
			printf "| all | %d | %d | %d | %.3f |\n", tr, tf, tm, th
		}' "$WORK/runs.tsv"
}

{
	header "Detection: accuracy, faulty-rank identification, response delay, false alarms"
	cat <<EOF
Every run: \`parastack run\` at its defaults (alpha 0.001, I = 400 ms automatic, C = 10) over
\`mpirun -np $NP\` on this machine (the test applications oversubscribe its cores). A fault is
injected at a random time on a random rank (seeded: BENCH_SEED): in the test applications by
their PS_FAULT switch (spin/sleep: the rank loops or sleeps in its own code; deadlock: it waits
for a message never sent; skip: it skips a collective; exit: it leaves early); in LAMMPS (Debian's
\`lmp\`, unmodified) by SIGSTOP of one rank at a moment \`parastack stack\` shows it in application
code. Definitions as the paper's: AC_h = hangs detected after the fault / runs; AC_f = runs whose
faulty ranks include the injected one / hangs detected; PR_f = mean over detected hangs of 1/x
(x ranks reported; 0 if the injected rank is not among them). In a communication hang nobody is
outside MPI: its culprits are named by the wait-for analysis of the recording layer
(libparastack-mpi.so, which \`parastack run\` preloads), and AC_f/PR_f count those (a deadlock's
two ranks give 0.50); "type right" says the report calls it communication; io (a rank stuck in
uninterruptible sleep, as on a hung file system) counts its own type. A rank that exits early
is not outside MPI either (it waits in MPI_Finalize or is gone); for it AC_f counts the report
naming it (faulty ranks, or the diagnosis: "already called MPI_Finalize", "exited").
Delays: from the fault firing (its own log line) to the suspicion (\`confirmation.suspected_at\`: when the suspicion line was printed; before issue 41 the reports said the time its window opened), and to the
confirmed hang (\`confirmation.confirmed_at\`: end to end, after the 60 s window; the job is
ended right after). A fault 1-2 s after start is a hang with no history, confirmed on progress
evidence alone. phases has compute and communication phases of seconds each: the model has to double the
interval before it trusts its samples, so its faults come later and take longer to confirm.

| application | fault | runs | AC_h | false alarms | type right | AC_f | PR_f | suspicion median s | p90 | max | end to end median s | p90 | max |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
	detection_table
	echo
	echo "### Healthy runs, some that look hung for a while"
	echo
	echo "A suspicion that the confirmation window dismissed prints one line (\"moved on\") and the"
	echo "job runs on; \"ended\" counts healthy jobs that parastack would have ended."
	echo
	healthy_table
	echo
	echo "A few healthy minutes say little about a rate of alarms; [false-alarms.md](false-alarms.md)"
	echo "replays recorded healthy traces over thousands of seeds for that."
	echo
	echo "Delay distribution (the paper's Figure 9): [detection-delays.svg](detection-delays.svg)."
	echo "What the model saw in two of the runs, drawn by \`parastack plot\`:"
	echo "[stencil, spin](example-stencil-spin.svg), [phases, spin](example-phases-spin.svg)."
	echo
	echo "Every run (application, fault, rank, fault time, start, end, exit status, verdict,"
	echo "suspected at, faulty ranks, hang type, diagnosis names the rank, confirmed at, suspicions"
	echo "dismissed):"
	echo
	echo '```'
	cat "$WORK/runs.tsv"
	echo '```'
} >"$RESULTS/detection.md"

# The delay histogram, 1-second bins, every detected hang.
analyse | cut -f10 | tr ' ' '\n' | grep . >"$WORK/delays.txt"
if [ -s "$WORK/delays.txt" ]; then
	{
		svg_preamble "$RESULTS/detection-delays.svg" "Response delay over $(grep -c . "$WORK/delays.txt") detected hangs (fault to verdict)"
		cat <<EOF
set xlabel 'response delay (s)'
set ylabel 'runs'
set boxwidth 0.9 relative
set style fill solid 0.6
set yrange [0:*]
set grid ytics
bin(x) = floor(x) + 0.5
plot '$WORK/delays.txt' using (bin(\$1)):(1) smooth frequency with boxes lc rgb '#1f5fa8' notitle
EOF
	} | gnuplot
fi
for ex in $([ -z "${BENCH_RUNS:-}" ] && echo stencil-spin phases-spin); do
	t=$(ls "$WORK"/trace-"$ex"-*.trace 2>/dev/null | head -n 1)
	[ -n "$t" ] && "$PARASTACK" plot -o "$RESULTS/example-$ex.svg" --title "parastack on $ex (a recorded run)" "$t" >&2
done
say "detection: wrote $RESULTS/detection.md"
