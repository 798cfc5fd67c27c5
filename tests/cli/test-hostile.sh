# SPDX-License-Identifier: BSD-3-Clause
# A hostile job against a root monitor (issue 29): root attaches, as an administrator's prolog
# would, to the job of an ordinary user (nobody, uid 65534) who tries to turn the monitor against
# the machine. Each attack must fail; the monitor still reports the hang or says in one line why
# it cannot; nothing outside the user's own files is created, changed or made readable to them.
#   row 1  links planted where --core-dir's cores go (to a missing path in a root-only directory)
#   row 2  a rank that exec's setuid-root su and is stopped there: no core, no signal, not sampled
#   row 4  a library unlinked and a FIFO put where the map names it: the unwinder never blocks
#   row 5  a directory of the --trace path replaced by a link into a root-only directory
#   row 7  the monitor without CAP_SETUID: it refuses to write rather than write as root
#   files  the report and the cores are the user's, 0600
#   row 11 the site's report directory (--report-dir): root's file only on a path root alone can
#          change; the user's directory or link on the path: the user's file, or one line
#   3, 6, 8, 9, 10  a rank that forges its recording layer's record (each row alone in
#          tests/unit/test_record_check.c, and fuzzed: tests/fuzz/fuzz_record.c, fuzz_waitfor.c)
# Every process is started here and stopped by PID.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip "test-hostile: the whole file needs root and setpriv (a root monitor on another user's job)"
	finish
	exit
fi
U=65534
HOST=$(hostname)
STENCIL=$(cd "$BUILD/tests/apps" && pwd)/stencil
INJ=$(cd "$BUILD/tests" && pwd)/libpsinject.so
FIX=$BUILD/tests
chmod 711 "$TMP"
UHOME=$TMP/home
ROOTONLY=$TMP/rootonly
mkdir -p "$UHOME/cores" "$UHOME/lib" "$ROOTONLY"
chown -R "$U:$U" "$UHOME"
chmod 700 "$ROOTONLY"
printf 'root data\n' >"$ROOTONLY/secret"
printf 'root trace\n' >"$ROOTONLY/trace.txt"
chmod 600 "$ROOTONLY/secret" "$ROOTONLY/trace.txt"
AS_USER="setpriv --reuid=$U --regid=$U --clear-groups env HOME=$UHOME"

# user_job OUT NP ENV...: an MPI job of the user's, its ranks printing their PIDs ($MPI_ARGS:
# more of mpirun's options).
MPI_ARGS=""
user_job() {
	out=$1 np=$2
	shift 2
	MPIRUN_AS="$AS_USER PS_PRINT_PIDS=1 $*" mpirun_start "$out" "$np" $MPI_ARGS "$STENCIL"
}

# root_untouched NAME: the root-only directory holds what it held, as it was.
root_untouched() {
	if [ "$(ls "$ROOTONLY" | tr '\n' ' ')" = "secret trace.txt " ] && [ "$(cat "$ROOTONLY/secret")" = "root data" ] &&
		[ "$(cat "$ROOTONLY/trace.txt")" = "root trace" ] &&
		[ "$(stat -c '%u %a' "$ROOTONLY/secret" "$ROOTONLY/trace.txt" | tr '\n' ' ')" = "0 600 0 600 " ]; then
		ok
	else
		fail "$1: the root-only directory changed: $(ls -l "$ROOTONLY")"
	fi
}

# owned_by_user NAME FILE: FILE is the user's, mode 600.
owned_by_user() {
	if [ "$(stat -c '%u %a' "$2" 2>/dev/null)" = "$U 600" ]; then ok; else fail "$1: $2 is $(stat -c '%U %a' "$2" 2>&1)"; fi
}

