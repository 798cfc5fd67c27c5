# SPDX-License-Identifier: BSD-3-Clause
# field.sh — the field trial (issue 53): real codes nobody here wrote, from Debian's packages and
# unmodified — LAMMPS (lmp, C++: bench/in.lj), Quantum ESPRESSO (pw.x, Fortran modules: a Si MD
# run in k-point pools, -nk NP: without pools its ranks were in MPI 48 of 48 reads), CP2K
# (cp2k, Fortran modules: two waters, Born-Oppenheimer MD), HPCC (hpcc, C: HPL, PTRANS,
# RandomAccess, FFT, b_eff) — and an mpi4py program (bench/field/heat.py), at FIELD_NP
# ranks (default 8) under `parastack run` with the defaults a user gets. For each code: healthy
# runs watched FIELD_HEALTHY_S seconds each (stopped by the bench; the job must not be ended),
# and faults injected from outside at a random rank and moment (seeded, BENCH_SEED):
#   spin             the rank's main thread made to loop at the instruction it is at, in the
#                    code's own modules or its numerical libraries (bench/field_spin.c: "jmp ."
#                    written by ptrace)
#   sigstop          the rank stopped (SIGSTOP), kept where its stack (`parastack stack`) is out of MPI
#   skip-collective  the rank skips an MPI_Allreduce (tests/fixtures/psinject.c, preloaded)
#   wrong-tag-small  a receive (MPI_Irecv) of at most 4 KiB posted with a tag nobody sends
#   wrong-tag-large  the same for a receive of at least 16 KiB
#   alone            the rank enters an MPI_Barrier nobody else enters before an MPI_Allreduce
# The injector's faults fire at the rank's first matching call after the drawn moment
# (PS_INJECT_WHEN); one that never finds such a call is counted "not fired".
# Per (code, fault): runs, faults fired, hangs reported, the right type (computation for spin
# and sigstop, communication else), the injected rank named exactly / among others, evidence,
# the delay from the fault to the suspicion (median), and whether every name in the report is
# readable (no C++ symbol "_Z…" nor gfortran "_MOD_" left in it).
# FIELD_RUNS runs per row (1 quick, 5 full); FIELD_CODES, FIELD_FAULTS narrow a campaign;
# BENCH_STATE=DIR keeps it across sessions (lib.sh), each run's report and log in it (gzip).
# Writes results/field.md. Installs the codes it needs (scripts/install-deps --field).
. "$(dirname "$0")/lib.sh"
NP=${FIELD_NP:-8}
RUNS=${FIELD_RUNS:-$(pick 1 5)}
HEALTHY_S=${FIELD_HEALTHY_S:-$(pick 120 600)}
HEALTHY_RUNS=${FIELD_HEALTHY_RUNS:-1}
CODES=${FIELD_CODES:-lammps qe cp2k hpcc mpi4py}
FAULTS=${FIELD_FAULTS:-spin sigstop skip-collective wrong-tag-small wrong-tag-large alone}
INJ=$BUILD/tests/libpsinject.so
SPIN=$WORK/field_spin
RUN=0
"$ROOT/scripts/install-deps" --field >&2 || exit 1
cc -std=gnu11 -O2 -o "$SPIN" "$ROOT/bench/field_spin.c" || exit 1
state_begin base monitor stats record launcher inspect sched tests/fixtures bench/field.sh bench/field bench/field_spin.c bench/lib.sh
: >>"$STATE/field.tsv" # a campaign's lines kept; $WORK's file new
state_params "np=$NP runs=$RUNS healthy=$HEALTHY_S/$HEALTHY_RUNS codes=$CODES faults=$FAULTS seed=${BENCH_SEED:-1}"

