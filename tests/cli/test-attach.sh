# SPDX-License-Identifier: BSD-3-Clause
# parastack attach --pids / --pids-file: a job started by someone else (here: by this test,
# with plain mpirun) is watched by the PIDs of its ranks. Bad lists and files are refused with
# one line before anything is touched; a computation hang ends exactly the listed processes
# (--on-hang=kill); a job that ends by itself gives "none"; a rank frozen with SIGSTOP is named
# faulty and left stopped; a rank killed by a signal is reported as dead, with the signal; an
# ordinary user gets one clear line for another user's job. Every process is started here and
# stopped by PID.
. "$(dirname "$0")/lib.sh"
STENCIL=$BUILD/tests/apps/stencil
HOST=$(hostname)

# --- bad command lines and files: one line, nothing touched --------------------------------------
bad() { # NAME STATUS PATTERN ARGS...
	name=$1 want=$2 pattern=$3
	shift 3
	run "$PARASTACK" attach "$@"
	expect_error "$name" "$want" "$pattern"
}
bad "no job named" 2 "say which job" --seed 3
bad "two ways at once" 2 "say which job, once" --pids 1 --slurm-job 5
bad "empty list" 2 "the list is empty" --pids ""
bad "not a number" 2 "item 2, 'abc', is not a PID" --pids 12,abc
bad "PID 0" 2 "item 1, '0', is not a PID" --pids 0
bad "negative PID" 2 "item 1, '-5', is not a PID" --pids -5
bad "empty item" 2 "item 2, '', is not a PID" --pids 1,,2
bad "duplicate PID" 2 "PID $$ is listed twice" --pids "$$,$$"
bad "alpha out of range" 2 "alpha" --alpha 2 --pids 1
bad "negative interval" 2 "interval" --interval -5 --pids 1
bad "seed not a number" 2 "seed" --seed x --pids 1
bad "unknown option" 2 "unknown" --frobnicate --pids 1
bad "no such process" 1 "PID 4194303: no such process; nothing was attached" --pids 4194303
# A Slurm job where Slurm cannot be asked: one line of ours, none of libslurm's.
: >"$TMP/empty-slurm.conf"
run env SLURM_CONF="$TMP/empty-slurm.conf" "$PARASTACK" attach --slurm-job 5
expect_error "no Slurm here" 1 "Slurm cannot be asked from here"
start "$TMP/sleep.out" sleep 300
SLEEPER=$BG
bad "not an MPI process" 1 "PID $SLEEPER: maps no communication library" --pids "$SLEEPER"
bad "missing PID file" 1 "cannot read the PID file $TMP/none" --pids-file "$TMP/none"
: >"$TMP/empty"
bad "empty PID file" 1 "no 'host pid \[rank\]' line" --pids-file "$TMP/empty"
printf '# comment\n\n%s abc\n' "$HOST" >"$TMP/f1"
bad "PID file: not a PID" 1 "line 3: 'abc' is not a PID" --pids-file "$TMP/f1"
printf '%s 5 -1\n' "$HOST" >"$TMP/f2"
bad "PID file: negative rank" 1 "line 1: '-1' is not a rank" --pids-file "$TMP/f2"
printf '%s 5\n%s 5\n' "$HOST" "$HOST" >"$TMP/f3"
bad "PID file: duplicate line" 1 "line 2: $HOST 5 is already on line 1" --pids-file "$TMP/f3"
printf '%s 5 1 extra\n' "$HOST" >"$TMP/f4"
bad "PID file: too many words" 1 "line 1: want 'host pid \[rank\]', found 4" --pids-file "$TMP/f4"
printf 'bad/host 5\n' >"$TMP/f5"
bad "PID file: bad host" 1 "'bad/host' is not a host name" --pids-file "$TMP/f5"
printf '%s 5\0\n' "$HOST" >"$TMP/f6"
bad "PID file: NUL byte" 1 "NUL byte" --pids-file "$TMP/f6"
printf '%s %s\n' "$HOST" "$SLEEPER" >"$TMP/f7"
bad "PID file: not an MPI process" 1 "PID $SLEEPER: maps no communication library" --pids-file "$TMP/f7"
if [ "$(proc_state "$SLEEPER")" = S ]; then ok; else fail "the refused process is no longer sleeping: $(proc_state "$SLEEPER")"; fi
expect_untraced "refused process" "$SLEEPER"

# The monitor itself (started by parastack, but a program of its own): one line, status 2.
MON=$BUILD/parastack-monitor
run "$MON" --alpha 5 --launcher-pid 1
expect_error "monitor: alpha out of range" 2 "alpha"
run "$MON" --pids-file "$TMP/none"
expect_error "monitor: missing PID file" 2 "cannot read the PID file"
run "$MON" --pids-file "$TMP/f3"
expect_error "monitor: duplicate line" 2 "is already on line 1"
run "$MON" --pbs-job 'x;y'
expect_error "monitor: bad Torque job id" 2 "not a Torque job id"
run "$MON" --seed
expect_error "monitor: option without value" 2 "bad option '--seed'"
run "$MON"
expect_error "monitor: nothing to watch" 2 "is required"

