# SPDX-License-Identifier: BSD-3-Clause
# Integration tests of the sampler and `parastack stack` on real processes: known call chains
# (plain and inlined), threads, deep stacks, a real Open MPI job in known states (C and Fortran
# bindings), code that moved since the map was read, bad PIDs, zombies, stopped targets, a sampler killed mid-sample, and EPERM.
. "$(dirname "$0")/lib.sh"
FIX=$BUILD/tests

# funcs JSON-PATH: the function names of a thread's frames, space-separated.
funcs() {
	printf '%s' "$OUT" | jq -r "$1 | [.frames[].func // \"?\"] | join(\" \")"
}

# expect_chain NAME "FUNCS" "f3 f2 f1": the names appear in this order.
expect_chain() {
	pat=$(printf '%s' "$3" | sed 's/ /( .*)? /g')
	if printf '%s' "$2" | grep -Eq "(^| )$pat( |$)"; then ok; else fail "$1: '$3' not in order in: $2"; fi
}

# --- known call chains -------------------------------------------------------------------
start "$TMP/cc0" "$FIX/callchain-O0" sleep
CC0=$BG
wait_for "$TMP/cc0" ready
run "$PARASTACK" stack --json "$CC0"
expect_status "stack callchain" 0
expect_json "no MPI: OUT_MPI, rank null" '.[0].state == "OUT_MPI" and .[0].rank == null and .[0].uses_mpi == false and .[0].pid == '"$CC0"
expect_chain "plain chain" "$(funcs '.[0].threads[0]')" "pause f3 f2 f1 pad f0 main"
expect_json "file:line of f3" '[.[0].threads[0].frames[] | select(.func == "f3")][0] | (.file | endswith("callchain.c")) and .line > 0'
expect_json "main thread" '.[0].threads[0].main and .[0].threads[0].counted and .[0].threads[0].tid == '"$CC0"
expect_json "PCs as hex strings, as in the text" 'all(.[0].threads[0].frames[]; .pc | test("^0x[0-9a-f]+$"))'
printf '%s' "$OUT" >"$TMP/stack.json"
expect_keys_documented "stack --json keys" "$TMP/stack.json"
expect_untraced "after stack" "$CC0"

start "$TMP/cc2" "$FIX/callchain-inlined" spin
CC2=$BG
wait_for "$TMP/cc2" ready
run "$PARASTACK" stack --json "$CC2"
expect_chain "inlined chain" "$(funcs '.[0].threads[0]')" "f3 f2 f1 pad f0 main"
expect_json "inlined frames flagged" '[.[0].threads[0].frames[] | select(.func == "f2" or .func == "f1") | .inlined] == [true, true]'
expect_json "physical frame keeps offset" '[.[0].threads[0].frames[] | select(.func == "pad")][0].offset > 0'
# More MPI objects by name: counting libc as MPI puts the sleeping chain (in pause) IN_MPI.
run env PARASTACK_MPI_LIBS=libfoo:libc.so "$PARASTACK" stack --json "$CC0"
expect_json "PARASTACK_MPI_LIBS" '.[0].state == "IN_MPI" and .[0].uses_mpi'
run "$PARASTACK" stack "$CC2"
expect_grep "text output" "f2 (inlined)" "$OUT"
expect_grep "text header" "^process $CC2: OUT_MPI" "$OUT"

start "$TMP/cc4" "$FIX/callchain-O0" spin 4 40
CC4=$BG
wait_for "$TMP/cc4" ready
run "$PARASTACK" stack --json "$CC4"
expect_json "four threads, all application" '(.[0].threads | length) == 4 and all(.[0].threads[]; .counted)'
expect_json "deep stacks" 'all(.[0].threads[]; ([.frames[] | select(.func == "pad")] | length) == 41)'
for i in 1 2 3; do
	expect_chain "thread $i chain" "$(funcs ".[0].threads[$i]")" "f3 f2 f1 pad f0 thread_main start_thread"
done
expect_untraced "threads after stack" "$CC4"

