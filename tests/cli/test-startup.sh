# SPDX-License-Identifier: BSD-3-Clause
# Start-up hangs (issue 68): while ranks wait in MPI_Init (a training job's init_process_group)
# for the others, a rank that has not arrived and stands still there - its stack, CPU time and
# I/O unchanged: it reads its input from a pipe no one writes (tests/apps/faults.h's and
# ddp_train.py's PS_PREINIT=stuck) - is reported as the faulty rank within the usual window, not
# the start-up's 600 s, named as not having reached MPI_Init, at its frame; a rank that reads its
# input for 45 s first (PS_PREINIT=slow: a slow file system) is moving, and the job runs to its
# end untouched. An 8-rank Open MPI job, and a 4-rank torch.distributed job on gloo; the jobs
# run two at a time, each with its own rendezvous port. How soon the report comes is
# bench/startup.sh's to measure, not this file's.
. "$(dirname "$0")/lib.sh"
APPS=$BUILD/tests/apps
TRAIN="/usr/bin/python3 $(pwd)/tests/apps/ddp_train.py"

# The slow runs first: they are the longer ones.
psrun_later mpi_slow 300 -- --seed 7 -- mpirun --oversubscribe -np 8 -x PS_PREINIT=slow -x PS_PREINIT_RANK=3 \
	-x PS_PREINIT_SECONDS=45 -x PS_SECONDS=10 "$APPS/stencil"
psrun_later mpi_stuck 400 -- --seed 7 -- mpirun --oversubscribe -np 8 -x PS_PREINIT=stuck -x PS_PREINIT_RANK=5 \
	"$APPS/stencil"
TORCH=1
if ! /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; then
	TORCH=""
	skip "start-up of a training job: Debian's python3-torch is not installed (scripts/install-deps --test)"
else
	# shellcheck disable=SC2086
	psrun_later torch_slow 300 -- --seed 3 -- mpirun --oversubscribe -np 4 -x MASTER_PORT=29811 -x PS_SECONDS=10 \
		-x PS_CKPT_AT=-1 -x PS_PREINIT=slow -x PS_PREINIT_RANK=2 -x PS_PREINIT_SECONDS=45 $TRAIN
	# shellcheck disable=SC2086
	psrun_later torch_stuck 400 -- --seed 3 -- mpirun --oversubscribe -np 4 -x MASTER_PORT=29812 -x PS_SECONDS=600 \
		-x PS_CKPT_AT=-1 -x PS_PREINIT=stuck -x PS_PREINIT_RANK=0 $TRAIN
fi

# expect_start_up_hang NAME RANK CALL: the hung start-up reported and ended: rank RANK faulty
# (certain), "has not reached CALL" in its culprit line and the diagnosis, its innermost frame of
# the program read_input, confirmed on the start-up's evidence (how long it stood still), the
# report's keys documented, no rank left running.
expect_start_up_hang() {
	expect_status "$1: the hung start-up is ended" 86
	jreport "$1: rank $2 the faulty one, certain" '.verdict == "hang" and .hang_type == "computation" and .faulty_ranks == ['"$2"'] and ([.culprits[] | select(.rank == '"$2"') | .evidence] == ["certain"])'
	jreport "$1: named as not there yet" '[.diagnosis[] | select(test("^rank '"$2"' .*has not reached '"$3"': it waits at read_input"))] | length == 1'
	jreport "$1: its frame" '[.ranks[] | select(.rank == '"$2"') | .frames[].func] | index("read_input") != null'
	jreport "$1: the others wait in the start-up" '[.ranks[] | select(.rank != '"$2"') | .in_init] | all'
	jreport "$1: confirmed on the start-up's evidence, not its 600 s" '(.confirmation.start_up_still_s | type) == "number" and .confirmation.start_up_grace_s == 600 and .confirmation.basis != "records"'
	expect_grep "$1: the culprit line says so" "rank $2, certain: it has not reached $3" "$ERR"
	expect_grep "$1: the confirmation says so" "confirmed: at start-up — the rank(s) that have not reached it stood still" "$ERR"
	expect_keys_documented "$1: report keys" "$REPORT"
	alive=""
	for p in $(jq -r '.ranks[].pid' "$REPORT" 2>/dev/null); do
		proc_alive "$p" && proc_started_before "$p" "$(jq -r '.detected_at' "$REPORT")" && alive="$alive $p"
	done
	if [ -z "$alive" ]; then ok; else fail "$1: ranks still running after the kill:$alive"; fi
}

# expect_slow_start_healthy NAME: the job ran to its end, nothing reported.
expect_slow_start_healthy() {
	expect_status "$1: a slow start-up runs to its end" 0
	jreport "$1: no hang" '.verdict == "none"'
	if printf '%s' "$ERR" | grep -q "HANG DETECTED"; then fail "$1: a slow start-up called hung: $ERR"; else ok; fi
}

psrun_collect mpi_slow
expect_slow_start_healthy "Open MPI, a rank reading its input 45 s before MPI_Init"
psrun_collect mpi_stuck
expect_start_up_hang "Open MPI, a rank stuck before MPI_Init" 5 MPI_Init
if [ -n "$TORCH" ]; then
	psrun_collect torch_slow
	expect_slow_start_healthy "torch.distributed, a rank reading its input 45 s before init_process_group"
	psrun_collect torch_stuck
	expect_start_up_hang "torch.distributed, rank 0 (the TCPStore's host) stuck before init_process_group" 0 init_process_group
fi
finish
