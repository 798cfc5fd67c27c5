# SPDX-License-Identifier: BSD-3-Clause
# Training jobs (issue 54): a torch.distributed DDP job with gloo on CPU (Debian's python3-torch,
# tests/apps/ddp_train.py) launched as many clusters launch one, `mpirun -np 4 python3 train.py`,
# under `parastack run`. Its ranks map no MPI library: gloo is the communication library
# (design.md §8.1). A rank spinning in its own Python code is a computation hang named at its
# file:line, the others one group in gloo's all-reduce; a rank waiting in dist.recv for a tensor
# nobody sends is named, at its Python line; a SIGSTOPped rank is named; no rank is left traced.
# The same three under torchrun's layout (tests/apps/torchrun_layout.py starts the workers as
# torchrun's elastic agent does; Debian's torchrun cannot start): the agent is never a rank, and
# a restart of the workers is followed (a rank fails once, the restarted workers hang). The jobs
# run side by side, each on its own rendezvous port.
# The report in the trainer's terms (issue 67): a rank placed at its main thread's Python line,
# gloo's worker folded under it; lines of paths short; no sentence about MPI; and the collective
# record (record/python) names the rank behind its group certain, with the calls' numbers: the
# dist.recv rank behind DDP's gradient all-reduce, and a rank that skips a sub-group's
# all-reduce (tests/apps/subgroup_skip.py). Off with --no-record.
. "$(dirname "$0")/lib.sh"
SRC=tests/apps/ddp_train.py
APP="/usr/bin/python3 $(pwd)/$SRC"

if ! /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; then
	skip "training jobs: Debian's python3-torch is not installed (scripts/install-deps --test)"
	finish
	exit $?
fi

# The record's way in (record/python_path.c, record/python/sitecustomize.py): the layer puts
# python/ on a Python's PYTHONPATH; the interpreter's own sitecustomize (Debian's) still runs;
# a user's own PYTHONPATH comes first; a Python 2 is left working.
LAYER=$(pwd)/build/libparastack-mpi.so
run env LD_PRELOAD="$LAYER" /usr/bin/python3 -c 'import os, sys; print(os.environ["PYTHONPATH"], sys.modules["sitecustomize"].__file__, "parastack_torchrec" in sys.modules)'
expect_grep "the layer puts the record on PYTHONPATH, Debian's sitecustomize still runs" "$(pwd)/build/python /usr/lib/python3.11/sitecustomize.py True" "$OUT"
mkdir -p "$TMP/own"
echo 'print("own sitecustomize")' >"$TMP/own/sitecustomize.py"
run env LD_PRELOAD="$LAYER" PYTHONPATH="$TMP/own" /usr/bin/python3 -c 'import os; print(os.environ["PYTHONPATH"])'
expect_grep "a user's PYTHONPATH first, its sitecustomize theirs" "own sitecustomize.$TMP/own:$(pwd)/build/python" "$(printf '%s' "$OUT" | tr '\n' '.')"
for py in "$HOME"/.pyenv/versions/2.7*/bin/python2.7; do
	[ -x "$py" ] || continue
	run env LD_PRELOAD="$LAYER" "$py" -c 'print("python 2 runs")'
	expect_status "a Python 2 with the layer runs" 0
done

# train_later NAME PORT [ENV=VALUE...]: 4 ranks under parastack run (a 5-s window) launched by
# mpirun, in the background; its own rendezvous port (the jobs run side by side).
train_later() {
	name=$1 port=$2
	shift 2
	app=$APP
	if [ "$1" = "--app" ]; then app=$2; shift 2; fi
	xs=""
	for e in "$@"; do xs="$xs -x $e"; done
	# shellcheck disable=SC2086
	psrun_later "$name" 300 PS_SECONDS=600 PS_CKPT_AT=-1 -- --seed 3 --confirm 5 -- \
		mpirun --oversubscribe -np 4 -x MASTER_PORT="$port" -x PS_SECONDS -x PS_CKPT_AT -x PS_PRINT_PIDS=1 $xs $app
}

# torchrun_later NAME PORT MAX-RESTARTS [ENV=VALUE...]: the same 4 ranks as torchrun starts them.
torchrun_later() {
	name=$1 port=$2 restarts=$3
	shift 3
	opts=""
	if [ "$1" = "--no-record" ]; then opts=$1; shift; fi
	# shellcheck disable=SC2086
	psrun_later "$name" 300 PS_SECONDS=600 PS_CKPT_AT=-1 PS_PRINT_PIDS=1 "$@" -- --seed 3 --confirm 5 $opts -- \
		/usr/bin/python3 "$(pwd)/tests/apps/torchrun_layout.py" --nproc-per-node 4 \
		--max-restarts "$restarts" --master-port "$port" --rdzv-id "$name" "$(pwd)/$SRC"
}