# --- a real Open MPI job in known states -------------------------------------------------
if mpirun_start "$TMP/mpi" 5 "$FIX/mpi_states"; then
	for r in 0 1 2 3 4; do eval "R$r=\$(rank_pid \"\$TMP/mpi\" $r)"; done
	run "$PARASTACK" stack --json "$R0" "$R1" "$R2" "$R3" "$R4"
	expect_status "stack of five ranks" 0
	expect_json "ranks from the environment" '[.[].rank] == [0, 1, 2, 3, 4] and all(.[]; .uses_mpi)'
	expect_json "rank 0 computes" '.[0].state == "OUT_MPI"'
	expect_chain "rank 0 frames" "$(funcs '.[0].threads[0]')" "compute_kernel main"
	expect_json "ranks 1-4 in MPI" '[.[1:][].state] == ["IN_MPI", "IN_MPI", "IN_MPI", "IN_MPI"]'
	expect_chain "rank 1 in MPI_Recv" "$(funcs '.[1].threads[0]')" "PMPI_Recv wait_in_recv main"
	expect_chain "rank 2 in MPI_Barrier" "$(funcs '.[2].threads[0]')" "PMPI_Barrier main"
	expect_chain "rank 4 in MPI_Allreduce" "$(funcs '.[4].threads[0]')" "PMPI_Allreduce main"
	expect_json "MPI frames marked" '[.[1].threads[0].frames[] | select(.func == "PMPI_Recv")][0].in_mpi'
	expect_json "runtime threads not counted" 'all(.[]; [.threads[] | select(.main | not) | .counted] | all(. == false))'
	expect_json "runtime threads exist" 'all(.[]; (.threads | length) >= 2)'
	# A whole job at once, merged as STAT draws it: by the launcher, or by a PID file.
	run "$PARASTACK" stack --tree --launcher "$MPIRUN"
	expect_status "stack --tree --launcher" 0
	expect_grep "tree: every rank under main" "^    main  *0-4$" "$OUT"
	expect_grep "tree: rank 1 in wait_in_recv" "^      wait_in_recv  *1$" "$OUT"
	expect_grep "tree: rank 0 computes" "^      compute_kernel  *0$" "$OUT"
	run "$PARASTACK" stack --tree --json --launcher "$MPIRUN"
	expect_json "tree as JSON" '.[0].frame == "main" and .[0].count == 5 and ([.[0].children[].frame] | index("MPI_Allreduce")) != null'
	for r in 0 1 2 3 4; do echo "$(hostname) $(rank_pid "$TMP/mpi" $r) $r"; done >"$TMP/mpi.pids"
	run "$PARASTACK" stack --tree --pids-file "$TMP/mpi.pids"
	expect_grep "tree from a PID file" "^    main  *0-4$" "$OUT"
	run "$PARASTACK" stack --launcher "$MPIRUN" "$R0"
	expect_error "PIDs and --launcher" 2 "name the processes once"
	# The monitors' one-look mode behind `stack --slurm-job` (test-slurm runs it on 4 nodes):
	# here one monitor, an MPI job of its own, gathers and prints in rank order.
	run mpirun -np 1 "$BUILD/parastack-monitor" --launcher-pid "$MPIRUN" --stack json
	expect_json "monitor --stack json: five ranks, each with its host" "[.[].rank] == [0,1,2,3,4] and all(.[]; .host == \"$(hostname)\" and (.threads | length) >= 2)"
	run mpirun -np 1 "$BUILD/parastack-monitor" --launcher-pid "$MPIRUN" --stack text
	expect_grep "monitor --stack text: rank 1 named with its host" "^process $R1 rank 1 on $(hostname): IN_MPI$" "$OUT"
	expect_untraced "after the monitor's look" "$R1"
	# The MPI_Test busy-wait rank: in MPI nearly always, and caught inside MPI_Test.
	run "$FIX/sample_loop" "$R3" 200
	inmpi=$(printf '%s\n' "$OUT" | grep -c '^IN_MPI$')
	if [ "$inmpi" -ge 180 ]; then ok; else fail "MPI_Test rank IN_MPI in $inmpi of 200 samples"; fi
	run "$PARASTACK" stack --json "$R3"
	expect_chain "rank 3 in MPI_Test" "$(funcs '.[0].threads[0]')" "PMPI_Test wait_in_test_loop main"
	run "$FIX/sample_loop" "$R0" 50
	if [ "$(printf '%s\n' "$OUT" | grep -c '^OUT_MPI$')" -eq 50 ]; then ok; else fail "computing rank: $OUT"; fi
	# Progress fingerprints: a rank blocked for good shows one fingerprint in every sample
	# (in MPI_Recv, MPI_Barrier, an MPI_Test loop, MPI_Allreduce), though its progress engine
	# runs all the while.
	for r in 1 2 3 4; do
		eval "pid=\$R$r"
		run "$FIX/sample_loop" --fingerprint "$pid" 20 20
		distinct=$(printf '%s\n' "$OUT" | awk '{ print $1, $3 }' | sort -u | wc -l)
		if [ "$distinct" -eq 1 ] && printf '%s' "$OUT" | grep -q "^IN_MPI fp [0-9a-f]* init 0 kernel 0$"; then ok; else fail "blocked rank $r: fingerprints vary: $(printf '%s\n' "$OUT" | sort | uniq -c)"; fi
	done
	for r in "$R0" "$R1" "$R2" "$R3" "$R4"; do expect_untraced "MPI rank $r" "$r"; done