# --- row 7: no CAP_SETUID: one line, nothing written as root --------------------------------------
if user_job "$TMP/job7.out" 2; then
	start "$TMP/attach7.err" setpriv --bounding-set=-setuid,-setgid "$PARASTACK" attach \
		--pids "$(rank_pid "$TMP/job7.out" 0),$(rank_pid "$TMP/job7.out" 1)" --trace "$UHOME/t7.txt"
	ATTACH7=$BG
	wait_for "$TMP/attach7.err" "cannot take the file identity of uid $U" 30
	if [ -e "$UHOME/t7.txt" ]; then fail "row 7: the trace was written anyway: $(stat -c '%U %a' "$UHOME/t7.txt")"; else ok; fi
	stop_started_one "$ATTACH7"
	for r in 0 1; do expect_untraced "row 7: rank $r" "$(rank_pid "$TMP/job7.out" $r)"; done
	stop_started_one "$MPIRUN"
fi

# --- rows 1 and 5, and the files' owner: a hang reported, cores and trace only as the user -------
if user_job "$TMP/job1.out" 3 PS_FAULT=spin PS_FAULT_RANK=1 PS_FAULT_AFTER=10; then
	P0=$(rank_pid "$TMP/job1.out" 0)
	$AS_USER ln -s "$ROOTONLY/missing" "$UHOME/cores/core.rank0.$HOST.$P0"
	$AS_USER ln -s "$ROOTONLY" "$UHOME/tracedir"
	REPORT=$UHOME/report.json
	RUN_TIMEOUT=240 run "$PARASTACK" attach --pids "$(rank_lines "$TMP/job1.out" | sort -n -k2 | sed 's/.* pid //' | tr '\n' ',' | sed 's/,$//')" \
		--seed 3 --confirm 5 --on-hang=kill --report "$REPORT" --core-dir "$UHOME/cores" --trace "$UHOME/tracedir/trace.txt"
	expect_status "rows 1, 5: the hang found, the job ended" 86
	jreport "rows 1, 5: the spinning rank named" '.verdict == "hang" and .faulty_ranks == [1]'
	owned_by_user "the report" "$REPORT"
	expect_grep "row 5: the trace refused in one line" "the trace: cannot write $UHOME/tracedir/trace.txt: Permission denied" "$ERR"
	jreport "row 1: the planted core name left alone" \
		'[.cores[] | select(.rank == 0) | .error | test("already there")] == [true]'
	jreport "row 1: rank 1's core written" '[.cores[] | select(.rank == 1) | .core] | length == 1'
	CORE1=$(jq -r '.cores[] | select(.rank == 1) | .core' "$REPORT")
	owned_by_user "row 1: rank 1's core" "$CORE1"
	if file "$CORE1" | grep -q "core file"; then ok; else fail "row 1: $CORE1 is not a core: $(file "$CORE1")"; fi
	root_untouched "rows 1, 5"
	if [ -L "$UHOME/cores/core.rank0.$HOST.$P0" ]; then ok; else fail "row 1: the planted link was replaced"; fi
	reap "$MPIRUN" 30 || fail "rows 1, 5: mpirun did not end once its ranks were ended"
fi

