# SPDX-License-Identifier: BSD-3-Clause
# End-to-end tests of `parastack run` on real Open MPI jobs with injected faults: each fault
# gives the right verdict, hang type and faulty rank(s), the hung job is really ended and the
# exit status contract holds; healthy runs (short and long phases, busy-wait, threads) and a
# transient stall give no hang. Seeds are fixed; every run has a hard timeout; the runs under
# parastack go two at a time (WIDTH), each in its own files.
# Hangs whose test is what is found use a short confirmation window ($FAST); healthy runs and
# the suspect -> confirm -> act tests use the default window.
. "$(dirname "$0")/lib.sh"
APPS=$BUILD/tests/apps
NP=${PS_TEST_NP:-6}
AFTER=25 # seconds before a fault: the model needs some history first
CONFIRM=5
FAST="--confirm $CONFIRM"

# prun_later NAME [ENV=VALUE...] -- APP [PARASTACK OPTIONS]: APP under parastack run with NP
# ranks (lib.sh's psrun_later: in the background, $WIDTH at a time; these runs mostly wait for
# their fault and their confirmation window); prun_collect NAME: its $RC, $OUT/$ERR, $REPORT.
prun_later() {
	name=$1
	shift
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	app=$1
	shift
	# shellcheck disable=SC2086
	psrun_later "$name" 300 $envs -- --seed 7 "$@" -- mpirun --oversubscribe -np "$NP" "$APPS/$app"
}
prun_collect() { psrun_collect "$1"; }

# jreport_file FILE JQ-EXPR NAME: a JSON file satisfies a jq expression.
jreport_file() { if jq -e "$2" "$1" >/dev/null 2>&1; then ok; else fail "$3: jq '$2' false on $1"; fi; }

# expect_job_gone NAME: every rank pid in the report is gone (the job was really ended). A run
# is collected minutes after it ended, and PIDs are reused (pid_max 32768): a process under a
# rank's PID that started after the hang was detected is another one (a later job's rank).
expect_job_gone() {
	alive=""
	# No detection time: every live PID counts, as before the reuse was known.
	detected=$(jq -r '.detected_at // 9999999999' "$REPORT" 2>/dev/null)
	for p in $(jq -r '.ranks[].pid' "$REPORT" 2>/dev/null); do
		proc_alive "$p" && proc_started_before "$p" "$detected" &&
			alive="$alive $p($(proc_state "$p"), started $(proc_started_at "$p") ticks after boot)"
	done
	if [ -z "$alive" ]; then ok; else fail "$1: ranks still running after the kill:$alive"; fi
}

# expect_hang NAME TYPE FAULTY: status 86, verdict hang of TYPE, faulty ranks FAULTY (jq array).
expect_hang() {
	expect_status "$1 exit status" 86
	jreport "$1 verdict" '.verdict == "hang" and .hang_type == "'"$2"'" and .faulty_ranks == '"$3"
	jreport "$1 report fields" '(.detected_at | type) == "number" and (.ranks | length) == '"$NP"' and all(.ranks[]; has("rank") and has("host") and has("pid") and has("state") and has("frames")) and (.groups | length) >= 1 and (.diagnosis | length) >= 1 and (.model | has("interval_ms") and has("samples") and has("p_hat") and has("e") and has("q") and has("alpha"))'
	expect_grep "$1 text report" "HANG DETECTED" "$ERR"
	expect_agree "$1 text and JSON"
	expect_job_gone "$1"
}