fi
# A rank waiting inside MPI_Init (rank 0 starts late): starting, not hung. Rank 0 waits 300 s
# (the job is stopped as soon as it is checked): 60 ran out once on a loaded machine before the
# fifth sample.
if LATE_INIT=300 mpirun_start "$TMP/late" 3 "$FIX/mpi_states"; then
	# It prints its pid before it calls MPI_Init: first see it there.
	deadline=$(($(date +%s) + 30))
	until "$FIX/sample_loop" --fingerprint "$(rank_pid "$TMP/late" 1)" 1 | grep -q ' init 1 ' ||
		[ "$(date +%s)" -ge "$deadline" ]; do sleep 0.1; done
	# Five samples in a row; a sample a loaded machine cuts short (a thread slow to stop ends
	# sample_loop) is taken again, until a deadline (a suite on a loaded machine: one sample
	# printed, then sample_loop ended).
	deadline=$(($(date +%s) + 60))
	until run "$FIX/sample_loop" --fingerprint "$(rank_pid "$TMP/late" 1)" 5 50; [ "$RC" -eq 0 ] ||
		[ "$(date +%s)" -ge "$deadline" ]; do sleep 0.5; done
	if [ "$(printf '%s\n' "$OUT" | grep -c ' init 1 ')" -eq 5 ]; then ok; else fail "rank in MPI_Init not seen there: $OUT $ERR"; fi
	# A watch says why it suspects nothing for so long: ranks in MPI_Init past the window.
	start "$TMP/late.watch" "$PARASTACK" attach --pids "$(rank_pid "$TMP/late" 0),$(rank_pid "$TMP/late" 1),$(rank_pid "$TMP/late" 2)" --seed 3 --confirm 5
	WATCH=$BG
	if wait_for "$TMP/late.watch" "inside MPI_Init for [0-9]* s ([0-9]* of the [0-9]* sampled last): still starting up" 90; then ok; fi
	if grep -q "HANG\|suspected hang" "$TMP/late.watch"; then fail "start-up taken for a hang: $(cat "$TMP/late.watch")"; else ok; fi
	stop_started_one "$WATCH"
	for r in 0 1 2; do expect_untraced "late rank $r after the watch" "$(rank_pid "$TMP/late" "$r")"; done
	stop_started_one "$MPIRUN"
