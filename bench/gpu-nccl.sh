#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# gpu-nccl.sh [BUILD] — the NCCL checks of issue 67, prepared as one script for a lent GPU
# machine (one GPU, torch with CUDA, no Debian packages: carry BUILD and its libraries; run it
# through the device tool with a timeout that leaves time to run it again). Two checks, each a
# `parastack run` with a hard timeout, their reports and outputs under $OUT (default ./gpu-out):
#   (a) 2 processes on the one GPU cannot both hold NCCL communicators (NCCL refuses a duplicate
#       device), so rank 1 is NCCL's only rank on a world-size-1 NCCL group and waits for its own
#       GPU (torch.cuda._sleep of a huge count, then a synchronize) while rank 0 waits in a gloo
#       all_reduce of the default group: expected faulty [1], "waits for its GPU, not for a peer";
#   (b) a world-size-1 NCCL process group running all_reduce in a loop: `parastack stack` of it
#       (its threads, classified by the runtimes table: NCCL's proxy and watchdog threads as
#       workers) and bench/sample_cost's question asked of a process with CUDA in it.
# Not run yet: no GPU machine was lent to issue 67 (bench/results/gpu.md).
set -u
BUILD=${1:-build}
OUT=${OUT:-gpu-out}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
cat >"$OUT/gpu_wait.py" <<'PY'
import os, sys, time, torch, torch.distributed as dist
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo", rank=rank, world_size=world)
print("rank %d pid %d" % (rank, os.getpid()), flush=True)
if rank == 1:
    nccl = dist.new_group([1], backend="nccl")
    x = torch.ones(1, device="cuda")
    dist.all_reduce(x, group=nccl)
    torch.cuda.synchronize()
    time.sleep(5)
    torch.cuda._sleep(1 << 62)   # a kernel that never ends
    torch.cuda.synchronize()     # site: gpu-wait
else:
    time.sleep(5)
dist.all_reduce(torch.ones(1))   # rank 0 waits here for rank 1
PY
cat >"$OUT/nccl_loop.py" <<'PY'
import os, time, torch, torch.distributed as dist
dist.init_process_group("nccl", rank=0, world_size=1)
x = torch.ones(1 << 20, device="cuda")
print("pid %d" % os.getpid(), flush=True)
t0 = time.time()
while time.time() - t0 < float(os.environ.get("SECONDS_", "60")):
    dist.all_reduce(x)
torch.cuda.synchronize()
PY
echo "== (a) a rank waits for its own GPU"
timeout 300 "$BUILD/parastack" run --report "$OUT/a.json" --seed 3 --confirm 5 -- \
	"$PY" "$BUILD/../tests/apps/torchrun_layout.py" --nproc-per-node 2 --master-port 29871 "$OUT/gpu_wait.py" \
	>"$OUT/a.out" 2>"$OUT/a.err"
echo "exit $?"; sed -n '/HANG DETECTED/,/action:/p' "$OUT/a.err"
echo "== (b) a world-size-1 NCCL group"
MASTER_ADDR=127.0.0.1 MASTER_PORT=29881 SECONDS_=40 "$PY" "$OUT/nccl_loop.py" >"$OUT/b.out" 2>&1 &
job=$!
sleep 20
pid=$(sed -n 's/^pid //p' "$OUT/b.out")
[ -n "$pid" ] && "$BUILD/parastack" stack "$pid" >"$OUT/b.stack" 2>&1
[ -n "$pid" ] && SAMPLE_COST_PIDS=$pid "$BUILD/bench/sample_cost" >"$OUT/b.cost" 2>&1
wait $job
cat "$OUT/b.stack" "$OUT/b.cost" 2>/dev/null | head -80