# Every run under parastack, started $WIDTH at a time, the longest first; each one's checks
# below, where its results are collected.
prun_later pause40 PS_FAULT=stall PS_STALL=40 PS_FAULT_RANK=2 PS_FAULT_AFTER=$AFTER PS_SECONDS=95 PS_EXIT=3 -- stencil --trace "$TMP/pause40.trace"
prun_later confirmed PS_FAULT=sleep PS_FAULT_RANK=3 PS_FAULT_AFTER=$AFTER -- stencil
prun_later stall PS_FAULT=stall PS_STALL=3 PS_FAULT_RANK=1 PS_FAULT_AFTER=$AFTER PS_SECONDS=50 PS_EXIT=7 -- stencil
prun_later spin PS_FAULT=spin PS_FAULT_RANK=4 PS_FAULT_AFTER=$AFTER -- stencil --trace "$TMP/spin.trace" --confirm 20
prun_later healthy PS_ITERS=300 -- stencil
prun_later quiet PS_ITERS=300 -- stencil --quiet --progress 2
prun_later phases PS_ITERS=14 -- phases
prun_later busyhealthy PS_ITERS=400 -- busywait
# --no-proof: the evidence's path (the records would prove this skip at once: issue 68, below).
prun_later early PS_FAULT=skip PS_FAULT_RANK=1 PS_FAULT_AFTER=1 -- stencil --confirm 10 --no-proof
prun_later allio PS_FAULT=io PS_FAULT_RANK=-1 PS_FAULT_AFTER=3 -- stencil --confirm 10
prun_later sleep PS_FAULT=sleep PS_FAULT_RANK=0 PS_FAULT_AFTER=$AFTER -- stencil $FAST
prun_later fortran PS_FAULT=spin PS_FAULT_RANK=1 PS_FAULT_AFTER=$AFTER -- solver $FAST
prun_later threaded PS_FAULT=spin PS_FAULT_RANK=2 PS_FAULT_AFTER=$AFTER -- threaded $FAST
prun_later busywait PS_FAULT=spin PS_FAULT_RANK=3 PS_FAULT_AFTER=$AFTER -- busywait $FAST
prun_later deadlock PS_FAULT=deadlock PS_FAULT_RANK=2 PS_FAULT_AFTER=$AFTER -- stencil $FAST
# Two MPI runs at once in a watched script (concurrent steps; one run's last rank exiting as the
# next starts): never an error; the watch looks again until one run remains. Run A (ranks 0 and
# 1) is watched first: it ends (by its own PIDs) once parastack says it watches it, however long
# the monitor took to start; runs B and C (ranks 0 and 1 each, 10 s) start then, so the next
# look finds ranks claimed twice; the last run, D, hangs and is reported.
cat >"$TMP/tworuns.sh" <<EOF
#!/bin/sh
ranks() { for r in 0 1; do OMPI_COMM_WORLD_RANK=\$r OMPI_COMM_WORLD_SIZE=2 sleep "\$1" & A="\$A \$!"; done; }
A=""
ranks 120
deadline=\$((\$(date +%s) + 120))
until grep -q "^parastack: watching 2 ranks" "$TMP/tworuns.later.err" || [ \$(date +%s) -ge \$deadline ]; do sleep 0.1; done
sleep 1
kill \$A
ranks 10
ranks 10
wait
exec mpirun --oversubscribe -np $NP $APPS/stencil
EOF
psrun_later tworuns 300 PS_FAULT=spin PS_FAULT_RANK=4 PS_FAULT_AFTER=$AFTER -- --seed 7 $FAST -- sh "$TMP/tworuns.sh"
prun_later skip PS_FAULT=skip PS_FAULT_RANK=1 PS_FAULT_AFTER=$AFTER -- stencil $FAST
prun_later exit PS_FAULT=exit PS_FAULT_RANK=3 PS_FAULT_AFTER=$AFTER -- stencil $FAST
prun_later io PS_FAULT=io PS_FAULT_RANK=1 PS_FAULT_AFTER=$AFTER -- stencil $FAST
prun_later helpers PS_HELPER=deep PS_FAULT=spin PS_FAULT_RANK=4 PS_FAULT_AFTER=$AFTER -- stencil --set-size 2 $FAST
# A wrapper script that leaves its mpirun behind when it is ended (SIGTERM ends sh, not the job it
# started in the background), with pidfd_open failing for parastack (tests/fixtures/nopidfd.c):
# the leftovers are killed by PID all the same, and a line says so.
cat >"$TMP/orphan.sh" <<EOF
#!/bin/sh
mpirun --oversubscribe -np $NP $APPS/stencil &
echo \$! >"$TMP/orphan.mpirun"
wait
EOF
psrun_later nopidfd 300 LD_PRELOAD="$(cd "$BUILD/tests" && pwd)/libnopidfd.so" PS_FAULT=spin PS_FAULT_RANK=2 PS_FAULT_AFTER=$AFTER -- \
	--seed 7 $FAST --grace 2 -- sh "$TMP/orphan.sh"