fi
# A job that gets somewhere: the fingerprints of a rank waiting in MPI change between samples.
# Little compute per iteration (PS_WORK), so most samples find it in MPI: with the default
# work an idle machine showed it there in 1 sample of 40 (make check, a fresh clone).
if PS_WORK=0.02 PS_PRINT_PIDS=1 mpirun_start "$TMP/moving" 4 "$BUILD/tests/apps/stencil"; then
	run "$FIX/sample_loop" --fingerprint "$(rank_pid "$TMP/moving" 1)" 40 50
	distinct=$(printf '%s\n' "$OUT" | grep '^IN_MPI' | awk '{ print $3 }' | sort -u | wc -l)
	if [ "$distinct" -ge 3 ]; then ok; else fail "a moving rank showed $distinct fingerprint(s) in MPI: $OUT"; fi
	stop_started_one "$MPIRUN"
fi

if mpirun_start "$TMP/mpif" 3 "$FIX/mpi_states_f"; then
	F0=$(rank_pid "$TMP/mpif" 0)
	F1=$(rank_pid "$TMP/mpif" 1)
	F2=$(rank_pid "$TMP/mpif" 2)
	run "$PARASTACK" stack --json "$F0" "$F1" "$F2"
	expect_json "Fortran states" '[.[].state] == ["OUT_MPI", "IN_MPI", "IN_MPI"] and [.[].rank] == [0, 1, 2]'
	expect_chain "Fortran rank 0" "$(funcs '.[0].threads[0]')" "compute_kernel MAIN__"
	expect_chain "Fortran MPI_RECV binding" "$(funcs '.[1].threads[0]')" "PMPI_Recv ompi_recv_f MAIN__"
	expect_chain "Fortran MPI_BARRIER binding" "$(funcs '.[2].threads[0]')" "PMPI_Barrier ompi_barrier_f MAIN__"
	for pid in "$F1" "$F2"; do
		run "$FIX/sample_loop" --fingerprint "$pid" 20 20
		if [ "$(printf '%s\n' "$OUT" | awk '{ print $3 }' | sort -u | wc -l)" -eq 1 ]; then ok; else fail "blocked Fortran rank $pid: fingerprints vary"; fi
	done
fi

# --- a process in uninterruptible sleep (D): never seized, never taken for gone ------------------
start "$TMP/dstate" "$FIX/dstate" 4
DS=$BG
wait_for "$TMP/dstate" "^pid "
deadline=$(($(date +%s) + 10))
until [ "$(proc_state "$DS")" = D ] || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.05; done
run "$FIX/sample_loop" --fingerprint "$DS" 5
if [ "$RC" -eq 0 ] && [ "$(printf '%s\n' "$OUT" | grep -c 'kernel 1$')" -eq 5 ]; then ok; else fail "D-state process: $OUT $ERR"; fi
run "$PARASTACK" stack --json "$DS"
expect_json "stack: in the kernel, with its wait channel" '.[0].in_kernel == true and (.[0].wchan | length > 0)'
run "$PARASTACK" stack "$DS"
expect_grep "stack text: in the kernel" "in the kernel: uninterruptible sleep (D)" "$OUT"
reap_other_state() { # PID STATE SECONDS: wait until the process is in STATE
	deadline=$(($(date +%s) + $3))
	while [ "$(proc_state "$1")" != "$2" ]; do [ "$(date +%s)" -ge "$deadline" ] && return 1; sleep 0.1; done
}
if reap_other_state "$DS" S 10; then ok; else fail "D-state process: still $(proc_state "$DS") after its sleep"; fi
expect_untraced "D-state process after it left the kernel" "$DS"
stop_started_one "$DS"