# job_pids OUTFILE: the ranks' PIDs in rank order, comma-separated.
job_pids() {
	rank_lines "$1" | sort -n -k2 | sed -n 's/^rank [0-9]* pid //p' | tr '\n' ',' | sed 's/,$//'
}

# --- a computation hang: the listed processes, and only they, are ended ------------------------
PS_PRINT_PIDS=1 PS_FAULT=spin PS_FAULT_RANK=2 PS_FAULT_AFTER=12 mpirun_start "$TMP/spin.out" 4 "$STENCIL" || true
P2=$(rank_pid "$TMP/spin.out" 2)
# Listed backwards: the rank each process carries in its environment wins over the order.
BACKWARDS=$(job_pids "$TMP/spin.out" | tr ',' '\n' | sort -rn | tr '\n' ',' | sed 's/,$//')
REPORT=$TMP/spin.json
RUN_TIMEOUT=180 run "$PARASTACK" attach --pids "$BACKWARDS" --seed 3 --confirm 5 --on-hang=kill --report "$REPORT"
expect_status "spin: hang found, listed processes ended" 86
expect_grep "spin: report printed" "faulty rank(s): 2" "$ERR"
jreport "spin: verdict" '.verdict == "hang" and .hang_type == "computation" and .faulty_ranks == [2]'
expect_agree "spin: text and JSON"
jreport "spin: rank 2 is the process that carries rank 2" ".ranks[] | select(.rank == 2) | .pid == $P2"
for p in $(job_pids "$TMP/spin.out" | tr ',' ' '); do
	if reap_other "$p" 15; then ok; else fail "spin: listed pid $p still there after --on-hang=kill"; fi
done
if reap "$MPIRUN" 30; then ok; else fail "spin: mpirun did not end once its ranks were ended"; fi
if kill -0 "$SLEEPER" 2>/dev/null; then ok; else fail "an unlisted process was ended"; fi

# --- the smallest jobs: 1 rank (a hang inside MPI) and 2 ranks ------------------------------------
# attach_small NAME NP FAULT RANK: NP ranks, RANK hits FAULT after 12 s; attached by PID list with
# --on-hang=kill, the report in $REPORT.
attach_small() {
	PS_PRINT_PIDS=1 PS_FAULT=$3 PS_FAULT_RANK=$4 PS_FAULT_AFTER=12 mpirun_start "$TMP/$1.out" "$2" "$STENCIL" || true
	REPORT=$TMP/$1.json
	RUN_TIMEOUT=180 run "$PARASTACK" attach --pids "$(job_pids "$TMP/$1.out")" --seed 3 --confirm 5 --on-hang=kill --report "$REPORT"
}
attach_small one 1 deadlock 0
expect_status "1 rank: hang found" 86
jreport "1 rank: it waits in MPI" '.verdict == "hang" and .hang_type == "communication" and (.ranks | length) == 1'
reap "$MPIRUN" 30 || fail "1 rank: mpirun did not end"
attach_small two 2 spin 1
expect_status "2 ranks: hang found" 86
jreport "2 ranks: rank 1 is faulty" '.verdict == "hang" and .faulty_ranks == [1]'
reap "$MPIRUN" 30 || fail "2 ranks: mpirun did not end"

# --- a job that ends by itself, named by a PID file with ranks: verdict none ------------------
PS_PRINT_PIDS=1 PS_ITERS=300 mpirun_start "$TMP/ok.out" 2 "$STENCIL" || true
for r in 0 1; do echo "$HOST $(rank_pid "$TMP/ok.out" $r) $r"; done >"$TMP/ok.pids"
REPORT=$TMP/ok.json
RUN_TIMEOUT=180 run "$PARASTACK" attach --pids-file "$TMP/ok.pids" --seed 3 --confirm 5 --report "$REPORT"
expect_status "ends by itself: exit 0" 0
jreport "ends by itself: verdict none" '.verdict == "none"'
if printf '%s' "$ERR" | grep -q HANG; then fail "ends by itself: false alarm: $ERR"; else ok; fi
reap "$MPIRUN" 30 || fail "the healthy job did not end"