# code_cmd CODE: its command line in its run directory (inputs written there by code_inputs).
code_cmd() {
	case $1 in
	lammps) echo "lmp -in $ROOT/bench/in.lj -var steps 100000000 -log none" ;;
	qe) echo "pw.x -nk $NP -in si.in" ;;
	cp2k) echo "cp2k -i h2o.inp" ;;
	hpcc) echo "hpcc" ;;
	mpi4py) echo "/usr/bin/python3 $ROOT/bench/field/heat.py" ;;
	esac
}
# code_words CODE: the modules that are the code's own, and the numerical libraries it computes
# in (field_spin's words): pw.x's own code is seldom where its ranks are; FFTW and BLAS are.
code_words() {
	case $1 in
	lammps) echo "liblammps /usr/bin/lmp" ;;
	qe) echo "/usr/bin/pw.x libfftw3 libblas liblapack libscalapack" ;;
	cp2k) echo "/usr/bin/cp2k libfftw3 libblas liblapack libscalapack libxc libint2" ;;
	hpcc) echo "/usr/bin/hpcc libblas liblapack" ;;
	mpi4py) echo "libpython3 /usr/bin/python3" ;;
	esac
}
# code_skips CODE FAULT: why FAULT cannot be injected into CODE ("" when it can). pw.x posts no
# MPI_Irecv in this run, with k-point pools or without (its FFTs use MPI_Alltoall): the
# injector never fired in 30 and 40 s of tries; a run would only wait out "not fired".
code_skips() {
	case $1:$2 in
	qe:wrong-tag-*) echo "pw.x posts no MPI_Irecv here (its FFTs use MPI_Alltoall)" ;;
	esac
}
# code_inputs CODE DIR: the input files it reads from its working directory.
code_inputs() {
	cp "$ROOT/bench/field/si.in" "$ROOT/bench/field/h2o.inp" "$2/"
	# HPL's process grid: P x Q = NP, P the largest divisor not above its square root.
	p=$(awk -v n="$NP" 'BEGIN { for (i = 1; i * i <= n; i++) if (n % i == 0) p = i; print p }')
	sed -e "s/^1 *Ps$/$p            Ps/" -e "s/^2 *Qs$/$((NP / p))            Qs/" \
		"$ROOT/bench/field/hpccinf.txt" >"$2/hpccinf.txt"
}
# fault_env FAULT: the injector's settings for a fault of the injector ("" for the others).
fault_env() {
	case $1 in
	skip-collective) echo "PS_INJECT_FUNC=allreduce PS_INJECT_KIND=skip" ;;
	wrong-tag-small) echo "PS_INJECT_FUNC=irecv PS_INJECT_KIND=tag PS_INJECT_MAXBYTES=4096" ;;
	wrong-tag-large) echo "PS_INJECT_FUNC=irecv PS_INJECT_KIND=tag PS_INJECT_MINBYTES=16384" ;;
	alone) echo "PS_INJECT_FUNC=allreduce PS_INJECT_KIND=alone" ;;
	esac
}
fault_type() {
	case $1 in spin | sigstop) echo computation ;; *) echo communication ;; esac
}

# start_job DIR CODE [ENV...]: the code under parastack run in DIR, its ranks' PIDs noted in
# DIR/pids (bench/rank-pid.sh); the job's PID in $JOB, the run's start in $T0.
start_job() {
	dir=$1 code=$2
	shift 2
	xs=""
	for e in "$@"; do xs="$xs -x $e"; done
	T0=$(now)
	# shellcheck disable=SC2086
	(cd "$dir" && exec env OMP_NUM_THREADS=1 PS_RANK_PIDS="$dir/pids" "$PARASTACK" run --seed "$RUN" \
		--report "$dir/report.json" -- mpirun --oversubscribe --bind-to none -np "$NP" -x OMP_NUM_THREADS \
		-x PS_RANK_PIDS $xs sh "$ROOT/bench/rank-pid.sh" $(code_cmd "$code")) >"$dir/job.out" 2>"$dir/err" &
	JOB=$!
	STARTED="$STARTED $JOB"
}

# until_time T: sleep until unix time T.
until_time() {
	while [ "$(awk -v t="$1" -v n="$(now)" 'BEGIN { print (n >= t) }')" = 0 ]; do sleep 0.2; done
}

