# SPDX-License-Identifier: BSD-3-Clause
# Training jobs (issue 54): a torch.distributed DDP job with gloo on CPU (Debian's python3-torch,
# tests/apps/ddp_train.py) launched as many clusters launch one, `mpirun -np 4 python3 train.py`,
# under `parastack run`. Its ranks map no MPI library: gloo is the communication library
# (design.md §8.1). A rank spinning in its own Python code is a computation hang named at its
# file:line, the others one group in gloo's all-reduce; a rank waiting in dist.recv for a tensor
# nobody sends is named, at its Python line; no rank is left traced. The two jobs run side by
# side, each on its own rendezvous port.
. "$(dirname "$0")/lib.sh"
SRC=tests/apps/ddp_train.py
APP="/usr/bin/python3 $(pwd)/$SRC"

if ! /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; then
	skip "training jobs: Debian's python3-torch is not installed (scripts/install-deps --test)"
	finish
	exit $?
fi

# train_later NAME PORT [ENV=VALUE...]: 4 ranks under parastack run (a 5-s window), in the
# background; its own rendezvous port (the jobs run side by side).
train_later() {
	name=$1 port=$2
	shift 2
	xs=""
	for e in "$@"; do xs="$xs -x $e"; done
	# shellcheck disable=SC2086
	psrun_later "$name" 300 PS_SECONDS=600 PS_CKPT_AT=-1 -- --seed 3 --confirm 5 -- \
		mpirun --oversubscribe -np 4 -x MASTER_PORT="$port" -x PS_SECONDS -x PS_CKPT_AT -x PS_PRINT_PIDS=1 $xs $APP
}

train_later spin 29731 PS_FAULT=spin PS_FAULT_RANK=2 PS_FAULT_AFTER=20
train_later recv 29741 PS_FAULT=recv PS_FAULT_RANK=1 PS_FAULT_AFTER=20

psrun_collect spin
expect_status "spin in Python: the job was ended" 86
jreport "spin in Python: rank 2, a computation hang" '.hang_type == "computation" and .faulty_ranks == [2]'
expect_grep "spin in Python: the rank's position is its Python line" "rank 2 (host [^ ]*, pid [0-9]*) stays in application code in every snapshot, at spin_forever ([^ ]*ddp_train.py:$(line ddp-spin))" "$ERR"
jreport "spin in Python: the others wait in gloo's all-reduce, one group" '[.groups[] | select(.ranks == "0-1,3") | .state == "IN_MPI" and .mpi_call == "libgloo.so.0.5.0" and (.path | test("ProcessGroupGloo::runLoop"))] == [true]'
# The job was ended: each rank gone, or (still exiting) untraced.
for r in 0 1 2 3; do
	p=$(rank_pid "$TMP/spin.later.out" "$r")
	if [ -z "$p" ]; then
		fail "spin: rank $r never printed its PID"
	elif [ -z "$(proc_state "$p")" ]; then
		ok
	else
		expect_untraced "spin: rank $r" "$p"
	fi
done

psrun_collect recv
expect_status "dist.recv of a tensor nobody sends: the job was ended" 86
jreport "dist.recv: rank 1 named" '.faulty_ranks == [1]'
jreport "dist.recv: its Python line in its frames" '[.ranks[] | select(.rank == 1) | .frames[] | select(.lang == "python" and (.file // "" | endswith("ddp_train.py"))) | .line][0] == '"$(line ddp-recv)"

finish
