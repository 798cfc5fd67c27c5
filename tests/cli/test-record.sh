# SPDX-License-Identifier: BSD-3-Clause
# The recording layer (record/, libparastack-mpi.so) at a communication hang: real Open MPI jobs
# with communication errors (tests/apps/commfaults.c) under `parastack run`, which preloads the
# layer into the ranks only; each report names the culprit rank(s) and the call sites (checked
# against the source's "site:" markers). --no-record gives the stack-based diagnosis; attach
# reads the layer of a job that has it. Every run has a hard timeout.
. "$(dirname "$0")/lib.sh"
APP=$BUILD/tests/apps/commfaults
SRC=tests/apps/commfaults.c
LIB=$BUILD/libparastack-mpi.so

# site MARKER [SOURCE]: "FILE:LINE" of the line carrying "site: MARKER" (a C or Fortran
# comment) in SOURCE (default the C application).
site() {
	src=${2:-$SRC}
	echo "$(basename "$src"):$(grep -n -E "(/\*|!) site: $1( \*/)?\$" "$src" | head -n 1 | cut -d: -f1)"
}

# crun_later NAME SCENARIO NP [OPTIONS]: the scenario under parastack run (lib.sh's psrun_later:
# in the background, $WIDTH at a time). APP may be a command with arguments (an interpreter and
# its script): word-split on purpose. crun_collect NAME: its results, and its text and JSON
# checked to agree.
crun_later() {
	name=$1 sc=$2 np=$3
	shift 3
	# shellcheck disable=SC2086
	psrun_later "$name" 180 PS_COMM="$sc" -- --seed 3 --confirm 5 "$@" -- mpirun --oversubscribe -np "$np" $APP
}
crun_collect() {
	psrun_collect "$1"
	expect_agree "$1: text and JSON"
}

# Every scenario under parastack run, started $WIDTH at a time; each one's checks below, where
# its results are collected.
mkdir "$TMP/cores"
crun_later cycle2 cycle2 4
crun_later cycle4 cycle4 6
crun_later bcast bcast 4
crun_later roots roots 4
crun_later wrongsource wrongsource 4
crun_later lostisend lostisend 4
crun_later oddrecv oddrecv 4
crun_later finalize finalize 4
crun_later skip skip 4
crun_later vskip vskip 4
APP=$BUILD/tests/apps/commfaults_f
crun_later fcycle2 cycle2 4
APP=$BUILD/tests/apps/commfaults_fh
crun_later fbcast bcast 4
APP=$BUILD/tests/apps/commfaults_f
crun_later falltoall alltoall 4
crun_later fwaitany waitany 4
APP=$BUILD/tests/apps/commfaults_f08
crun_later f08 - 4
APP="/usr/bin/python3 $(pwd)/tests/apps/recv_never_sent.py"
crun_later python - 4
APP=$BUILD/tests/apps/commfaults
crun_later cores cycle2 4 --core-dir "$TMP/cores"
crun_later norecord cycle2 4 --no-record
APP=$BUILD/tests/apps/commfaults

crun_collect cycle2
expect_status "cycle of 2: the job ended" 86
jreport "cycle of 2: ranks 1,2, a deadlock" '.hang_type == "communication" and .faulty_ranks == [1,2] and .wait_for.cycles == [[1,2]]'
expect_grep "cycle of 2: both call sites" "deadlock: ranks 1 → 2 → 1, each waiting for the next: rank 1 waits in MPI_Recv from rank 2 (tag 5) at $(site recv); rank 2 waits in MPI_Recv from rank 1 (tag 5) at $(site recv)" "$ERR"
if grep -Eq '[0-9.]{18}' "$REPORT"; then fail "cycle of 2: a number with more than 15 digits: $(grep -Eo '[0-9.]{18,}' "$REPORT" | head -n 1)"; else ok; fi
jreport "cycle of 2: the merged stack tree" '.tree[0].frame == "main" and .tree[0].ranks == "0-3"'
expect_grep "cycle of 2: the next step is a culprit" "next step: gdb -p [0-9]*   (rank [12]," "$ERR"