# fault_by_hand FAULT DIR RANK: spin or stop the rank's process; the moment in DIR/fault. A stop
# is kept only when the stopped rank's stack is out of MPI: a code like LAMMPS at 8 ranks on 2
# cores spends most of its time in MPI, and a state read before the stop is stale by the time
# the signal lands (`parastack stack` takes a few hundred ms), so the rank is stopped first,
# read, and let go again when it was in MPI.
fault_by_hand() {
	pid=$(awk -v r="$3" '$1 == r { print $2 }' "$2/pids" 2>/dev/null)
	[ -n "$pid" ] || return 0
	# Tried for up to 4 minutes: pw.x at 8 ranks on 2 cores is in MPI 97 % of the time (a stop
	# lands out of MPI about once in 30), and a spin's tries take milliseconds each.
	give_up=$(($(date +%s) + 240))
	while [ "$(date +%s)" -lt "$give_up" ]; do
		if [ "$1" = spin ]; then
			# shellcheck disable=SC2046
			if "$SPIN" "$pid" $(code_words "$CODE") >"$2/spin" 2>&1; then
				echo "$(now) $3 spin" >"$2/fault"
				return 0
			fi
		elif kill -STOP "$pid" 2>/dev/null; then
			if [ "$("$PARASTACK" stack --json "$pid" 2>/dev/null | jq -r '.[0].state')" = OUT_MPI ]; then
				echo "$(now) $3 sigstop" >"$2/fault"
				STOPPED=$pid
				return 0
			fi
			kill -CONT "$pid"
		fi
		sleep 0.05
	done
}

# fault_fired DIR SECONDS: whether the fault fired (DIR/fault written) within SECONDS, or the job ended
# first; a fault that never fires leaves a healthy job that would run on to finish_bg's deadline.
fault_fired() {
	deadline=$(($(date +%s) + $2))
	while running "$JOB" && [ ! -s "$1/fault" ]; do
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.2
	done
	return 0
}

# readable REPORT-TEXT: yes when no mangled name is left in it.
readable() {
	if grep -Eq "(^|[ >(])_Z[NZ0-9]|_MOD_" "$1"; then echo no; else echo yes; fi
}

# one CODE FAULT: one run; a line of field.tsv.
one() {
	RUN=$((RUN + 1))
	rank=$(randint 0 $((NP - 1)))
	at=$(rand 20 "$(pick 60 120)")
	state_has field.tsv 3 "$RUN" && return 0
	CODE=$1
	dir=$WORK/run-$RUN
	rm -rf "$dir" && mkdir -p "$dir"
	code_inputs "$1" "$dir"
	say "field: run $RUN: $1, $2 on rank $rank at $at s"
	STOPPED=""
	# shellcheck disable=SC2046
	case $2 in
	spin | sigstop) start_job "$dir" "$1" ;;
	*) start_job "$dir" "$1" LD_PRELOAD="$INJ" PS_INJECT_RANK="$rank" PS_INJECT_CALL=1 \
		PS_INJECT_WHEN="$dir/go" PS_INJECT_LOG="$dir/fault" $(fault_env "$2") ;;
	esac
	until_time "$(awk -v s="$T0" -v a="$at" 'BEGIN { printf "%.3f", s + a }')"
	case $2 in
	spin | sigstop) fault_by_hand "$2" "$dir" "$rank" ;;
	*) : >"$dir/go" ;;
	esac
	# A fault not fired in 5 minutes ends the run ("not fired"), without waiting out the job.
	if fault_fired "$dir" 300; then
		finish_bg "$JOB" 900
		# No fault and a failure: the code failed by itself, measuring nothing (its input,
		# say). The campaign stops, with no line, so the same command goes on once mended.
		if [ ! -s "$dir/fault" ] && [ "$RC" != 0 ]; then
			say "field: run $RUN: $1 failed by itself (exit $RC) before its fault; its output ends:"
			tail -n 12 "$dir/job.out" "$dir/err" >&2
			exit 1
		fi
	else
		finish_bg "$JOB" 0
	fi
	[ -n "$STOPPED" ] && kill -CONT "$STOPPED" 2>/dev/null
	record "$1" "$2" "$rank" "$dir"
	keep "$dir"
}

# keep DIR: a campaign in BENCH_STATE keeps each run's report, output and fault moment.
keep() {
	[ -n "${BENCH_STATE:-}" ] || return 0
	mkdir -p "$STATE/${1##*/}"
	for f in fault spin pids; do [ -f "$1/$f" ] && cp "$1/$f" "$STATE/${1##*/}/"; done
	# The report and parastack's log, compressed: a campaign may be kept in the repository.
	for f in report.json err; do [ -f "$1/$f" ] && gzip -9 -c "$1/$f" >"$STATE/${1##*/}/$f.gz"; done
	rm -rf "$1"
}

