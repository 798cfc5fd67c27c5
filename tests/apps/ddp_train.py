# SPDX-License-Identifier: BSD-3-Clause
# ddp_train.py — a torch.distributed training job as a user writes one (issue 54): a small model
# on random data under DistributedDataParallel with gloo (CPU), the rank and world size from
# whichever launcher started it (torchrun's RANK/WORLD_SIZE, Open MPI's OMPI_COMM_WORLD_*,
# MPICH's PMI_*, Slurm's SLURM_PROCID/SLURM_NTASKS), the env:// rendezvous at MASTER_ADDR
# (default 127.0.0.1) and MASTER_PORT (default 29500). It trains for PS_SECONDS (default 90;
# PS_ITERS bounds the steps instead when set), and at PS_CKPT_AT seconds (default 40; negative:
# never) rank 0 writes a checkpoint and then pauses PS_CKPT_S seconds (default 30, a slow file
# system) while the others wait in the next gradient all-reduce: a healthy job.
# PS_FAULT, on rank PS_FAULT_RANK (default 2) after PS_FAULT_AFTER seconds (default 30):
#   spin   the rank loops forever in its own Python code (a computation hang)
#   recv   the rank waits in dist.recv for a tensor nobody sends (a communication hang)
#   stop   the rank stops itself with SIGSTOP (as a debugger or a stalled node would leave it)
#   exit   the rank exits with status 3 (a worker that fails: torchrun's agent restarts them all)
#   slow   the rank sleeps PS_SLOW_MS (default 50) ms more every step from then on: a straggler,
#          not a hang (the others wait for it in every gradient all-reduce)
# A comma list names one fault per attempt of torchrun's agent (TORCHELASTIC_RESTART_COUNT:
# "exit,spin" fails the first attempt, spins in the restarted one; the last applies thereafter).
# PS_LATE_RANK reaches init_process_group PS_LATE_S seconds (default 15) after the others,
# computing until then (as a rank importing torch from a slow file system would): a healthy
# start-up, during which the others wait in the rendezvous.
# PS_PREINIT, on rank PS_PREINIT_RANK (default 1), before init_process_group, as faults.h's for
# MPI: "stuck" reads its input from a pipe no one writes (it never arrives), "slow" reads a file
# in small pieces for PS_PREINIT_SECONDS (default 45), moving all along: a healthy start-up.
# PS_FAULT_LOG gets "UNIX_TIME RANK preinit-stuck" as the stuck read begins, and "UNIX_TIME RANK
# FAULT" as a fault begins (the moment a benchmark measures from).
# The faulty rank prints "rank R fault F at T" (T: seconds since the epoch) as the fault begins.
# Each rank prints "rank R pid P" and "rank R joined at T" once the process group is up
# (PS_PRINT_PIDS set), and "rank R step S loss L" every PS_PRINT_EVERY steps (default 0: never).
import os
import signal
import sys
import tempfile
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def env_first(names, default=None):
    for n in names:
        if os.environ.get(n, "") != "":
            return os.environ[n]
    return default


def spin_forever(x):
    y = 0.0
    while True: y = y * 0.5 + x  # site: ddp-spin


def read_input(fd, seconds):
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if not os.read(fd, 512): os.lseek(fd, 0, os.SEEK_SET)  # site: ddp-input
        time.sleep(0.05)


def fault_log(rank, what):
    """PS_FAULT_LOG's line as a fault begins: the moment a benchmark measures from."""
    if os.environ.get("PS_FAULT_LOG"):
        with open(os.environ["PS_FAULT_LOG"], "a") as log:
            log.write("%.6f %d %s\n" % (time.time(), rank, what))


def preinit_fault(rank):
    kind = os.environ.get("PS_PREINIT", "")
    if rank != int(os.environ.get("PS_PREINIT_RANK", "1")):
        return
    if kind == "stuck":
        fault_log(rank, "preinit-stuck")
        never, keep = os.pipe()  # keep: the write end stays open, so the read waits for good
        read_input(never, float("inf"))
    elif kind == "slow":
        fd = os.open(sys.executable, os.O_RDONLY)
        read_input(fd, float(os.environ.get("PS_PREINIT_SECONDS", "45")))
        os.close(fd)


def main():
    rank = int(env_first(["RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"], "0"))
    world = int(env_first(["WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"], "1"))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    seconds = float(os.environ.get("PS_SECONDS", "90"))
    iters = int(os.environ.get("PS_ITERS", "-1"))
    ckpt_at = float(os.environ.get("PS_CKPT_AT", "40"))
    ckpt_s = float(os.environ.get("PS_CKPT_S", "30"))
    faults = os.environ.get("PS_FAULT", "").split(",")
    fault = faults[min(int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")), len(faults) - 1)]
    fault_rank = int(os.environ.get("PS_FAULT_RANK", "2"))
    fault_after = float(os.environ.get("PS_FAULT_AFTER", "30"))
    every = int(os.environ.get("PS_PRINT_EVERY", "0"))

    torch.manual_seed(1234 + rank)
    torch.set_num_threads(1)
    if rank == int(os.environ.get("PS_LATE_RANK", "-1")):
        until = time.monotonic() + float(os.environ.get("PS_LATE_S", "15"))
        while time.monotonic() < until: pass  # site: ddp-late
    preinit_fault(rank)
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world)
    if os.environ.get("PS_PRINT_PIDS"):
        print("rank %d pid %d" % (rank, os.getpid()), flush=True)
        print("rank %d joined at %.3f" % (rank, time.time()), flush=True)

    model = DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    t0 = time.monotonic()
    step = 0
    checkpointed = ckpt_at < 0
    slow_s = 0.0
    while True:
        elapsed = time.monotonic() - t0
        # Every rank stops at the same step, when any one's time is up (a metric all-reduce, as
        # training loops have): a rank that left alone would leave the others in a collective.
        done = torch.tensor([1.0 if (elapsed >= seconds if iters < 0 else step >= iters) else 0.0])
        dist.all_reduce(done, op=dist.ReduceOp.MAX)
        if done.item() > 0:
            break
        if fault and rank == fault_rank and elapsed >= fault_after and not slow_s:
            print("rank %d fault %s at %.3f" % (rank, fault, time.time()), flush=True)
            fault_log(rank, fault)
            if fault == "slow":
                slow_s = float(os.environ.get("PS_SLOW_MS", "50")) / 1e3
            if fault == "spin":
                spin_forever(float(step))
            elif fault == "recv":
                dist.recv(torch.zeros(4), src=(rank + 1) % world)  # site: ddp-recv
            elif fault == "stop":
                os.kill(os.getpid(), signal.SIGSTOP)
            elif fault == "exit":
                os._exit(3)
        if slow_s:
            time.sleep(slow_s)  # site: ddp-slow
        if not checkpointed and elapsed >= ckpt_at:
            checkpointed = True
            if rank == 0:
                with tempfile.TemporaryDirectory() as d:
                    torch.save(model.state_dict(), os.path.join(d, "ckpt.pt"))
                    time.sleep(ckpt_s)  # site: ddp-checkpoint
        x = torch.randn(32, 64)
        y = torch.randint(0, 10, (32,))
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()  # DDP's gradient all-reduce  # site: ddp-backward
        opt.step()
        step += 1
        if every and step % every == 0:
            print("rank %d step %d loss %.3f" % (rank, step, loss.item()), flush=True)
    if rank == 0:
        print("trained %d steps on %d ranks" % (step, world), flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