crun_collect cycle4
jreport "cycle of 4: ranks 0-3" '.faulty_ranks == [0,1,2,3] and .wait_for.cycles == [[0,1,2,3]] and ([.wait_for.collectives[] | select(.not_entered == "0-3")] | length) == 1'

crun_collect bcast
jreport "Bcast vs Allreduce: rank 1" '.faulty_ranks == [1] and (.wait_for.mismatches[0].sides | map(.call) | sort) == ["MPI_Allreduce", "MPI_Bcast"]'
expect_grep "Bcast vs Allreduce: both call sites" "ranks 0,2-3 call MPI_Allreduce (4 bytes) at $(site bcast-others); rank 1 calls MPI_Bcast (root 0, 4 bytes) at $(site bcast-odd)" "$ERR"

crun_collect roots
jreport "different roots: rank 1" '.faulty_ranks == [1] and ([.wait_for.mismatches[].sides[] | select(.ranks == "1") | .root] == [1])'
expect_grep "different roots: the call site" "rank 1 calls MPI_Bcast (root 1, 4194304 bytes) at $(site roots)" "$ERR"

crun_collect wrongsource
jreport "receive from the wrong source: rank 1" '.faulty_ranks == [1] and .wait_for.unmatched == [{"rank": 1, "from": 2, "tag": 9, "at": "'"$(site recv)"'"}]'

crun_collect lostisend
jreport "lost Isend: the receiver, and the Isend never completed" '.faulty_ranks == [2] and .wait_for.requests == [{"rank": 1, "call": "MPI_Isend", "peer": 2, "tag": 7, "at": "'"$(site isend)"'"}]'
expect_grep "lost Isend: the send's tag and site" "its MPI_Isend to rank 2 has tag 7 (at $(site isend))" "$ERR"

# A cycle with one odd member (issue 37): rank 1 waits, at a line of its own, for a tag nobody
# uses; rank 2 waits for rank 1's ring message. Rank 1 alone; rank 2's Isend, started in the
# exchange it waits in, is no "started and not completed".
crun_collect oddrecv
jreport "odd receive in a cycle: rank 1 alone" '.faulty_ranks == [1] and (.culprits[0].evidence | IN("likely", "certain"))'
jreport "odd receive in a cycle: no request of the exchange reported" '.wait_for.requests == []'
expect_grep "odd receive in a cycle: its call site" "rank 1 waits in MPI_Recv from rank 2 (tag 999) at $(site odd-recv)" "$ERR"

crun_collect finalize
jreport "early MPI_Finalize: rank 1" '.faulty_ranks == [1] and ([.wait_for.waits[] | select(.rank == 1) | .call] == ["MPI_Finalize"])'

crun_collect skip
jreport "skipped collective: rank 1" '.faulty_ranks == [1] and .wait_for.collectives[0].not_entered == "1" and .wait_for.collectives[0].at == "'"$(site skip-others)"'"'

# The v-variants: a Gatherv whose counts differ by rank is no mismatch; a skipped Allgatherv is
# found like any collective.
crun_collect vskip
jreport "skipped MPI_Allgatherv: rank 1, no mismatch" '.faulty_ranks == [1] and .wait_for.mismatches == [] and .wait_for.collectives[0].not_entered == "1" and .wait_for.collectives[0].call == "MPI_Allgatherv" and .wait_for.collectives[0].at == "'"$(site allgatherv-others)"'"'