# --- computation errors ---------------------------------------------------------------------
# A window longer than the model takes: the recorded suspicion is the model's verdict.
prun_collect spin
expect_hang "stencil spin" computation '[4]'
jreport "spin: faulty rank's frames" '[.ranks[] | select(.rank == 4) | .frames[].func] | index("faulty_spin") != null'
jreport "spin: groups" '[.groups[] | select(.state == "OUT_MPI") | .ranks] == ["4"]'
expect_grep "spin: next step" "next step: gdb -p" "$ERR"
# A hang that begins after the model has a history is the model's to suspect (the rule of
# issue 30: never a race with the progress evidence): the basis is always the model.
jreport "spin: suspected by the model" '.confirmation.basis == "model"'
# The trace replays to the same verdict: the monitor's sampling is the replay's. The model's
# verdict is the suspicion the monitor recorded ("#! suspect T"), then confirmed.
suspect=$(sed -n 's/^#! suspect //p' "$TMP/spin.trace" | head -n 1)
if [ -n "$suspect" ] && grep -q '^#! hang' "$TMP/spin.trace"; then ok; else fail "spin: the trace lacks the suspicion or the confirmation"; fi
run "$PARASTACK" replay --json --seed 7 "$TMP/spin.trace"
expect_json "replay decides where the live model suspected" ".verdict == \"hang\" and .detected_at_ms == ${suspect:-0}"
# Plotted sample by sample, the recorded trace reaches the live verdict at the suspicion.
run "$PARASTACK" plot --data "$TMP/spin.trace"
first_hang=$(printf '%s\n' "$OUT" | awk '$5 == "hang" { print $1; exit }')
expect_grep "plot: the first hang row is the suspicion" "^$(awk -v t="${suspect:-0}" 'BEGIN { printf "%.3f", t / 1000 }')\$" "$first_hang"
run "$PARASTACK" plot -o "$TMP/spin.svg" "$TMP/spin.trace"
expect_status "plot of a live trace" 0
expect_grep "plot summary: the recorded checks" "[2-9] recorded check(s)" "$OUT"
expect_grep "plot: the confirmation window drawn" "suspected: confirming" "$(cat "$TMP/spin.svg")"
# Where the hang began, the same in the report and on the plot: the last sample before the
# suspicion that showed the job computing (its trace time plus the trace's clock time of 0).
expect_grep "plot: the last progress marked" "last progress seen at" "$(cat "$TMP/spin.svg")"
t0=$(sed -n 's/^# t_ms 0 is unix time //p' "$TMP/spin.trace")
lp=$(printf '%s' "$OUT" | sed -n 's/.*last progress seen at \([0-9.]*\) s.*/\1/p')
if jq -e --argjson t0 "${t0:-0}" --argjson lp "${lp:-0}" '.confirmation.last_progress_at - ($t0 + $lp) | (if . < 0 then -. else . end) < 0.2' "$REPORT" >/dev/null; then
	ok
else
	fail "spin: last progress in the report ($(jq .confirmation.last_progress_at "$REPORT")) is not the plot's ($t0 + $lp); the trace's checks: $(grep '^#! [a-z]* [0-9]' "$TMP/spin.trace" | tr '\n' ' ')"
fi
expect_grep "plot: an SVG" "<svg" "$(head -c 4000 "$TMP/spin.svg")"

prun_collect sleep
expect_hang "stencil sleep" computation '[0]'

prun_collect fortran
expect_hang "Fortran solver spin" computation '[1]'
jreport "Fortran waits in its bindings" '[.groups[] | select(.state == "IN_MPI") | .mpi_call] | all(. == "MPI_Allreduce" or . == "MPI_Sendrecv")'

prun_collect threaded
expect_hang "multi-threaded spin" computation '[2]'