# record CODE FAULT RANK DIR: the run's line: code, fault, run, rank, fired, outcome, type,
# faulty ranks, exact, among, evidence, delay to the suspicion, readable.
record() {
	rep=$4/report.json
	fired=no fault_t=
	[ -s "$4/fault" ] && fired=yes && fault_t=$(cut -d' ' -f1 "$4/fault" | head -n 1)
	if [ -s "$rep" ] && [ "$(jq -r .verdict "$rep")" = hang ]; then
		jq -r --arg c "$1" --arg f "$2" --arg n "$RUN" --argjson r "$3" --arg fired "$fired" \
			--arg ft "${fault_t:-}" --arg rd "$(readable "$4/err")" '
			[$c, $f, $n, ($r | tostring), $fired, "hang", .hang_type,
			 (.faulty_ranks | map(tostring) | join(",")),
			 (if .faulty_ranks == [$r] then 1 else 0 end),
			 (if (.faulty_ranks | index($r)) != null then 1 else 0 end),
			 ([.culprits[]?.evidence] | unique | join("+") | if . == "" then "-" else . end),
			 (if $ft != "" then (.confirmation.suspected_at - ($ft | tonumber) | . * 10 | round / 10 | tostring) else "-" end),
			 $rd] | @tsv' "$rep" >>"$STATE/field.tsv"
	else
		printf '%s\t%s\t%s\t%s\t%s\tno hang (exit %s)\t-\t-\t0\t0\t-\t-\t%s\n' "$1" "$2" "$RUN" "$3" "$fired" \
			"$RC" "$(readable "$4/err")" >>"$STATE/field.tsv"
	fi
}

# healthy CODE: the code watched HEALTHY_S seconds in all, then stopped by the bench; a code
# that ends by itself before (exit 0, not ended by parastack) is started again in the same
# directory, so its start and its I/O phases are watched more than once. A line of healthy.tsv:
# code, run, seconds watched, ended by parastack (1/0), suspicions dismissed, jobs started, the
# exit statuses of the jobs that ended by themselves.
healthy() {
	RUN=$((RUN + 1))
	state_has healthy.tsv 2 "$RUN" && return 0
	dir=$WORK/run-$RUN
	rm -rf "$dir" && mkdir -p "$dir"
	code_inputs "$1" "$dir"
	say "field: run $RUN: $1, healthy for $HEALTHY_S s"
	watched=0 ended=0 dismissed=0 jobs=0 exits=""
	while [ "$watched" -lt "$HEALTHY_S" ] && [ "$ended" = 0 ]; do
		jobs=$((jobs + 1))
		start_job "$dir" "$1"
		end=$(awk -v s="$T0" -v a="$((HEALTHY_S - watched))" 'BEGIN { printf "%.3f", s + a }')
		while running "$JOB" && [ "$(awk -v t="$end" -v n="$(now)" 'BEGIN { print (n >= t) }')" = 0 ]; do
			sleep 1
		done
		by_itself=yes
		running "$JOB" && by_itself=no
		watched=$((watched + $(awk -v s="$T0" -v n="$(now)" 'BEGIN { printf "%.0f", n - s }')))
		kill -TERM "$JOB" 2>/dev/null
		finish_bg "$JOB" 120
		grep -q "HANG DETECTED" "$dir/err" && ended=1
		dismissed=$((dismissed + $(grep -c "the suspected hang moved on" "$dir/err")))
		cat "$dir/err" >>"$dir/err.all"
		if [ "$by_itself" = yes ]; then
			exits="$exits${exits:+,}$RC"
			# A code that fails by itself is not started again: its exit status says why.
			[ "$RC" = 0 ] || break
		fi
	done
	mv "$dir/err.all" "$dir/err"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$RUN" "$watched" "$ended" "$dismissed" "$jobs" \
		"${exits:--}" >>"$STATE/healthy.tsv"
	keep "$dir"
}

for code in $CODES; do
	i=0
	while [ "$i" -lt "$HEALTHY_RUNS" ]; do healthy "$code"; i=$((i + 1)); done
	for fault in $FAULTS; do
		[ -n "$(code_skips "$code" "$fault")" ] && continue
		i=0
		while [ "$i" -lt "$RUNS" ]; do one "$code" "$fault" </dev/null; i=$((i + 1)); done
	done