# --- row 2: a rank that becomes setuid-root su, stopped there, while the monitor watches ---------
# The fault comes once the model has learned the job (its status line has a threshold).
MPI_ARGS="-x LD_PRELOAD=$INJ -x PS_INJECT_RANK=2 -x PS_INJECT_CALL=1 -x PS_INJECT_KIND=setuid -x PS_INJECT_WHEN=$UHOME/go"
if user_job "$TMP/job2.out" 3; then
	P2=$(rank_pid "$TMP/job2.out" 2)
	REPORT=$UHOME/report2.json
	start "$TMP/attach2.err" "$PARASTACK" attach --pids "$(rank_lines "$TMP/job2.out" | sort -n -k2 | sed 's/.* pid //' | tr '\n' ',' | sed 's/,$//')" \
		--seed 3 --confirm 5 --progress 1 --report "$REPORT" --core-dir "$UHOME/cores"
	ATTACH2=$BG
	wait_for "$TMP/attach2.err" "suspicion when S <=" 120
	$AS_USER touch "$UHOME/go"
	deadline=$(($(date +%s) + 60))
	until [ "$(proc_state "$P2")" = T ] || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.1; done
	if [ "$(proc_state "$P2")" = T ] && grep -q "^Uid:[[:space:]]*$U[[:space:]]*0[[:space:]]" "/proc/$P2/status"; then ok; else
		fail "row 2: rank 2 did not become a stopped setuid process: $(proc_state "$P2") $(grep Uid "/proc/$P2/status")"; fi
	wait_for "$TMP/attach2.err" "HANG DETECTED" 180
	if wait_report '.verdict == "hang" and .cores' 120; then ok; fi
	jreport "row 2: the setuid rank not sampled, said why" \
		'[.ranks[] | select(.rank == 2) | .path | test("now runs another program")] == [true]'
	jreport "row 2: no core of the setuid rank, and why" \
		'[.cores[] | select(.rank == 2) | .core == null and (.error | test("now runs another program"))] == [true]'
	if ls "$UHOME/cores" | grep -q "core.rank2"; then fail "row 2: a core of the setuid rank: $(ls -l "$UHOME/cores")"; else ok; fi
	kill -TERM "$ATTACH2"
	if reap "$ATTACH2" 30; then ok; else fail "row 2: attach did not exit after SIGTERM"; fi
	if [ "$(proc_state "$P2")" = T ]; then ok; else fail "row 2: the setuid rank was touched: $(proc_state "$P2")"; fi
	expect_untraced "row 2: the setuid rank" "$P2"
	if [ -z "$(find "$UHOME" -user 0)" ]; then ok; else fail "row 2: root-owned files in the user's home: $(find "$UHOME" -user 0)"; fi
	root_untouched "row 2"
	stop_started_one "$MPIRUN"
	# The stopped su is the test's own (a rank it started): ended by its PID, whatever mpirun did.
	kill -CONT "$P2" 2>/dev/null
	kill -KILL "$P2" 2>/dev/null
fi
MPI_ARGS=""

# --- row 11 (issue 41): the site's report directory (--report-dir) of a root monitor ----------
# Root writes there as root only where root alone can change every component of the path (a
# root-owned 0755 directory, as /var/log/parastack); a directory of the user's, or the user's link
# on the path, makes it the user's file, or a one-line refusal: never root's file.
SITE=$(mktemp -d /var/lib/parastack-test.XXXXXX)
trap 'stop_started; rm -rf "$SITE"; tmp_remove' EXIT
chmod 755 "$SITE"
mkdir -m 750 "$SITE/reports" "$SITE/real"
chmod 755 "$SITE/real"
mkdir -p "$UHOME/site"
chown "$U:$U" "$UHOME/site"
$AS_USER ln -s "$SITE/real" "$UHOME/tosite"
# site_attach NAME DIR: root attaches with --report-dir DIR until the hang is reported, then is
# stopped by its PID.
site_attach() {
	start "$TMP/site-$1.err" "$PARASTACK" attach --pids "$SITE_PIDS" --seed 3 --confirm 5 --on-hang=report \
		--report-dir "$2"
	SITE_ATTACH=$BG
	wait_for "$TMP/site-$1.err" "HANG DETECTED" 120 || fail "row 11, $1: no hang reported: $(tail -3 "$TMP/site-$1.err")"
	sleep 1 # the report's files are written after its text
	stop_started_one "$SITE_ATTACH"
}
if user_job "$TMP/job11.out" 3 PS_FAULT=spin PS_FAULT_RANK=1 PS_FAULT_AFTER=5; then
	SITE_PIDS=$(rank_lines "$TMP/job11.out" | sort -n -k2 | sed 's/.* pid //' | tr '\n' ',' | sed 's/,$//')
	site_attach trusted "$SITE/reports"
	f=$(ls "$SITE/reports"/parastack-*.json 2>/dev/null | head -n 1)
	if [ -n "$f" ] && [ "$(stat -c '%u %g %a' "$f")" = "0 $(stat -c %g "$SITE/reports") 640" ]; then ok; else
		fail "row 11: a root-owned 0755 path: want root's file, 0640, the directory's group: ${f:-none} $(stat -c '%U %G %a' "$f" 2>&1)"; fi
	REPORT=$f
	jreport "row 11: the site's copy names the spinning rank" '.verdict == "hang" and .faulty_ranks == [1]'
	site_attach user "$UHOME/site"
	f=$(ls "$UHOME/site"/parastack-*.json 2>/dev/null | head -n 1)
	if [ -n "$f" ] && [ "$(stat -c '%u %a' "$f")" = "$U 640" ]; then ok; else
		fail "row 11: a directory of the user's: want the user's file, 0640: ${f:-none} $(stat -c '%U %a' "$f" 2>&1)"; fi
	site_attach link "$UHOME/tosite"
	expect_grep "row 11: through the user's link: refused in one line" \
		"the site's report directory: cannot write $UHOME/tosite/parastack-.*Permission denied" "$(cat "$TMP/site-link.err")"
	if [ -z "$(ls -A "$SITE/real")" ]; then ok; else fail "row 11: written through the user's link: $(ls -l "$SITE/real")"; fi
	if [ -z "$(find "$UHOME" -user 0)" ]; then ok; else fail "row 11: root-owned files in the user's home: $(find "$UHOME" -user 0)"; fi
	root_untouched "row 11"
	stop_started_one "$MPIRUN"
