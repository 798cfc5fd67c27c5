# SPDX-License-Identifier: BSD-3-Clause
# Culprits of communication hangs, named from matching (issue 26): real Open MPI jobs written as
# users write them, their faults injected from outside by a preloaded injector
# (tests/fixtures/psinject.c, before the recording layer in LD_PRELOAD, as `mpirun -x` puts it):
#   - a Fortran halo exchange (the shape of NPB BT's copy_faces: MPI_IRECV/MPI_ISEND/
#     MPI_WAITALL) whose rank 2 is held inside MPI below the layer: rank 2 alone is named,
#     certain, and no cycle is claimed between neighbours that each posted their sends;
#   - a genuine cycle of 4 ranks through MPI_Irecv/MPI_Waitall: the cycle named, certain;
#   - a task farm whose master waits in MPI_Recv from MPI_ANY_SOURCE for a worker that never
#     answers: the worker is named, not the master;
#   - LAMMPS's halo in C++ (MPI_Irecv, a blocking MPI_Send of ~30 KB, MPI_Wait) with one
#     envelope's tag wrong, on the receiving or the sending side: that side is named;
#   - NPB FT's shape at 16 ranks (tests/apps/subcomm.c): a rank that skipped a collective on a
#     duplicate of the world and went on to one on the world is named alone; the same through a
#     wrapper script whose exec comes late on one rank (found again as the program), or that
#     runs the program as its child (the child watched); a rank that exec's another program
#     after discovery: not sampled, not blamed (issue 72);
#   - without the layer: the stacks' culprit, and a rank in MPI_Finalize named with and without.
# Every report's text and JSON are checked to agree. Every run has a hard timeout.
. "$(dirname "$0")/lib.sh"
INJ=$(cd "$BUILD/tests" && pwd)/libpsinject.so

# prun NAME NP APP [MPIRUN OPTIONS...]: APP under parastack run, mpirun's options before it
# (the injector's -x lines); the report in $REPORT.
prun() {
	name=$1 np=$2 app=$3
	shift 3
	psrun "$name" 180 -- --seed 3 --confirm 5 -- mpirun --oversubscribe -np "$np" -x LD_PRELOAD="$INJ" "$@" "$app"
}

prun halo 4 "$BUILD/tests/apps/halo" -x PS_INJECT_FUNC=waitall -x PS_INJECT_KIND=block \
	-x PS_INJECT_RANK=2 -x PS_INJECT_CALL=55
expect_status "halo, rank 2 held in MPI: the job was ended" 86
jreport "halo: rank 2 alone, certain" '.hang_type == "communication" and .faulty_ranks == [2] and .culprits == [.culprits[0]] and .culprits[0].evidence == "certain"'
jreport "halo: no cycle between neighbours that posted their sends" '.wait_for.cycles == []'
jreport "halo: the ranks in MPI_Waitall wait on their blocked receives only" '[.wait_for.waits[] | select(.call == "MPI_Waitall") | .waits_for | length] | all(. <= 2)'
jreport "halo: rank 1 and rank 3 wait for rank 2" '[.wait_for.waits[] | select(.rank == 1 or .rank == 3) | .waits_for] == [[2], [2]]'
expect_grep "halo: rank 2 named with the call its stack shows" "rank 2 waits on nobody the records show: it is in MPI_Recv, which the recording layer does not record" "$ERR"
expect_agree "halo: text and JSON"

prun waitall4 6 "$BUILD/tests/apps/commfaults" -x PS_COMM=waitall4
jreport "waitall cycle: ranks 0-3, the cycle named" '.faulty_ranks == [0,1,2,3] and .wait_for.cycles == [[0,1,2,3]] and ([.culprits[].evidence] | unique) == ["certain"]'
expect_grep "waitall cycle: said as a deadlock" "deadlock: ranks 0 → 1 → 2 → 3 → 0, each waiting for the next" "$ERR"
expect_agree "waitall cycle: text and JSON"

prun farm 4 "$BUILD/tests/apps/masterworker" -x PS_INJECT_FUNC=send -x PS_INJECT_KIND=skip \
	-x PS_INJECT_RANK=3 -x PS_INJECT_CALL=3 -x PS_TASKS=400
expect_status "task farm, worker 3 never answers: the job was ended" 86
jreport "task farm: worker 3, not the master" '.faulty_ranks == [3] and .culprits[0].evidence == "likely"'
jreport "task farm: the master waits for rank 3 (the workers that finished are no candidates)" '[.wait_for.waits[] | select(.rank == 0) | .waits_for] == [[3]]'
expect_agree "task farm: text and JSON"