# --- a target that unlinks its executable and plants a FIFO where "<path> (deleted)" was: the
# mapped file is opened without blocking, seen not to be a regular file, and skipped.
cp "$FIX/callchain-O0" "$TMP/planted"
start "$TMP/planted.out" "$TMP/planted" sleep
PLANTED=$BG
wait_for "$TMP/planted.out" ready
rm "$TMP/planted"
mkfifo "$TMP/planted (deleted)"
RUN_TIMEOUT=30 run "$PARASTACK" stack "$PLANTED"
expect_status "stack of a target with a planted FIFO (no block)" 0
RUN_TIMEOUT=30 run "$FIX/sample_loop" "$PLANTED" 5
expect_status "sampling a target with a planted FIFO (no block)" 0
expect_untraced "planted FIFO target" "$PLANTED"
stop_started_one "$PLANTED"

# --- code that moved since the map was read (MPI_Init loads a transport, finds no hardware and
# unloads it; the next library lands in its place): the sampler reads the map again (at most
# once a second) and names the new library's frame; once it has, never the old library's symbol.
start "$TMP/remap.out" "$FIX/remap" "$FIX"
REMAP=$BG
wait_for "$TMP/remap.out" loaded
start "$TMP/remap.loop" "$FIX/sample_loop" --frames "$REMAP" 0 100
REMAP_LOOP=$BG
wait_for "$TMP/remap.loop" "frames .*sigwait main"
kill -USR1 "$REMAP"
wait_for "$TMP/remap.out" swapped
if wait_for "$TMP/remap.loop" "frames pause remap_wait main" 20; then ok; fi
expect_grep "moved code: the old library's symbol not named again" "^0$" \
	"$(sed -n '/remap_wait/,$p' "$TMP/remap.loop" | grep -c remap_data)"
stop_started_one "$REMAP_LOOP"
expect_untraced "moved code: after the sampler" "$REMAP"
stop_started_one "$REMAP"

# --- names from a binary's debug information are escaped, never sent raw to the terminal ------
start "$TMP/evil.out" "$FIX/evilname"
EVIL=$BG
wait_for "$TMP/evil.out" ready
run "$PARASTACK" stack "$EVIL"
if printf '%s' "$OUT" | LC_ALL=C grep -q "$(printf '\033')\|$(printf '\007')"; then fail "stack: a control byte reached the terminal"; else ok; fi
expect_grep "stack: the escaped file name" 'evil\\x1b\]0;pwned\\x07\\xff\.c' "$OUT"
run "$PARASTACK" stack --json "$EVIL"
expect_json "stack --json: the file name kept, escaped" '[.[0].threads[0].frames[] | select(.func == "evil_loop") | .file | endswith("evil\\x1b]0;pwned\\x07\\xff.c")] == [true]'
stop_started_one "$EVIL"

# --- bad PIDs ------------------------------------------------------------------------------
run "$PARASTACK" stack --json 4194303 "$CC0"
expect_status "missing pid among good ones" 1
expect_error "missing pid message" 1 "parastack stack: 4194303: no such process"
expect_json "the good pid still reported" 'length == 1 and .[0].pid == '"$CC0"
for bad in abc 0 -5 12x; do
	run "$PARASTACK" stack "$bad"
	expect_error "pid '$bad'" 2 "is not a process id"
done
run "$PARASTACK" stack
expect_error "no pid" 2 "name the processes once: PIDs, --pids LIST, --launcher PID, --pids-file FILE or --slurm-job JOBID"
# --pids LIST as attach takes it (issue 70: it was read as --pids-file's abbreviation).
run "$PARASTACK" stack --json --pids "$CC0"
expect_status "--pids LIST" 0
expect_json "--pids LIST: that process" 'length == 1 and .[0].pid == '"$CC0"
run "$PARASTACK" stack --pids "$CC0,$CC0"
expect_error "--pids: a PID twice" 2 "parastack stack: --pids: PID $CC0 is listed twice"
run "$PARASTACK" stack --pids "$CC0" "$CC0"
expect_error "--pids and PIDs both" 2 "name the processes once"
# A zombie: sh execs sleep, whose child it never reaps.
start "$TMP/zombie" sh -c 'sleep 0 & exec sleep 60'
ZPARENT=$BG
deadline=$(($(date +%s) + 10))
ZOMBIE=""
while [ -z "$ZOMBIE" ] && [ "$(date +%s)" -lt "$deadline" ]; do
	for c in $(cat "/proc/$ZPARENT/task/$ZPARENT/children" 2>/dev/null); do
		[ "$(proc_state "$c")" = Z ] && ZOMBIE=$c
	done
	sleep 0.1