# expect_job_ended NAME: each rank of the last run (its "rank R pid P" lines) gone, or (still
# exiting) untraced; with a restart, the last attempt's. A process under that PID that started
# after the run's output was last written is another one (PIDs are reused), so the rank is gone.
expect_job_ended() {
	ended=$(stat -c %.9Y "$TMP/$1.later.out" 2>/dev/null || echo 0)
	for r in 0 1 2 3; do
		p=$(rank_pid "$TMP/$1.later.out" "$r" | tail -1)
		if [ -z "$p" ]; then
			fail "$1: rank $r never printed its PID"
		elif [ -z "$(proc_state "$p")" ] || ! proc_started_before "$p" "$ended"; then
			ok
		else
			expect_untraced "$1: rank $r" "$p"
		fi
	done
}

# expect_no_start_up_suspicion NAME CONFIRM-S: no suspicion whose window began before the last
# rank joined (ddp_train.py's "rank R joined at EPOCH" lines). The window's end is printed to the
# second, truncated: a window ending at E began in [E-CONFIRM, E-CONFIRM+1). Suspicions after the
# start-up are the test's faults' (or dismissed ones of a loaded machine), not this check's.
expect_no_start_up_suspicion() {
	joined=$(sed -n 's/^rank [0-9]* joined at \([0-9]*\)\.[0-9]*$/\1/p' "$TMP/$1.later.out" | sort -n | tail -1)
	if [ -z "$joined" ]; then fail "$1: no rank printed when it joined"; return; fi
	day=$(date -u -d "@$joined" +%F)
	early=""
	for hms in $(printf '%s\n' "$ERR" | sed -n 's/.*suspected hang — .* at \([0-9:]*\) UTC unless it moves$/\1/p'); do
		end=$(date -u -d "$day $hms" +%s)
		[ "$end" -ge $((joined - 43200)) ] || end=$((end + 86400))
		[ $((end - $2 + 1)) -gt "$joined" ] || early="$early $hms"
	done
	if [ -n "$early" ]; then
		fail "$1: suspected while starting (window ending at$early, the last rank joined at $(date -u -d "@$joined" +%T)): $(printf '%s' "$ERR" | grep "suspected hang")"
	else ok; fi
}

# Rank 3 reaches init_process_group 15 s after the others (a slow import): a start-up, not a
# hang, though the others wait unmoved in the rendezvous three windows long.
train_later spin 29731 PS_FAULT=spin PS_FAULT_RANK=2 PS_FAULT_AFTER=20 PS_LATE_RANK=3 PS_LATE_S=15
train_later recv 29741 PS_FAULT=recv PS_FAULT_RANK=1 PS_FAULT_AFTER=20
train_later stop 29751 PS_FAULT=stop PS_FAULT_RANK=3 PS_FAULT_AFTER=20
torchrun_later trspin 29761 1 PS_FAULT=exit,spin PS_FAULT_RANK=2 PS_FAULT_AFTER=15
torchrun_later trrecv 29771 0 PS_FAULT=recv PS_FAULT_RANK=1 PS_FAULT_AFTER=20
torchrun_later trstop 29781 0 --no-record PS_FAULT=stop PS_FAULT_RANK=3 PS_FAULT_AFTER=20
train_later skip 29791 --app "/usr/bin/python3 $(pwd)/tests/apps/subgroup_skip.py" PS_FAULT_RANK=2 PS_FAULT_AFTER=20

psrun_collect spin
expect_status "spin in Python: the job was ended" 86
expect_no_start_up_suspicion spin 5
jreport "spin in Python: rank 2, a computation hang" '.hang_type == "computation" and .faulty_ranks == [2]'
expect_grep "spin in Python: the rank's position is its Python line" "rank 2 (host [^ ]*, pid [0-9]*) stays in application code in every snapshot, at spin_forever ([^ ]*ddp_train.py:$(line ddp-spin))" "$ERR"
jreport "spin in Python: the others wait in gloo, one group at their Python line, its worker folded" '[.groups[] | select(.ranks == "0-1,3") | .state == "IN_MPI" and .mpi_call == "libgloo.so.0.5.0" and (.path | test("ddp_train[.]py:[0-9]+[)] > .*[[]gloo worker: waits in libgloo.so.0.5.0[]]$"))] == [true]'
jreport "spin in Python: the worker's own stack kept whole" '[.ranks[] | select(.rank == 0) | .worker.path | test("c10d::ProcessGroupGloo::runLoop[(]int[)]")] == [true]'
expect_trainer_shape "spin in Python" "$ERR"
expect_job_ended spin