fi

# --- row 4: a FIFO where the map names a library the rank unlinked: sampled, never blocked --------
cp "$FIX/libremap_b.so" "$UHOME/lib/" && chown "$U:$U" "$UHOME/lib/libremap_b.so"
start "$TMP/fifo.out" $AS_USER "$FIX/remap" "$UHOME/lib" fifo
FIFO_PROC=$BG
wait_for "$TMP/fifo.out" loaded
start "$TMP/fifo.loop" "$FIX/sample_loop" --frames "$FIFO_PROC" 0 100
FIFO_LOOP=$BG
wait_for "$TMP/fifo.loop" "frames .*plant_fifo main"
kill -USR1 "$FIFO_PROC"
wait_for "$TMP/fifo.out" planted
# Its frames still read whole (the tables come from its memory, not from the file).
if wait_for "$TMP/fifo.loop" "frames pause libremap_b.so.*+0x[0-9a-f]* plant_fifo main" 20; then ok; fi
if [ -p "$UHOME/lib/libremap_b.so (deleted)" ]; then ok; else fail "row 4: no FIFO was planted"; fi
stop_started_one "$FIFO_LOOP"
expect_untraced "row 4: the rank with the FIFO" "$FIFO_PROC"
RUN_TIMEOUT=30 run "$PARASTACK" stack "$FIFO_PROC"
expect_status "row 4: parastack stack of it, without blocking" 0
stop_started_one "$FIFO_PROC"

# --- rows 3, 6, 8, 9, 10 end to end: a rank forges its record, then waits where nobody answers ---
# (tests/fixtures/psinject.c, kind forge). The monitor must still end, report the hang from the
# stacks for that rank, name only ranks of the job, and keep the report small.
REPORT=$TMP/forged.json
RUN_TIMEOUT=240 run "$PARASTACK" run --seed 3 --confirm 5 --report "$REPORT" -- mpirun --oversubscribe -np 3 \
	-x LD_PRELOAD="$INJ" -x PS_INJECT_RANK=1 -x PS_INJECT_CALL=10 -x PS_INJECT_KIND=forge "$STENCIL"
