# SPDX-License-Identifier: BSD-3-Clause
# The test runner reports honestly (issue 52): tests/cli/lib.sh counts a skip apart and fails it
# under CI=true; run-all.sh prints each file's passed, failed, skipped and seconds, counts a file
# that died midway as a failure and exits non-zero on any; a Slurm test cluster that cannot
# start (its slurmctld made unrunnable here) fails a cluster test under CI=true and names why,
# and is a skip for an ordinary user outside CI.
. "$(dirname "$0")/lib.sh"
# The run-all runs here choose their own files: a TESTS this file was run under is not theirs.
unset TESTS

# --- run-all on files written here: one passes, one skips, one fails, one dies midway ----------
FAKE=$TMP/fake
mkdir -p "$FAKE"
cp tests/cli/run-all.sh tests/cli/lib.sh tests/cli/procs.sh "$FAKE/"
printf '. "$(dirname "$0")/lib.sh"\nok; ok; ok\nfinish\n' >"$FAKE/test-a.sh"
printf '. "$(dirname "$0")/lib.sh"\nok\nskip "the b group: needs something absent"\nfinish\n' >"$FAKE/test-b.sh"
printf '. "$(dirname "$0")/lib.sh"\nok\nfail "c: the check that fails"\nfinish\n' >"$FAKE/test-c.sh"
printf '. "$(dirname "$0")/lib.sh"\nok\necho "d: dying midway"\nexit 3\nfinish\n' >"$FAKE/test-d.sh"
RUN_TIMEOUT=60 run env -u CI J=2 sh "$FAKE/run-all.sh" "$BUILD"
expect_status "run-all: a failure makes the run fail" 1
expect_grep "run-all: the passing file's row" "^test-a  *3  *0  *0  *[0-9]" "$OUT"
expect_grep "run-all: the skip counted apart, not passed" "^test-b  *1  *0  *1  *[0-9]" "$OUT"
expect_grep "run-all: the skip's reason printed" "^SKIP: the b group: needs something absent" "$OUT"
expect_grep "run-all: the failure's line printed" "^FAIL: c: the check that fails" "$OUT"
expect_grep "run-all: the failing file's row" "^test-c  *1  *1  *0  *[0-9]" "$OUT"
expect_grep "run-all: a file that died midway is a failure" "^test-d: did not finish (exit 3)" "$OUT"
expect_grep "run-all: its row" "^test-d  *0  *1  *0  *[0-9]" "$OUT"
expect_grep "run-all: the total" "^cli: 5 passed, 2 failed, 1 skipped$" "$OUT"
expect_grep "run-all: the slowest files" "^slowest: test-" "$OUT"
# Under CI=true nothing may be skipped: the same skip is a failure.
RUN_TIMEOUT=60 run env CI=true TESTS="b" sh "$FAKE/run-all.sh" "$BUILD"
expect_status "CI=true: a skip fails the run" 1
expect_grep "CI=true: the skip is a failure, its reason kept" "^FAIL: the b group: needs something absent (skipped under CI=true" "$OUT"
# KEEP_TMP=failed: a failed file's temporary directory (its own TMP in it) is kept and named; a
# passing file's is removed.
KT=$TMP/keep
mkdir -p "$KT"
RUN_TIMEOUT=60 run env -u CI KEEP_TMP=failed TMPDIR="$KT" TESTS="a c" sh "$FAKE/run-all.sh" "$BUILD"
expect_grep "KEEP_TMP=failed: the failed file's directory named" "^test-c: kept $KT/parastack-t\\." "$OUT"
kept=$(sed -n 's/^test-c: kept //p' "$TMP/out")
if [ -n "$kept" ] && ls "$kept" 2>/dev/null | grep -q '^parastack-cli\.'; then ok; else fail "KEEP_TMP=failed: test-c's directory ($kept) not kept with its TMP in it"; fi
if [ "$(ls "$KT" | grep -c '^parastack-t\.')" = 1 ]; then ok; else fail "KEEP_TMP=failed: not the failed file's directory alone: $(ls "$KT" | tr '\n' ' ')"; fi
rm "$FAKE/test-c.sh" "$FAKE/test-d.sh"
RUN_TIMEOUT=60 run env -u CI J=1 sh "$FAKE/run-all.sh" "$BUILD"
expect_status "run-all: skips and passes only: the run passes" 0
expect_grep "run-all: one at a time, the same counts" "^cli: 4 passed, 0 failed, 1 skipped$" "$OUT"
RUN_TIMEOUT=60 run env J=many sh "$FAKE/run-all.sh" "$BUILD"
expect_error "run-all: a bad J" 2 "J=many: want a number of files at a time"