done

# The table per (code, fault).
summary() {
	awk -F'\t' '{
		key = $1 "\t" $2
		if (!(key in n)) keys[++k] = key
		n[key]++; f[key] += $5 == "yes"; h[key] += $6 == "hang"
		t[key] += $6 == "hang" && $7 == (($2 == "spin" || $2 == "sigstop") ? "computation" : "communication")
		ex[key] += $9; am[key] += $10; rd[key] += $13 == "yes"
		if ($11 != "-") ev[key] = ev[key] " " $11
		if ($12 != "-") d[key] = d[key] " " $12
	} END {
		for (i = 1; i <= k; i++) {
			key = keys[i]; split(d[key], dl, " "); m = 0; for (j in dl) v[++m] = dl[j] + 0
			for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
			med = m ? (m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2) : "-"
			split(ev[key], el, " "); delete seen; evs = ""
			for (j in el) if (el[j] != "" && !(el[j] in seen)) { seen[el[j]] = 1; evs = evs (evs ? ", " : "") el[j] }
			row = key; gsub("\t", " | ", row)
			printf "| %s | %d | %d | %d | %d | %d | %d | %s | %s | %d of %d |\n", row, n[key], f[key], h[key], t[key],
				ex[key], am[key], evs ? evs : "-", med, rd[key], n[key]
			delete v
		}
	}' "$STATE/field.tsv"
}

{
	header "The field trial: production codes nobody here wrote"
	[ -s "$STATE/commit" ] && [ -n "${BENCH_STATE:-}" ] &&
		printf 'One campaign on commit %s (kept in `%s`, each run'"'"'s report and log in it).\n\n' \
			"$(cut -c1-7 "$STATE/commit")" "${STATE#"$ROOT"/}"
	cat <<EOF
\`bench/field.sh\`: $NP ranks per job on this machine's cores, \`parastack run\` with its defaults
(the 60 s confirmation window), the codes as Debian 12 packages them, unmodified; faults from
outside at a random rank and moment (20 s to $(pick 60 120) s in): spin (\`bench/field_spin.c\`
writes "jmp ." at the instruction the rank's main thread is at in the code's own modules or the
numerical libraries it computes in: FFTW, BLAS, LAPACK, ScaLAPACK; libxc, libint2 for CP2K),
sigstop (kept where the stopped rank's \`parastack stack\` is out of MPI), and through the preloaded
injector (\`tests/fixtures/psinject.c\`) at the rank's first matching call after that moment:
skip-collective (an MPI_Allreduce skipped), wrong-tag-small / -large (an MPI_Irecv of ≤ 4 KiB /
≥ 16 KiB posted with a tag nobody sends), alone (an MPI_Barrier nobody else enters). $RUNS
run(s) per row. Exact: faulty_ranks is the injected rank alone; among: it is one of them.
Delay: from the fault to the suspicion, median (s). Readable: runs whose report holds no C++
("_Z…") or gfortran ("_MOD_") symbol.

## Per code and fault

| code | fault | runs | fired | hangs | right type | exact | among | evidence | delay (s) | readable |
|---|---|---|---|---|---|---|---|---|---|---|
EOF
	summary
	for code in $CODES; do for fault in $FAULTS; do
		why=$(code_skips "$code" "$fault")
		[ -n "$why" ] && printf '| %s | %s | not run: %s | | | | | | | | |\n' "$code" "$fault" "$why"
	done; done
	cat <<EOF

## Healthy runs (each code watched $HEALTHY_S s, started again when it ended by itself)

| code | run | watched (s) | ended by parastack | suspicions dismissed | jobs started | exits by themselves |
|---|---|---|---|---|---|---|
EOF
	sed -e 's/\t/ | /g' -e 's/^/| /' -e 's/$/ |/' "$STATE/healthy.tsv" 2>/dev/null
	cat <<EOF

## Every run

| code | fault | run | rank | fired | outcome | type | faulty_ranks | exact | among | evidence | delay (s) | readable |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
	sed -e 's/\t/ | /g' -e 's/^/| /' -e 's/$/ |/' "$STATE/field.tsv"
} >"$RESULTS/field.md"
say "field: $RUN runs; results/field.md"