prun_collect busywait
expect_hang "busy-wait spin" computation '[3]'

# --- communication errors -------------------------------------------------------------------
# parastack run preloads the recording layer: the reports name the rank(s) everyone waits on
# (rank 2's receive of a message rank 3 never sent, in a cycle with rank 3's Sendrecv that waits
# for a halo rank 2 sent before: rank 2 alone, likely; the rank that skipped the collective; the
# rank that left early). test-record.sh and test-culprits.sh have more.
prun_collect deadlock
expect_hang "unmatched receive" communication '[2]'
jreport "deadlock: rank 2, likely" '.culprits == [{"rank": 2, "evidence": "likely", "why": .culprits[0].why}]'
jreport "deadlock: the lone MPI_Recv" '[.groups[] | select(.mpi_call == "MPI_Recv") | .ranks] == ["2"]'
jreport "deadlock: diagnosis" '[.diagnosis[] | select(test("point-to-point"))] | length == 1'

prun_collect skip
expect_hang "skipped collective" communication '[1]'
jreport "skip: collective vs point-to-point" '[.diagnosis[] | select(test("skipped the collective"))] | length == 1'
# Issue 68: the records prove it (a collective the others wait in, the skipper blocked on a rank
# inside it): confirmed on a second snapshot, without the window. The proof comes with the
# suspicion, or - when the model suspects first, as on a loaded machine - once the window is open.
jreport "skip: proven by the records" '.confirmation.basis == "records" and (.confirmation.proof | test("collective")) and .confirmation.recheck_s == 1'
expect_grep "skip: a line says the records prove it" "and the records prove it: .* — confirmed without the window\\|the suspected hang is proven by the records: .* — confirmed without the rest of the window" "$ERR"
expect_grep "skip: the report says so" "confirmed: proven by the records" "$ERR"

prun_collect exit
expect_hang "early exit" communication '[3]'
jreport "early exit: diagnosis" '[.diagnosis[] | select(test("3 already called MPI_Finalize"))] | length == 1'

# --- no hang ----------------------------------------------------------------------------------
prun_collect stall
expect_status "transient stall: the job's own status" 7
jreport "transient stall: no hang" '.verdict == "none"'
if printf '%s' "$ERR" | grep -q "HANG DETECTED"; then fail "transient stall reported as a hang"; else ok; fi

prun_collect healthy
expect_status "healthy stencil ends by itself" 0
jreport "healthy: verdict none" '.verdict == "none" and .hang_type == null and .model.samples > 0'

# A status line on request (SIGUSR1 to parastack run), and a summary when the job ends by itself.
start "$TMP/usr1.out" env PS_SECONDS=25 "$PARASTACK" run --seed 7 -- mpirun --oversubscribe -np 2 "$APPS/stencil"
USR1=$BG
if wait_for "$TMP/usr1.out" "watching 2 ranks" 60; then
	sleep 3
	kill -USR1 "$USR1"
	wait_for "$TMP/usr1.out" "^parastack: status at [0-9:]* UTC: watching 2 ranks for [0-9]* s; [0-9]* samples" 30
	if reap "$USR1" 120; then ok; else fail "SIGUSR1: the run did not end by itself"; fi
	# The line's form is what is tested here. Under a loaded CI host a 2-rank job on 2 cores can
	# draw a suspicion that confirmation then dismisses (stop 76's CI: "1 suspicion(s) dismissed");
	# that is the model working, not a wrong verdict, so the count is free, the verdict is not.
	expect_grep "end-of-run summary" "^parastack: watched [0-9]* [a-z]*.*, [0-9]* samples, [0-9]* suspicion(s) dismissed, no hang$" "$(cat "$TMP/usr1.out")"
	if grep -q "HANG DETECTED" "$TMP/usr1.out"; then fail "SIGUSR1: a healthy run reported as a hang"; else ok; fi
	# The status line and nothing else: not the monitors' mpirun passing the signal on.
	if grep -q "Forwarding signal" "$TMP/usr1.out"; then fail "SIGUSR1: mpirun's line in the output: $(grep "Forwarding signal" "$TMP/usr1.out")"; else ok; fi