# --- a PID is one process: what the library waits for or signals is the process it started,
# not one that got its number after it ended (PROC_AT_ set to another start time stands for the
# reuse, which cannot be forced) ----------------------------------------------------------------
# A process this shell started but is not the parent of (as a reaped child's PID is not ours).
sh -c 'sleep 60 >/dev/null 2>&1 & echo $!' >"$TMP/other.pid"
OTHER=$(cat "$TMP/other.pid")
STARTED="$STARTED $OTHER"
remember "$OTHER"
if proc_ours "$OTHER"; then ok; else fail "a process just started is not taken for ours"; fi
eval "PROC_AT_$OTHER=1" # as if ours had ended and this were another process with its PID
reap "$OTHER" 0
if proc_alive "$OTHER"; then ok; else fail "reap past its deadline killed a process it did not start"; fi
stop_started_one "$OTHER"
if proc_alive "$OTHER"; then ok; else fail "stop_started signalled a process it did not start"; fi
remember "$OTHER" # ours again: stopped as usual
stop_started_one "$OTHER"
if reap_other "$OTHER" 10; then ok; else fail "stop_started_one did not stop its own process"; fi
later reused 60 sleep 60
eval "LPID=\$LATER_reused"
eval "PROC_AT_$LPID=1"
if [ -z "$(later_running)" ]; then ok; else fail "a reused PID counted as a later run still running"; fi
remember "$LPID"
if [ "$(later_running)" = "$LPID" ]; then ok; else fail "a later run still running not counted"; fi
stop_started_one "$LPID"
start "$TMP/short.out" true
SHORT=$BG
reap "$SHORT" 10
if [ "$REAP_RC" = 0 ] && ! proc_ours "$SHORT"; then ok; else fail "a short process: reap rc $REAP_RC"; fi

# --- a Slurm test cluster that cannot start: its slurmctld made unrunnable ----------------------
if [ "$(id -u)" -ne 0 ]; then
	skip "the cluster that cannot start: starting one needs root"
	finish
	exit $?
fi
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "slurmctld: fatal: made unrunnable by test-runner" >&2\nexit 1\n' >"$TMP/bin/slurmctld"
chmod 755 "$TMP/bin/slurmctld"
# A cluster test as run-all runs it: a check, the cluster, a check after it. Its library is
# copied beside it, readable by the ordinary user below wherever the checkout lies.
mkdir "$TMP/mini"
cp tests/cli/lib.sh tests/cli/procs.sh tests/cli/cluster.sh "$TMP/mini/"
cat >"$TMP/test-mini.sh" <<EOF
PROCS_SH=$TMP/mini/procs.sh
. "$TMP/mini/lib.sh"
. "$TMP/mini/cluster.sh"
ok
cluster_up test-mini 1 1
ok
finish
EOF
chmod 755 "$TMP" "$TMP/mini" "$TMP/test-mini.sh"
chmod 644 "$TMP/mini/lib.sh" "$TMP/mini/procs.sh" "$TMP/mini/cluster.sh"
RUN_TIMEOUT=150 run env CI=true PATH="$TMP/bin:$PATH" sh "$TMP/test-mini.sh"
expect_status "CI=true, slurmctld unrunnable: the file fails" 1
expect_grep "CI=true, slurmctld unrunnable: says which daemon and why" "^FAIL: the Slurm test cluster did not start: slurm-cluster: slurmctld (pid [0-9]*) ended while the cluster started: .*made unrunnable by test-runner" "$ERR"
expect_grep "CI=true, slurmctld unrunnable: counted" "^1 passed, 1 failed, 0 skipped$" "$OUT"
# The same through run-all, on the real test-torque file: the run fails, the file's row says so.
RUN_TIMEOUT=300 run env CI=true PATH="$TMP/bin:$PATH" TESTS=torque sh tests/cli/run-all.sh "$BUILD"
expect_status "run-all, CI=true, slurmctld unrunnable: the run fails" 1
expect_grep "run-all: the reason in the output" "^FAIL: the Slurm test cluster did not start: .*slurmctld.*made unrunnable by test-runner" "$OUT"
expect_grep "run-all: test-torque's row has the failure" "^test-torque  *[0-9]*  *1  *0 " "$OUT"
# An ordinary user outside CI: the rest of the file is skipped, and said to be.
RUN_TIMEOUT=60 run setpriv --reuid=65534 --regid=65534 --clear-groups env -u CI HOME=/ TMPDIR="${TMPDIR:-/tmp}" \
	PATH="$TMP/bin:$PATH" sh "$TMP/test-mini.sh"
expect_status "not root: the skip does not fail the file" 0
expect_grep "not root: a SKIP line that says why" "^SKIP: test-mini: the rest of the file needs the Slurm test cluster, which needs root" "$ERR"
expect_grep "not root: counted as a skip" "^1 passed, 0 failed, 1 skipped$" "$OUT"
RUN_TIMEOUT=60 run setpriv --reuid=65534 --regid=65534 --clear-groups env CI=true HOME=/ TMPDIR="${TMPDIR:-/tmp}" \
	sh "$TMP/test-mini.sh"
expect_status "not root under CI=true: the skip is a failure" 1
finish