# Fortran: `use mpi` (commfaults_f) and mpif.h (commfaults_fh), the same library entry points.
FSRC=tests/apps/commfaults_f.F90
APP=$BUILD/tests/apps/commfaults_f
crun_collect fcycle2
jreport "Fortran (use mpi) cycle of 2" '.faulty_ranks == [1,2] and .wait_for.cycles == [[1,2]]'
expect_grep "Fortran cycle: call sites" "rank 1 waits in MPI_Recv from rank 2 (tag 5) at $(site f-recv "$FSRC")" "$ERR"
APP=$BUILD/tests/apps/commfaults_fh
crun_collect fbcast
jreport "Fortran (mpif.h) Bcast vs Allreduce: rank 1" '.faulty_ranks == [1]'
expect_grep "Fortran mismatch: both call sites" "ranks 0,2-3 call MPI_Allreduce (4 bytes) at $(site f-bcast-others "$FSRC"); rank 1 calls MPI_Bcast (root 0, 4 bytes) at $(site f-bcast-odd "$FSRC")" "$ERR"
# Calls the hand-written layer missed (issue 25), in programs as users write them: a skipped
# MPI_ALLTOALL and an MPI_WAITANY for a message never sent (`use mpi`), a skipped MPI_Allreduce
# (`use mpi_f08`: the mpi_*_f08_ entry points), and an mpi4py rank in comm.recv() (MPI_Mprobe).
APP=$BUILD/tests/apps/commfaults_f
crun_collect falltoall
jreport "Fortran skipped MPI_ALLTOALL: rank 1" '.faulty_ranks == [1] and (.wait_for.mismatches[0].sides | map(.call) | sort) == ["MPI_Alltoall", "MPI_Barrier"]'
expect_grep "Fortran skipped MPI_ALLTOALL: both call sites" "ranks 0,2-3 call MPI_Alltoall (4 bytes) at $(site f-alltoall-others "$FSRC"); rank 1 calls MPI_Barrier (0 bytes) at $(site f-final-barrier "$FSRC")" "$ERR"
crun_collect fwaitany
jreport "Fortran MPI_WAITANY for a message never sent: rank 1" '.faulty_ranks == [1] and ([.wait_for.waits[] | select(.rank == 1) | .call] == ["MPI_Waitany"]) and ([.wait_for.waits[] | select(.rank == 1) | .waits_for] == [[2]])'
expect_grep "Fortran MPI_WAITANY: its call site" "rank 1 waits in MPI_Waitany at $(site f-waitany "$FSRC")" "$ERR"
APP=$BUILD/tests/apps/commfaults_f08
crun_collect f08
jreport "use mpi_f08 skipped MPI_Allreduce: rank 1" '.faulty_ranks == [1] and (.wait_for.mismatches[0].sides | map(.call) | sort) == ["MPI_Allreduce", "MPI_Barrier"]'
expect_grep "use mpi_f08: both call sites" "ranks 0,2-3 call MPI_Allreduce (4 bytes) at $(site f08-allreduce-others tests/apps/commfaults_f08.f90); rank 1 calls MPI_Barrier (0 bytes) at $(site f08-barrier tests/apps/commfaults_f08.f90)" "$ERR"
APP="/usr/bin/python3 $(pwd)/tests/apps/recv_never_sent.py"
crun_collect python
jreport "mpi4py comm.recv() of a message never sent: rank 1" '.faulty_ranks == [1] and ([.wait_for.waits[] | select(.rank == 1) | .call] == ["MPI_Mprobe"])'
# The call site: the rank's own Python line (issue 27), not mpi4py's stripped extension.
expect_grep "mpi4py: the wait named at the user's Python line" "rank 1 waits in MPI_Mprobe from rank 2 (tag 5) at recv_never_sent.py:$(grep -n '# site: py-recv$' tests/apps/recv_never_sent.py | cut -d: -f1) (Python, in <module>)" "$ERR"
# MPI_THREAD_MULTIPLE: 4 threads per rank call MPI at once (tests/apps/mt_stress.c). Under the
# layer built with ASan/UBSan the job runs clean and right; under parastack run, a thread that
# skips its communicator's Allreduce names its rank, and no request that completed (Open MPI
# hands every small send that went out at once the same handle) is reported as pending.
if mpirun --oversubscribe -np 3 -x LD_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so) $(pwd)/$BUILD/tests/libparastack-mpi-asan.so" \
	-x ASAN_OPTIONS=detect_leaks=0 -x UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 -x PS_ITERS=500 \
	"$BUILD/tests/apps/mt_stress" >"$TMP/mt.out" 2>&1 && grep -q "^mt_stress: ok$" "$TMP/mt.out" &&
	! grep -q "Sanitizer\|runtime error" "$TMP/mt.out"; then ok; else fail "4 threads under the sanitized layer: $(tail -5 "$TMP/mt.out")"; fi