fi

# --quiet --progress: status lines every 2 s, and nothing else of parastack's.
prun_collect quiet
expect_status "--quiet: the job's own status" 0
expect_grep "--progress: status lines" "^parastack: status at [0-9:]* UTC: watching $NP ranks" "$ERR"
if printf '%s\n' "$ERR" | grep -Eq "^parastack: (watching|watched) "; then fail "--quiet: informational lines printed: $ERR"; else ok; fi

# As root through sudo, the report is created as the user who ran sudo: theirs, and only where
# they may write.
if [ "$(id -u)" = 0 ]; then
	chmod 755 "$TMP"
	mkdir "$TMP/theirs"
	chown 65534:65534 "$TMP/theirs"
	for where in theirs/r.json root-only.json; do
		RUN_TIMEOUT=120 run env SUDO_UID=65534 SUDO_GID=65534 PS_ITERS=20 "$PARASTACK" run \
			--seed 7 --report "$TMP/$where" -- mpirun --oversubscribe -np 2 "$APPS/stencil"
	done
	if [ "$(stat -c %u:%g "$TMP/theirs/r.json" 2>&1)" = 65534:65534 ]; then ok; else
		fail "sudo: report not owned by SUDO_UID: $(stat -c %u:%g "$TMP/theirs/r.json" 2>&1)"; fi
	expect_grep "sudo: no report where the user may not write" "cannot write $TMP/root-only.json" "$ERR"
	if [ -e "$TMP/root-only.json" ]; then fail "sudo: report written where the user may not"; else ok; fi
fi

prun_collect phases
expect_status "long phases end by themselves" 0
jreport "long phases: no hang" '.verdict == "none"'

prun_collect busyhealthy
expect_status "busy-wait ends by itself" 0
jreport "busy-wait: no hang" '.verdict == "none"'