# LAMMPS's halo (issue 53; tests/apps/halo_cxx.cpp, C++): 8 ranks, each step an MPI_Irecv from
# the left, a blocking MPI_Send of 29,808 bytes to the right (above the eager limit, below
# 64 KiB) and an MPI_Wait. Rank 5's 300th receive takes a tag nobody sends: rank 5 is named,
# not rank 4, whose send to it waits; then rank 4's 300th send goes with a tag nobody receives:
# rank 4 is named, not rank 5, which waits for it.
prun wrongrecv 8 "$BUILD/tests/apps/halo_cxx" -x PS_INJECT_FUNC=irecv -x PS_INJECT_KIND=tag \
	-x PS_INJECT_RANK=5 -x PS_INJECT_CALL=300
expect_status "halo, rank 5's receive with a wrong tag: the job was ended" 86
jreport "halo, wrong receive tag: rank 5, not its sender" '.hang_type == "communication" and .faulty_ranks == [5]'
expect_grep "halo, wrong receive tag: its receive is the odd one" "rank 5 waits in MPI_Wait for its MPI_Irecv from rank 4 (tag 31999)" "$ERR"
expect_grep "halo, wrong receive tag: the path in C++" "Sim::Verlet::run(faults\*) > Sim::Comm::forward_comm(int) > MPI_Wait" "$ERR"
expect_agree "halo, wrong receive tag: text and JSON"
prun wrongsend 8 "$BUILD/tests/apps/halo_cxx" -x PS_INJECT_FUNC=send -x PS_INJECT_KIND=tag \
	-x PS_INJECT_RANK=4 -x PS_INJECT_CALL=300
jreport "halo, wrong send tag: rank 4, not its receiver" '.hang_type == "communication" and .faulty_ranks == [4]'
expect_grep "halo, wrong send tag: its send is the odd one" "rank 4 waits in MPI_Send to rank 5 (tag 31999), the first message it ever sent with that envelope" "$ERR"
expect_agree "halo, wrong send tag: text and JSON"

# NPB FT's shape at 16 ranks (issue 37): the transposes on a duplicate of the world, the
# checksum on MPI_COMM_WORLD; rank 5 skips its 12th MPI_Alltoall and goes on to the world's
# MPI_Reduce, the fifteen others wait in the Alltoall. Rank 5 alone, certain, first.
prun ft16 16 "$BUILD/tests/apps/subcomm" -x PS_SHAPE=dup -x PS_INJECT_FUNC=alltoall -x PS_INJECT_KIND=skip \
	-x PS_INJECT_RANK=5 -x PS_INJECT_CALL=12
jreport "FT, rank 5 skips an Alltoall on a duplicate: rank 5 alone, certain" '.faulty_ranks == [5] and .culprits[0].evidence == "certain"'
expect_grep "FT: the first culprit line is rank 5's, with the two collectives" "^    rank 5, certain: rank 5 went on to MPI_Reduce #[0-9]* on MPI_COMM_WORLD .* without entering MPI_Alltoall #12 on communicator" "$ERR"
expect_grep "FT: the order each side kept" "15 ranks call the two in that order, rank 5 the other way round" "$ERR"
expect_agree "FT: text and JSON"

# The same through a wrapper script that ends in `exec "$@"` (issue 72), as users wrap ranks for
# numactl, a container or a module: rank 15's wrapper waits 2 s first, so discovery meets it as
# the shell every run (it carries the rank's variables, and the preloaded layer maps libmpi). It
# is found again as the program after its exec: rank 5 named alone, certain, every rank sampled.
WRAP=$TMP/slow-exec.sh
printf '#!/bin/sh\n[ "$OMPI_COMM_WORLD_RANK" = 15 ] && sleep 2\nexec "$@"\n' >"$WRAP"
chmod +x "$WRAP"
psrun ftwrap 180 -- --seed 3 --confirm 5 -- mpirun --oversubscribe -np 16 -x LD_PRELOAD="$INJ" -x PS_SHAPE=dup \
	-x PS_INJECT_FUNC=alltoall -x PS_INJECT_KIND=skip -x PS_INJECT_RANK=5 -x PS_INJECT_CALL=12 \
	"$WRAP" "$BUILD/tests/apps/subcomm"
expect_status "FT through a late exec: the job was ended" 86
jreport "FT through a late exec: rank 5 alone, certain" '.faulty_ranks == [5] and .culprits[0].evidence == "certain"'
jreport "FT through a late exec: every rank sampled, rank 15 as the program" \
	'([.ranks[] | select(.state == "UNKNOWN")] == []) and ([.ranks[] | select(.rank == 15) | .path] | .[0] | test("run_dup"))'
expect_agree "FT through a late exec: text and JSON"