psrun_collect recv
expect_status "dist.recv of a tensor nobody sends: the job was ended" 86
jreport "dist.recv: rank 1 named, certain, from the collective record" '.faulty_ranks == [1] and .culprits[0].evidence == "certain"'
expect_grep "dist.recv: behind on DDP's gradient all-reduce, by number" "rank 1, certain: behind on the default group: it has entered [0-9]* DDP gradient all-reduces and waits in recv from rank 2 at ddp_train.py:$(line ddp-recv), while ranks 0,2-3 wait in DDP gradient all-reduce #[0-9]* at ddp_train.py:$(line ddp-backward)" "$ERR"
jreport "dist.recv: the call the others wait in, under wait_for.torch_calls" '.wait_for.torch_calls == [.wait_for.torch_calls[0]] and (.wait_for.torch_calls[0] | .kind == "ddp" and .waiting == "0,2-3" and .behind == [1])'
jreport "dist.recv: every rank's record" '[.ranks[].collectives.groups[0].ranks] == [[0,1,2,3],[0,1,2,3],[0,1,2,3],[0,1,2,3]]'
expect_trainer_shape "dist.recv" "$ERR"
expect_keys_documented "dist.recv: report keys" "$REPORT"
if printf '%s' "$ERR" | grep -q "point-to-point communication"; then fail "dist.recv: called MPI point-to-point: $ERR"; else ok; fi
jreport "dist.recv: its Python line in its frames" '[.ranks[] | select(.rank == 1) | .frames[] | select(.lang == "python" and (.file // "" | endswith("ddp_train.py"))) | .line][0] == '"$(line ddp-recv)"
expect_job_ended recv

psrun_collect stop
expect_status "SIGSTOPped rank: the job was ended" 86
jreport "SIGSTOPped rank: rank 3 named" '.faulty_ranks == [3]'
expect_grep "SIGSTOPped rank: said to be stopped" "rank 3 (host [^ ]*, pid [0-9]*) is stopped (SIGSTOP" "$ERR"
expect_job_ended stop

# torchrun's layout: the agent (its PID printed first) is never among the ranks.
expect_agent_no_rank() {
	agent=$(sed -n 's/^agent pid \([0-9]*\)$/\1/p' "$TMP/$1.later.out")
	jreport "$1: 4 ranks, the agent (pid ${agent:-?}) not one" "[.ranks[].pid] | length == 4 and (index(${agent:-0}) == null)"
}

psrun_collect trspin
expect_status "torchrun, a rank fails, the restarted workers spin: the job was ended" 86
expect_grep "torchrun: the agent restarted the workers" "agent: a worker failed (exit codes .*), restart 1" "$OUT"
expect_grep "torchrun: the restart followed" "watching 4 ranks (torchrun's restart 1 of the workers)" "$ERR"
jreport "torchrun, restarted workers spin: rank 2, a computation hang" '.hang_type == "computation" and .faulty_ranks == [2]'
expect_grep "torchrun, restarted workers spin: its Python line" "rank 2 (host [^ ]*, pid [0-9]*) stays in application code in every snapshot, at spin_forever ([^ ]*ddp_train.py:$(line ddp-spin))" "$ERR"
expect_agent_no_rank trspin
expect_job_ended trspin

psrun_collect trrecv
expect_status "torchrun, dist.recv: the job was ended" 86
jreport "torchrun, dist.recv: rank 1 named, certain" '.faulty_ranks == [1] and .culprits[0].evidence == "certain"'
expect_trainer_shape "torchrun, dist.recv" "$ERR"
expect_agent_no_rank trrecv
expect_job_ended trrecv

psrun_collect trstop
expect_status "torchrun, SIGSTOPped rank: the job was ended" 86
jreport "torchrun, SIGSTOPped rank: rank 3 named" '.faulty_ranks == [3]'
jreport "torchrun, --no-record: no collective record read" '[.ranks[] | select(.collectives)] == []'
expect_agent_no_rank trstop
expect_job_ended trstop

SRC=tests/apps/subgroup_skip.py
psrun_collect skip
expect_status "a sub-group's all-reduce skipped: the job was ended" 86
expect_grep "sub-group skipped: the rank said it skipped" "rank 2 skips at step" "$OUT"
jreport "sub-group skipped: rank 2 named, certain" '.faulty_ranks == [2] and .culprits[0].evidence == "certain"'
expect_grep "sub-group skipped: the skip and the numbers in the culprit's line" "rank 2, certain: it skipped all_reduce #[0-9]* of group 1 (ranks 1-3) at subgroup_skip.py:$(line sub-group): after collective #[0-9]* of the default group, 2 of the ranks in both groups went on to it and 1 to all_reduce #[0-9]* of the default group" "$ERR"
expect_grep "sub-group skipped: the diagnosis numbers each group's call" "ranks 1,3 wait in all_reduce #[0-9]* of group 1 (ranks 1-3) at subgroup_skip.py:$(line sub-group); rank 2 never entered it" "$ERR"
expect_trainer_shape "sub-group skipped" "$ERR"
expect_keys_documented "sub-group skipped: report keys" "$REPORT"
expect_job_ended skip

finish