# --- suspect -> confirm -> act, with the default confirmation window (60 s) ---------------------
# A rank that pauses 40 s in its own code (a checkpoint write looks like this): suspected, seen
# to move again, never ended.
prun_collect pause40
expect_status "40 s pause: the job's own status" 3
jreport "40 s pause: no hang" '.verdict == "none"'
if printf '%s' "$ERR" | grep -q "HANG DETECTED"; then fail "40 s pause reported as a hang"; else ok; fi
expect_grep "40 s pause: suspected, then moved on" "suspected hang .*confirming" "$ERR"
expect_grep "40 s pause: moved on" "moved on" "$ERR"
if grep -q '^#! suspect' "$TMP/pause40.trace" && grep -q '^#! slowdown' "$TMP/pause40.trace"; then ok; else fail "40 s pause: the trace lacks the suspicion and its dismissal"; fi
# A real hang with the defaults: suspected, confirmed a window later, ended.
prun_collect confirmed
expect_hang "default window: sleep" computation '[3]'
expect_grep "default window: the suspicion line first" "suspected hang — computation error, rank 3 — confirming since [0-9:]* UTC; the job is ended at" "$ERR"
jreport "default window: the steps' times" '.confirmation.basis == "model" and .confirmation.window_s >= 60 and .confirmation.confirmed_at > .confirmation.suspected_at and .detected_at == .confirmation.confirmed_at and .confirmation.began_at <= .confirmation.suspected_at and .confirmation.confirmed_at <= .confirmation.reported_at'
expect_grep "default window: the confirmation line" "confirmed: no rank waiting in MPI moved" "$ERR"
jreport "default window: progress seen before the suspicion" '.confirmation.last_progress_at < .confirmation.suspected_at'
expect_grep "default window: the last progress line" "last progress seen at [0-9:]* UTC (sampled ranks computing): the hang began after it" "$ERR"
# Hangs without history: a skipped collective 1 s after MPI_Init is confirmed by progress
# evidence alone, with no model.
prun_collect early
expect_hang "skip 1 s after start" communication '[1]'
jreport "early: confirmed by evidence" '.confirmation.basis == "progress evidence" and .confirmation.window_s >= 10'
# Its times (issue 41): the suspicion's "nothing has moved for N s" is suspected_at - began_at
# (within a sample interval), the steps in order, the headline at the decision.
quiet=$(printf '%s\n' "$ERR" | sed -n 's/.*nothing has moved for \([0-9]*\) s.*/\1/p' | tail -1)
jreport "early: the times are the suspicion line's" "(.model.interval_ms / 1000) as \$i | (.confirmation.suspected_at - .confirmation.began_at - ${quiet:-1e9}) | (if . < 0 then -. else . end) <= 1 + \$i"
jreport "early: the times in order" '.confirmation.began_at <= .confirmation.suspected_at and .confirmation.suspected_at <= .confirmation.confirmed_at and .confirmation.confirmed_at <= .confirmation.reported_at and .detected_at == .confirmation.confirmed_at'
expect_grep "early: the text says when it began" "times: began about [0-9:]* (nothing has moved since), suspected at [0-9:]*, confirmed at [0-9:]* UTC" "$ERR"
# A rank stuck in the kernel (uninterruptible sleep): an io hang, never taken for a dead rank.
prun_collect io
expect_hang "rank in D" io '[1]'
jreport "io: the rank is in the kernel, alive" '.dead_ranks == [] and ([.ranks[] | select(.rank == 1) | .in_kernel and (.wchan | length > 0)] == [true])'
expect_grep "io: diagnosis" "blocked in the kernel (uninterruptible sleep" "$ERR"
# Every rank goes into the kernel (a hung file system under the whole job; those a neighbour
# blocked first wait in MPI): an io hang of the ranks in D, never "the job's ranks have all
# exited", found with no model verdict (S stays high).
prun_collect allio
expect_status "ranks in D: ended" 86
jreport "ranks in D: an io hang of ranks in the kernel" '.verdict == "hang" and .hang_type == "io" and (.faulty_ranks | length) >= 1 and ([.faulty_ranks[] as $r | .ranks[] | select(.rank == $r) | .in_kernel] | all)'
if printf '%s' "$ERR" | grep -q "have all exited"; then fail "ranks in D taken for exited ones"; else ok; fi
psrun_collect tworuns
expect_hang "two runs at once, then a hang" computation '[4]'
n=$(printf '%s\n' "$ERR" | grep -c "^parastack: rank [01] is claimed by pid [0-9]* on .* and pid [0-9]* on .*: two MPI runs at once in the job; parastack watches one at a time and looks again until one remains$")
if [ "$n" = 1 ]; then ok; else fail "two runs at once: said $n times, not once: $ERR"; fi
expect_grep "two runs at once: the first run watched" "^parastack: watching 2 ranks" "$ERR"
expect_grep "two runs at once: the last run watched" "^parastack: watching $NP ranks (the job's next MPI run)" "$ERR"
if printf '%s\n' "$ERR" | grep -q "^parastack: error\|the monitor stops"; then fail "two runs at once: an error: $ERR"; else ok; fi
run "$PARASTACK" run --confirm soon -- true
expect_error "bad --confirm" 2 "--confirm: 'soon' is not a number of seconds"

# --- --on-hang=report keeps the job running ------------------------------------------------
start "$TMP/report-mode.out" env PS_FAULT=deadlock PS_FAULT_RANK=1 PS_FAULT_AFTER=$AFTER \
	"$PARASTACK" run --seed 7 --confirm "$CONFIRM" --on-hang=report --report "$TMP/report-mode.json" -- \
	mpirun --oversubscribe -np "$NP" "$APPS/stencil"
RUNPID=$BG
if wait_for "$TMP/report-mode.out" "HANG DETECTED" 120; then
	REPORT="$TMP/report-mode.json"
	wait_report '.verdict == "hang"' 60 # written after the text report
	jreport "report mode: JSON written" '.verdict == "hang" and .action == "reported; still watching (--on-hang=report)"'
	sleep 3
	if kill -0 "$RUNPID" 2>/dev/null && [ -z "$(jq -r '.ranks[].pid' "$REPORT" | while read -r p; do [ -z "$(proc_state "$p")" ] && echo gone; done)" ]; then
		ok
	else
		fail "report mode: the job was ended"
	fi
	kill -TERM "$RUNPID"
	if reap "$RUNPID" 30; then ok; else fail "parastack run did not end on SIGTERM"; fi
	expect_job_gone "report mode after SIGTERM"