APP=$BUILD/tests/apps/mt_stress
REPORT=$TMP/mt.json
RUN_TIMEOUT=180 run env PS_FAULT=skip PS_ITERS=400 "$PARASTACK" run --seed 3 --confirm 5 --report "$REPORT" \
	-- mpirun --oversubscribe -np 3 "$APP"
jreport "4 threads: the skipping thread's rank" '.faulty_ranks == [1] and .wait_for.collectives[0].not_entered == "1" and .wait_for.requests == []'
APP=$BUILD/tests/apps/commfaults

# --core-dir: cores of the faulty ranks and of the first rank of each stack group, written
# while they still exist, before the job is ended; the next step opens the first one's.
crun_collect cores
expect_status "--core-dir: the job was still ended" 86
jreport "--core-dir: ranks 0 (first of its group), 1 and 2" '([.cores[] | select(.core) | .rank] | sort) == [0,1,2]'
for core in $(jq -r '.cores[].core // empty' "$REPORT"); do
	if [ "$(LC_ALL=C readelf -h "$core" 2>/dev/null | sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p')" = CORE ]; then ok; else
		fail "--core-dir: $core is not an ELF core file"; fi
done
jreport "--core-dir: the next step opens rank 1's core" '.next_step | test("^gdb .*/commfaults .*/core\\.rank1\\.")'
run "$PARASTACK" run --core-dir "$TMP/none" -- true
expect_error "--core-dir: a missing directory" 2 "--core-dir $TMP/none: No such file or directory; create the directory first"

# --no-record: the layer is not preloaded; the stacks alone, as before.
crun_collect norecord
jreport "--no-record: the stack-based diagnosis" '(has("wait_for") | not) and .faulty_ranks == [] and ([.diagnosis[] | select(test("a rank skipped the collective"))] | length) == 1'

# The layer reaches the ranks, never the launcher.
start "$TMP/healthy.out" env PS_PRINT_PIDS=1 PS_FAULT_AFTER=60 "$PARASTACK" run --seed 3 -- \
	mpirun --oversubscribe -np 2 "$APP"
RUNNER=$BG
# Each rank prints its own line, in either order: wait for both.
if wait_for "$TMP/healthy.out" "rank 1 pid" 60 && wait_for "$TMP/healthy.out" "rank 0 pid" 60; then
	r0=$(rank_pid "$TMP/healthy.out" 0)
	launcher=$(awk '{ print $4 }' "/proc/$r0/stat")
	if grep -q libparastack-mpi "/proc/$r0/maps"; then ok; else fail "the layer is not in rank 0"; fi
	if grep -q libparastack-mpi "/proc/$launcher/maps"; then fail "the layer is in mpirun ($launcher)"; else ok; fi
fi
stop_started_one "$RUNNER"

# attach: a job started by hand with the layer preloaded; the report uses it.
if mpirun_start "$TMP/job.out" 4 -x LD_PRELOAD="$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")" \
	-x PS_PRINT_PIDS=1 -x PS_COMM=cycle2 -x PS_FAULT_AFTER=3 "$APP"; then
	pids=$(for r in 0 1 2 3; do rank_pid "$TMP/job.out" $r; done | paste -sd, -)
	REPORT=$TMP/attach.json
	RUN_TIMEOUT=180 run "$PARASTACK" attach --pids "$pids" --seed 3 --confirm 5 --on-hang=kill --report "$REPORT"
	expect_status "attach: hang found, job ended" 86
	jreport "attach: the layer's cycle" '.faulty_ranks == [1,2] and .wait_for.cycles == [[1,2]]'
fi
# Every key of these reports is documented.
for r in cycle2 bcast lostisend cores; do expect_keys_documented "report keys ($r)" "$TMP/$r.json"; done
stop_started
finish