# A wrapper that runs the program as its child rather than exec'ing it (`numactl ./app`, `sh -c
# 'time ./app'`): each rank is first found as the shell; the program below it, once it is its
# program (past MPI_Init), is watched instead. Before, the shells were watched, never in MPI, and
# the hang went unseen. Rank 1 calls MPI_Finalize early; with the layer and without it.
printf '#!/bin/sh\n"$@"\n' >"$TMP/child-wrap.sh"
chmod +x "$TMP/child-wrap.sh"
for layer in record no-record; do
	opt=""
	[ "$layer" = no-record ] && opt=--no-record
	psrun "childwrap_${layer%-*}" 120 PS_COMM=finalize -- $opt --seed 3 --confirm 5 -- mpirun --oversubscribe -np 4 \
		"$TMP/child-wrap.sh" "$BUILD/tests/apps/commfaults"
	expect_status "a wrapper running the program as its child ($layer): the hang found, the job ended" 86
	jreport "a wrapper running the program as its child ($layer): rank 1, the programs watched" \
		'.faulty_ranks == [1] and ([.ranks[].path | test("^main > ")] | all)'
done

# The hostile-job rule stays for a rank that was the program (past MPI_Init) and then exec'd
# another program of its owner's (sleep), after discovery: not sampled, and not blamed on that
# absence — the culprit is said to be unknown, for that rank and why.
psrun_later ftexec 180 -- --seed 3 --confirm 5 --trace "$TMP/ftexec.trace" -- mpirun --oversubscribe -np 16 \
	-x LD_PRELOAD="$INJ" -x PS_SHAPE=dup -x PS_INJECT_FUNC=alltoall -x PS_INJECT_KIND=exec -x PS_INJECT_RANK=3 \
	-x PS_INJECT_CALL=1 -x PS_INJECT_WHEN="$TMP/ftexec.go" "$BUILD/tests/apps/subcomm"
# The exec once the watch has 2 s of samples (polled from the trace, with a deadline).
deadline=$(($(date +%s) + 120))
until awk '!/^#/ && $1 >= 2000 { found = 1 } END { exit !found }' "$TMP/ftexec.trace" 2>/dev/null ||
	[ "$(date +%s)" -ge "$deadline" ]; do sleep 0.2; done
touch "$TMP/ftexec.go"
psrun_collect ftexec
expect_status "a rank exec'd after discovery: the job was ended" 86
jreport "a rank exec'd after discovery: not sampled" \
	'[.ranks[] | select(.state == "UNKNOWN") | .rank] == [3] and ([.ranks[] | select(.rank == 3) | .path] | .[0] | test("runs another program"))'
jreport "a rank exec'd after discovery: not blamed, the culprit unknown for it" \
	'.faulty_ranks == [] and [.wait_for.unknown[].rank] == [3] and (.wait_for.unknown[0].why | test("rank 3 could not be read"))'
expect_grep "a rank exec'd after discovery: the text says the culprit is unknown" \
	"^  faulty rank(s): unknown — ranks 0-2,4-15 wait in MPI_Alltoall #[0-9]* on .* for rank 3" "$ERR"
expect_agree "a rank exec'd after discovery: text and JSON"

# Without the layer, the stacks alone: the culprit carries "stacks".
REPORT=$TMP/halo-norecord.json
RUN_TIMEOUT=180 run "$PARASTACK" run --no-record --seed 3 --confirm 5 --report "$REPORT" \
	-- mpirun --oversubscribe -np 4 -x LD_PRELOAD="$INJ" -x PS_INJECT_FUNC=waitall -x PS_INJECT_KIND=block \
	-x PS_INJECT_RANK=2 -x PS_INJECT_CALL=55 "$BUILD/tests/apps/halo"
jreport "halo without the layer: no layer record, evidence from stacks" '(has("wait_for") | not) and ([.culprits[].evidence] | unique) as $e | ($e == [] or $e == ["stacks"])'
expect_agree "halo without the layer: text and JSON"

# A rank that called MPI_Finalize while the others wait is a culprit with and without the layer.
for layer in record no-record; do
	REPORT=$TMP/finalize-$layer.json
	opt=""
	[ "$layer" = no-record ] && opt=--no-record
	RUN_TIMEOUT=180 run env PS_COMM=finalize "$PARASTACK" run $opt --seed 3 --confirm 5 --report "$REPORT" \
		-- mpirun --oversubscribe -np 4 "$BUILD/tests/apps/commfaults"
	jreport "early MPI_Finalize ($layer): rank 1" '.faulty_ranks == [1] and (.culprits[0].evidence == (if "'"$layer"'" == "record" then "certain" else "stacks" end))'
	expect_agree "early MPI_Finalize ($layer): text and JSON"
done
finish