expect_status "forged record: the hang found, the job ended" 86
jreport "forged record: left out, said why" '[.ranks[] | select(.rank == 1) | .record_unreadable | length > 0] == [true]'
jreport "forged record: only ranks of the job named" '.faulty_ranks | length > 0 and all(. >= 0 and . < 3)'
expect_grep "forged record: one line in the text report" "rank 1's record is unreadable (.*): its wait is read from its stack" "$ERR"
if [ "$(stat -c %s "$REPORT")" -lt 1000000 ]; then ok; else fail "forged record: a report of $(stat -c %s "$REPORT") bytes"; fi

# --- what held before, and must keep holding --------------------------------------------------
# (Also tested elsewhere: quotes and system() in plot titles and trace names, test-plot; a FIFO
# at a library's own path and a library mapped after the target was opened, test-stack; a record
# of garbage bytes and 65,536 fake members, tests/unit/test_record_check.c and the fuzzers.)
run $AS_USER "$PARASTACK" attach --pids 1
expect_error "attach --pids 1 as a user" 1 "PID 1: may not be traced by this user .*nothing was attached"
run "$PARASTACK" attach --pids 1
expect_error "attach --pids 1 as root" 1 "PID 1: \(maps no communication library\|may not be traced\)"
run "$PARASTACK" attach --pids-file /etc/shadow
if [ "$RC" -ne 0 ] && [ "$(printf '%s\n' "$ERR" | wc -l)" -eq 1 ] && ! printf '%s' "$ERR" | grep -q '\$[0-9a-z]*\$'; then ok; else
	fail "--pids-file /etc/shadow: status $RC, said: $ERR"; fi
# parastack run killed outright while it watches: no rank left stopped or traced. Its monitor
# watches on (the job runs on), so a rank may be caught in a sample's stop of a moment: left
# stopped is stopped in every look over 2 s. Once the monitor is ended, no rank is traced.
start "$TMP/killed.out" env PS_PRINT_PIDS=1 "$PARASTACK" run -- mpirun --oversubscribe -np 2 "$STENCIL"
RUN=$BG
wait_for "$TMP/killed.out" "watching 2 ranks" 60
# The ranks print their PIDs once MPI_Init returns, which may be after the watch begins.
deadline=$(($(date +%s) + 60))
while [ "$(rank_lines "$TMP/killed.out" | wc -l)" -lt 2 ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.1; done
TREE=$(descendants "$RUN")
for p in $TREE; do remember "$p"; done # signalled below only while still these processes
kill -KILL "$RUN"
reap "$RUN" 10
for r in 0 1; do
	p=$(rank_pid "$TMP/killed.out" $r) looks=""
	[ -n "$p" ] || { fail "parastack run killed: rank $r never printed its PID: $(tail -3 "$TMP/killed.out")"; continue; }
	for i in 1 2 3 4 5 6 7 8 9 10; do
		looks="$looks$(proc_state "$p")"
		sleep 0.2
	done
	case $looks in
	'' | *[!tT]*) ok ;; # gone, or running in some look
	*) fail "parastack run killed: rank $r left stopped (states over 2 s: $looks)" ;;
	esac
done
MONITORS=""
for p in $TREE; do
	proc_ours "$p" || continue
	case $(readlink "/proc/$p/exe" 2>/dev/null) in */parastack-monitor) MONITORS="$MONITORS $p" ;; esac
done
if [ -n "$MONITORS" ]; then ok; else fail "parastack run killed: no monitor among its processes: $TREE"; fi
for p in $MONITORS; do proc_ours "$p" && kill -TERM "$p" 2>/dev/null; done
for p in $MONITORS; do reap_other "$p" 10 || { proc_ours "$p" && kill -KILL "$p" 2>/dev/null; }; done
for r in 0 1; do expect_untraced "parastack run killed: rank $r" "$(rank_pid "$TMP/killed.out" $r)"; done
for p in $TREE; do proc_ours "$p" && kill -TERM "$p" 2>/dev/null; done
for p in $TREE; do reap_other "$p" 10 || { proc_ours "$p" && kill -KILL "$p" 2>/dev/null; }; done

stop_started
finish