fi

# --- SIGTERM from outside (timeout, a batch system's time limit): one true line, the job ended
# as mpirun would end it, and parastack exits only once none of the job's processes runs -------
RUN_TIMEOUT=90 run env PS_PRINT_PIDS=1 PS_ITERS=10000000 timeout 15 "$PARASTACK" run --seed 7 -- \
	mpirun --oversubscribe -np 2 "$APPS/stencil"
expect_status "timeout: timeout's own status" 124
expect_grep "timeout: said what happens" "^parastack: Terminated: ending the job (launcher pid [0-9]*) and its watch$" "$ERR"
if printf '%s' "$ERR" | grep -q "goes on unwatched"; then fail "timeout: said the job goes on: $ERR"; else ok; fi
left=""
for p in $(printf '%s\n' "$OUT" | sed -n 's/^rank [0-9]* pid //p'); do
	s=$(proc_state "$p")
	[ -n "$s" ] && [ "$s" != Z ] && left="$left $p($s)"
done
if [ -z "$left" ] && [ -n "$(printf '%s\n' "$OUT" | sed -n 's/^rank [0-9]* pid //p')" ]; then ok; else fail "timeout: ranks still running:$left ($OUT)"; fi

# --- a monitor that dies is started again (once a minute at most), said in one line ----------
start "$TMP/restart.out" env PS_ITERS=10000000 "$PARASTACK" run --seed 7 -- mpirun --oversubscribe -np 2 "$APPS/stencil"
RUNPID=$BG
if wait_for "$TMP/restart.out" "watching 2 ranks" 60; then
	mon=""
	for p in $(descendants "$RUNPID"); do [ "$(cat /proc/"$p"/comm 2>/dev/null)" = parastack-monit ] && mon=$p; done
	# A crash: the monitor says so before it dies, parastack run says how it stopped.
	if [ -n "$mon" ] && kill -SEGV "$mon" && reap_other "$mon" 30; then ok; else
		fail "restart: no monitor below parastack run, or it did not end on SIGSEGV (pid '$mon')"; fi
	wait_for "$TMP/restart.out" "^parastack: the monitor crashed (SIGSEGV); its watch ends here" 60 && ok
	wait_for "$TMP/restart.out" "^parastack: the monitor stopped (\(killed by SIGSEGV\|exit status 139: SIGSEGV\)); started it again: the job stays watched$" 60 && ok
	# The new monitor watches: its own "watching" line, then a status line on request.
	deadline=$(($(date +%s) + 60))
	until [ "$(grep -c '^parastack: watching 2 ranks' "$TMP/restart.out")" -ge 2 ] || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.1; done
	kill -USR1 "$RUNPID"
	wait_for "$TMP/restart.out" "^parastack: status at [0-9:]* UTC: watching 2 ranks" 60 && ok
	kill -TERM "$RUNPID"
	if reap "$RUNPID" 60; then ok; else fail "restart: parastack run did not end on SIGTERM"; fi
	expect_grep "restart: the monitor's last line says it was stopped" "no hang; stopped by SIGTERM" "$(cat "$TMP/restart.out")"
fi