done
run "$PARASTACK" stack "$ZOMBIE"
expect_error "zombie" 1 "is a zombie"

# --- a stopped target is read and left stopped ---------------------------------------------
kill -STOP "$CC4"
deadline=$(($(date +%s) + 10))
while [ "$(proc_state "$CC4")" != T ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.05; done
run "$PARASTACK" stack --json "$CC4"
expect_status "stack of a stopped process" 0
expect_json "stopped threads flagged" 'all(.[0].threads[]; .stopped)'
expect_chain "stopped chain" "$(funcs '.[0].threads[0]')" "f3 f2 f1 pad"
if [ "$(proc_state "$CC4")" = T ]; then ok; else fail "stopped target resumed: state $(proc_state "$CC4")"; fi
expect_untraced "stopped target" "$CC4"
kill -CONT "$CC4"

# --- the sampler killed at random moments never leaves a target stopped or traced -----------
for target in "$CC4" "${R1:-$CC0}"; do
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
		start "$TMP/loop" "$FIX/sample_loop" "$target"
		LOOP=$BG
		wait_for "$TMP/loop" "_MPI" 10
		sleep "0.0$i"
		kill -KILL "$LOOP"
		reap "$LOOP" || fail "sampler survived SIGKILL"
		expect_untraced "SIGKILL $i ($target)" "$target"
		state=$(proc_state "$target")
		if [ "$state" = R ] || [ "$state" = S ]; then ok; else fail "after SIGKILL $i: state $state"; fi
	done
	for sig in INT TERM HUP; do
		start "$TMP/loop" "$FIX/sample_loop" "$target"
		LOOP=$BG
		wait_for "$TMP/loop" "_MPI" 10
		kill "-$sig" "$LOOP"
		if reap "$LOOP" 10; then ok; else fail "sampler ignored SIG$sig"; fi
		expect_untraced "SIG$sig ($target)" "$target"
	done
done

run "$PARASTACK" stack --launcher "$CC0"
expect_error "--launcher without MPI ranks below it" 1 "no MPI ranks among its descendants"
# The monitors' one look at a job with no MPI rank: one line after its 10-s wait, exit 1.
RUN_TIMEOUT=60 run mpirun -np 1 "$BUILD/parastack-monitor" --launcher-pid "$CC0" --stack tree
expect_status "monitor --stack without ranks" 1
expect_grep "monitor --stack without ranks: said" "parastack stack: no MPI ranks found in the job's processes" "$ERR"
run "$BUILD/parastack-monitor" --launcher-pid "$CC0" --stack dot
expect_error "monitor --stack: bad format" 2 "--stack: 'dot' is none of text, json, tree, tree-json"

# --- an ordinary user: own processes work, another user's give one clear line ---------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
	run $AS_NOBODY "$PARASTACK" stack "$CC0"
	expect_error "another user's process" 1 "$CC0: .*Permission denied — it is not your process"
	start "$TMP/own" $AS_NOBODY "$FIX/callchain-O0" sleep
	wait_for "$TMP/own" ready
	OWN=$(sed -n 's/^ready //p' "$TMP/own")
	run $AS_NOBODY "$PARASTACK" stack --json "$OWN"
	expect_status "own process as nobody" 0
	expect_chain "own process chain" "$(funcs '.[0].threads[0]')" "f3 f2 f1 pad f0 main"
	# Root reads a target's files as the target's owner: nobody's process, run from an
	# executable only root may read, gives root no names from that executable either (its
	# libraries, readable by all, still have theirs).
	chmod 755 "$TMP"
	cp "$FIX/callchain-O0" "$TMP/xonly"
	chmod 0711 "$TMP/xonly"
	start "$TMP/xo" $AS_NOBODY "$TMP/xonly" sleep
	wait_for "$TMP/xo" ready
	XO=$(sed -n 's/^ready //p' "$TMP/xo")
	run "$PARASTACK" stack --json "$XO"
	expect_status "execute-only executable, as root" 0
	expect_json "its files read as its owner" '[.[0].threads[0].frames[].func] | index("pause") != null and index("f3") == null and index("main") == null'
	run "$PARASTACK" stack --json "$OWN"
	expect_chain "a readable one still named" "$(funcs '.[0].threads[0]')" "f3 f2 f1 pad f0 main"
fi
# --- names as their authors wrote them: a C++ code laid out as LAMMPS is, and a Fortran code
# whose work lives in a module, each with rank 1 spinning in its own code and rank 0 waiting in
# MPI for it. C++ and module procedures demangled in the text, the tree and the JSON (the raw
# symbol beside); their stripped copies' paths start at main (the frame the C runtime calls),
# never at _start; the stripped C++ program's library keeps its names (LAMMPS's packaging).
# names_tree NAME APP WANT: the job's tree, polled until it shows WANT (rank 1 in its spin,
# rank 0 in MPI), then its text ($OUT) and JSON ($NAMES_JSON) are checked by the caller.
names_tree() {
	if ! PS_FAULT=spin PS_FAULT_RANK=1 PS_FAULT_AFTER=0 PS_PRINT_PIDS=1 mpirun_start "$TMP/$1" 2 "$BUILD/tests/apps/$2"; then
		return 1
	fi
	deadline=$(($(date +%s) + 60))
	until run "$PARASTACK" stack --tree --launcher "$MPIRUN" && printf '%s' "$OUT" | grep -q -- "$3" &&
		printf '%s' "$OUT" | grep -q "MPI_"; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			fail "$1: the tree never showed '$3' and an MPI call: $OUT $ERR"
			return 1
		fi
		sleep 0.2
	done
	TREE=$OUT
	run "$PARASTACK" stack --json --launcher "$MPIRUN"
	NAMES_JSON=$OUT
	run "$PARASTACK" stack --launcher "$MPIRUN"
	TEXT=$OUT
	kill "$MPIRUN"
	reap "$MPIRUN" 30
	started_forget "$MPIRUN"
}
# no_mangled NAME TEXT: no C++ or gfortran-module symbol left in it.
no_mangled() {
	bad=$(printf '%s\n' "$2" | grep -E "(^|[ >])_Z[A-Za-z0-9_]|_MOD_" | head -3)
	if [ -z "$bad" ]; then ok; else fail "$1: mangled names: $bad"; fi
}
if names_tree cxx halo_cxx "Sim::Pair::compute(int, bool)"; then
	expect_grep "C++: the tree from main" "^    main  *0-1$" "$TREE"
	expect_grep "C++: a function's arguments" "^      sim_main(int, char\*\*)  *0-1$" "$TREE"
	expect_grep "C++: the class's method" "^        Sim::Verlet::run(faults\*)  *0-1$" "$TREE"
	expect_grep "C++: the spinning rank's method" "^          Sim::Pair::compute(int, bool)  *1$" "$TREE"
	expect_grep "C++: the waiting rank's method" "^          Sim::Comm::forward_comm(int)  *0$" "$TREE"
	no_mangled "C++ tree" "$TREE"
	no_mangled "C++ text" "$TEXT"
	expect_grep "C++ text: the name with its offset" "Sim::Pair::compute(int, bool)+0x[0-9a-f]* \[halo_cxx\] at .*halo_cxx.cpp:[0-9]" "$TEXT"
	OUT=$NAMES_JSON
	expect_json "C++ JSON: the raw symbol beside the name" '[.[].threads[0].frames[] | select(.func == "Sim::Verlet::run(faults*)") | .symbol] | unique == ["_ZN3Sim6Verlet3runEP6faults"]'
	expect_json "C++ JSON: C names have no symbol field" '[.[].threads[0].frames[] | select(.func == "main" or .func == "PMPI_Send") | has("symbol")] | all | not'
	printf '%s' "$OUT" >"$TMP/names.json"
	expect_keys_documented "stack --json keys with a demangled name" "$TMP/names.json"
fi
if names_tree cxxstripped halo_cxx-stripped "Sim::Pair::compute(int, bool)"; then
	expect_grep "stripped C++: the path starts at main" "^    main  *0-1$" "$TREE"
	expect_grep "stripped C++: the library's names, demangled" "^        Sim::Verlet::run(faults\*)  *0-1$" "$TREE"
	if printf '%s' "$TREE" | grep -q "_start\|__libc_start\|halo_cxx-stripped+0x"; then
		fail "stripped C++: the C runtime in the tree: $TREE"; else ok; fi
	no_mangled "stripped C++ tree" "$TREE"
fi
if names_tree fortran heat_mod "heat::spin_forever"; then
	expect_grep "module procedure: spinning" "^        heat::spin_forever  *1$" "$TREE"
	expect_grep "module procedure: waiting" "^        heat::exchange  *0$" "$TREE"
	no_mangled "Fortran module tree" "$TREE"
	no_mangled "Fortran module text" "$TEXT"
	OUT=$NAMES_JSON
	expect_json "Fortran JSON: the raw symbol beside" '[.[].threads[0].frames[] | select(.func == "heat::spin_forever") | .symbol] | unique == ["__heat_MOD_spin_forever"]'
fi
if names_tree fortranstripped heat_mod-stripped "main (+[0-9]* frames)"; then
	expect_grep "stripped Fortran: the path starts at main" "^    main (+[0-9]* frames)  *[0-9-]*$" "$TREE"
	if printf '%s' "$TREE" | grep -q "_start\|__libc_start\|heat_mod-stripped+0x"; then
		fail "stripped Fortran: the C runtime in the tree: $TREE"; else ok; fi
fi
# --- a PID reused by another process between samples: detected, never sampled as the target ---
# In a PID namespace of its own (every process in it ends with it), the target dies while the
# sampler is paused between samples, and a new process is given its PID (ns_last_pid).
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	cat >"$TMP/reuse.sh" <<'EOF'
loop=$1 out=$2
sleep 300 & victim=$!
"$loop" "$victim" 0 2000 >"$out.samples" 2>"$out.err" & sampler=$!
deadline=$(($(date +%s) + 20))
until [ -s "$out.samples" ] || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.05; done
kill -STOP "$sampler"            # between two samples: it sleeps 2 s after each
kill -KILL "$victim"; wait "$victim" 2>/dev/null
echo $((victim - 1)) >/proc/sys/kernel/ns_last_pid
sleep 300 & newcomer=$!
samples=$(wc -l <"$out.samples")
kill -CONT "$sampler"
wait "$sampler"; echo "sampler exit $?"
echo "same pid: $([ "$newcomer" = "$victim" ] && echo yes || echo no)"
echo "samples after the swap: $(($(wc -l <"$out.samples") - samples))"
echo "newcomer: $(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p; s/^TracerPid:[[:space:]]*/tracer /p' /proc/$newcomer/status | tr '\n' ' ')"
EOF
	RUN_TIMEOUT=60 run unshare --pid --fork --mount-proc sh "$TMP/reuse.sh" "$FIX/sample_loop" "$TMP/reuse"
	expect_grep "PID reuse: the same PID was given again" "same pid: yes" "$OUT"
	expect_grep "PID reuse: the sampler stopped with an error" "sampler exit 1" "$OUT"
	expect_grep "PID reuse: detected" "now belongs to another process (started later); not sampled" "$(cat "$TMP/reuse.err")"
	expect_grep "PID reuse: the newcomer never sampled" "samples after the swap: 0" "$OUT"
	expect_grep "PID reuse: the newcomer runs untraced" "newcomer: S tracer 0" "$OUT"
fi
finish