# --- a rank frozen with SIGSTOP (3 ranks): named faulty, left stopped ----------------------------
PS_PRINT_PIDS=1 mpirun_start "$TMP/frozen.out" 3 "$STENCIL" || true
P1=$(rank_pid "$TMP/frozen.out" 1)
REPORT=$TMP/frozen.json
start "$TMP/frozen.attach" "$PARASTACK" attach --pids "$(job_pids "$TMP/frozen.out")" --seed 3 --confirm 5 --progress 1 --report "$REPORT"
ATTACH=$BG
wait_for "$TMP/frozen.attach" "watching 3 ranks" 60
# The model learns the healthy job first: the fault comes once it has a history (a status
# line with its threshold), so the model suspects, every run alike - not after a fixed sleep.
wait_for "$TMP/frozen.attach" "suspicion when S <=" 120
kill -STOP "$P1"
wait_for "$TMP/frozen.attach" "HANG DETECTED" 120
wait_for "$TMP/frozen.attach" "action:" 30
wait_report '.verdict' 30
jreport "frozen: rank 1 is faulty" '.verdict == "hang" and .faulty_ranks == [1]'
expect_grep "frozen: said to be stopped" "rank 1 (host .*) is stopped (SIGSTOP" "$(cat "$TMP/frozen.attach")"
if [ "$(proc_state "$P1")" = T ]; then ok; else fail "frozen: rank 1 is no longer stopped: $(proc_state "$P1")"; fi
# SIGTERM to attach: it detaches from everything and exits cleanly.
kill -TERM "$ATTACH"
if reap "$ATTACH" 30; then ok; else fail "frozen: attach did not exit after SIGTERM"; fi
for r in 0 1 2; do expect_untraced "frozen: rank $r after SIGTERM to attach" "$(rank_pid "$TMP/frozen.out" $r)"; done
if [ "$(proc_state "$P1")" = T ]; then ok; else fail "frozen: rank 1 was resumed by parastack"; fi
kill -CONT "$P1"
stop_started_one "$MPIRUN"

# --- a rank killed by a signal while the others wait: reported dead, with its signal --------------
# mpirun --enable-recovery keeps the other ranks running; mpirun is stopped first so the dead rank
# stays a zombie whose status can be read (its parent would collect it at once).
PS_PRINT_PIDS=1 mpirun_start "$TMP/crash.out" 4 --enable-recovery "$STENCIL" || true
P3=$(rank_pid "$TMP/crash.out" 3)
REPORT=$TMP/crash.json
start "$TMP/crash.attach" "$PARASTACK" attach --pids "$(job_pids "$TMP/crash.out")" --seed 3 --confirm 5 --progress 1 --report "$REPORT"
ATTACH=$BG
wait_for "$TMP/crash.attach" "watching 4 ranks" 60
wait_for "$TMP/crash.attach" "suspicion when S <=" 120
kill -STOP "$MPIRUN"
kill -KILL "$P3"
wait_for "$TMP/crash.attach" "HANG DETECTED" 120
wait_for "$TMP/crash.attach" "action:" 30
wait_report '.verdict' 30
jreport "crash: rank 3 is dead and faulty" '.verdict == "hang" and .faulty_ranks == [3] and .dead_ranks == [3]'
jreport "crash: with its signal" '.diagnosis | any(test("rank 3 .* died: killed by signal 9 \\(SIGKILL\\)"))'
expect_grep "crash: the headline says a rank died" "after a rank died (a crash, not an ordinary hang)" "$(cat "$TMP/crash.attach")"
kill -INT "$ATTACH"
if reap "$ATTACH" 30; then ok; else fail "crash: attach did not exit after SIGINT"; fi
for r in 0 1 2; do expect_untraced "crash: rank $r after SIGINT to attach" "$(rank_pid "$TMP/crash.out" $r)"; done
kill -CONT "$MPIRUN"
stop_started_one "$MPIRUN"

# --- Ctrl-C while watching a healthy job: one line, exit 0, the job runs on untouched -----------
PS_PRINT_PIDS=1 mpirun_start "$TMP/int.out" 2 "$STENCIL" || true
cat >"$TMP/int.sh" <<'EOF'
"$1" attach --pids "$2" --seed 3 2>"$3.err" &
echo $! >"$3.pid"
wait $!
echo "exit $?" >"$3.status"
EOF
start "$TMP/int.log" sh "$TMP/int.sh" "$PARASTACK" "$(job_pids "$TMP/int.out")" "$TMP/int"
INTSH=$BG
if wait_for "$TMP/int.err" "watching 2 ranks" 60; then
	kill -INT "$(cat "$TMP/int.pid")"
	if reap "$INTSH" 30; then ok; else fail "Ctrl-C: attach did not exit"; fi
	expect_grep "Ctrl-C: exit 0" "^exit 0$" "$(cat "$TMP/int.status" 2>/dev/null)"
	expect_grep "Ctrl-C: one line" "^parastack: stopped watching on Ctrl-C; the job runs on, nothing was left attached$" "$(cat "$TMP/int.err")"
	if grep -q "without an outcome" "$TMP/int.err"; then fail "Ctrl-C: reported as a failure"; else ok; fi
	for r in 0 1; do expect_untraced "Ctrl-C: rank $r" "$(rank_pid "$TMP/int.out" $r)"; done
	if kill -0 "$(rank_pid "$TMP/int.out" 0)" 2>/dev/null; then ok; else fail "Ctrl-C: the job did not run on"; fi
fi
stop_started_one "$MPIRUN"

# --- another user's job: one clear line, nothing attached -------------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	PS_PRINT_PIDS=1 mpirun_start "$TMP/root.out" 2 "$STENCIL" || true
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$PARASTACK" attach --pids "$(job_pids "$TMP/root.out")"
	expect_error "another user's job" 1 "PID $(rank_pid "$TMP/root.out" 0): may not be traced by this user .*nothing was attached"
	for r in 0 1; do expect_untraced "another user's rank $r" "$(rank_pid "$TMP/root.out" $r)"; done
	stop_started_one "$MPIRUN"
fi

finish