# --- bad input ------------------------------------------------------------------------------
run "$PARASTACK" run
expect_error "no job" 2 "no job to run"
run "$PARASTACK" run --on-hang=maybe -- true
expect_error "bad --on-hang" 2 "neither kill nor report"
run "$PARASTACK" run --alpha 5 -- true
expect_error "bad --alpha" 2 "--alpha: 5 is out of range"
run "$PARASTACK" run --report /nonexistent/dir/r.json -- true
expect_error "unwritable report" 2 "cannot write in /nonexistent/dir"
run "$PARASTACK" run --grace -1 -- true
expect_error "bad --grace" 2 "--grace"
run "$PARASTACK" run -- /nonexistent/launcher
expect_status "missing launcher" 127
expect_grep "missing launcher message" "cannot start /nonexistent/launcher" "$ERR"
run "$PARASTACK" run --report "$TMP/serial.json" -- sh -c 'exit 5'
expect_status "a job that is not MPI ends with its status" 5
# Nothing watched is said, and the JSON cannot be taken for a clean run.
expect_error "no ranks: said once" 5 "no MPI ranks found: nothing was watched"
jreport_file "$TMP/serial.json" '.verdict == "unwatched" and .hang_type == null' "no ranks: verdict unwatched"
# Output files are never written through a planted symbolic link (parastack may run as root):
# not the report's old fixed temporary name, not the trace.
echo keep >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/planted.json.tmp"
ln -s "$TMP/victim" "$TMP/planted.trace"
run "$PARASTACK" run --report "$TMP/planted.json" --trace "$TMP/planted.trace" -- sh -c 'exit 0'
expect_status "planted links: the job runs" 0
if [ "$(cat "$TMP/victim")" = keep ]; then ok; else fail "a planted link was written through: $(head -c 200 "$TMP/victim")"; fi
jreport_file "$TMP/planted.json" '.verdict == "unwatched"' "planted links: the report is written"
expect_grep "planted links: the trace refused in one line" "the trace: cannot write $TMP/planted.trace: .*symbolic link" "$ERR"
# A stale SLURM_JOB_ID where Slurm cannot be asked: one line, and the job runs all the same.
: >"$TMP/empty-slurm.conf"
run env SLURM_JOB_ID=123 SLURM_CONF="$TMP/empty-slurm.conf" "$PARASTACK" run -- sh -c 'echo the job ran; exit 4'
expect_status "stale SLURM_JOB_ID: the job runs" 4
expect_grep "stale SLURM_JOB_ID: the job's output" "the job ran" "$OUT"
expect_grep "stale SLURM_JOB_ID: one line of ours" "Slurm cannot be asked from here: .*; watching this node only" "$ERR"
if printf '%s\n' "$ERR" | grep -q "error:\|fatal:"; then fail "stale SLURM_JOB_ID: libslurm's own lines reached the user: $ERR"; else ok; fi
# --- a node with more ranks under one parent than any fixed table held (256 once): 300 processes
# that carry a launcher's rank are all found (they sleep in their own code: no hang; 20 s: a
# loaded machine takes seconds to discover 300 ranks, and 6 s was once too short in CI).
run "$PARASTACK" run --local -- sh -c 'i=0; while [ $i -lt 300 ]; do OMPI_COMM_WORLD_RANK=$i OMPI_COMM_WORLD_SIZE=300 sleep 20 & i=$((i + 1)); done; wait'
expect_status "300 ranks under one parent: the job ends by itself" 0
expect_grep "300 ranks under one parent: all found" "watching 300 ranks" "$ERR"

# --- more ranks than two sets hold (--set-size 2, 6 ranks), each with a helper process it forked
# and a helper of that helper (same rank in their environment, not ranks): the sets rotate over
# all ranks, helpers at any depth are no ranks.
prun_collect helpers
expect_hang "more than 2C ranks, with helpers" computation '[4]'
jreport "helpers are not ranks" '[.ranks[].rank] == [0,1,2,3,4,5]'

# --- pidfd_open failing (EMFILE, kernels before 5.3): the wrapper's leftover mpirun and ranks are
# killed by PID, each checked by its start time, and one line says how.
psrun_collect nopidfd
expect_hang "pidfd_open failing" computation '[2]'
expect_grep "pidfd_open failing: said how the leftovers were killed" \
	"^parastack: pidfd_open: Function not implemented - [0-9]* leftover process(es) of the job killed by PID" "$ERR"
orphan=$(cat "$TMP/orphan.mpirun" 2>/dev/null)
detected=$(jq -r '.detected_at // 9999999999' "$REPORT" 2>/dev/null)
if [ -n "$orphan" ] && proc_alive "$orphan" && proc_started_before "$orphan" "$detected"; then
	fail "pidfd_open failing: the wrapper's mpirun ($orphan) still runs"
	kill -KILL "$orphan"
else
	ok
fi

finish
