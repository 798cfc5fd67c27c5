# SPDX-License-Identifier: BSD-3-Clause
# subgroup_skip.py -- a torch.distributed job (gloo, CPU) with a sub-group, for the collective
# record (issue 67): every step, all ranks all-reduce on the default group, then ranks 1-3
# all-reduce on a group made with new_group([1, 2, 3]). After PS_FAULT_AFTER seconds (default
# 10) rank PS_FAULT_RANK (default 2) skips the sub-group's all-reduce once and goes on to the next
# step's: ranks 1 and 3 wait in the sub-group's call for it, it and rank 0 in the default
# group's for them. The rank and world size from Open MPI's, MPICH's or Slurm's variables, or
# torchrun's; the rendezvous at MASTER_ADDR:MASTER_PORT. Each rank prints "rank R pid P" once
# the groups are made, the faulty one "rank R skips at step S" as it skips.
import os
import sys
import time

import torch
import torch.distributed as dist


def env_first(names, default):
    for n in names:
        if os.environ.get(n, "") != "":
            return os.environ[n]
    return default


def main():
    rank = int(env_first(["RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"], "0"))
    world = int(env_first(["WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"], "1"))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    fault_rank = int(os.environ.get("PS_FAULT_RANK", "2"))
    fault_after = float(os.environ.get("PS_FAULT_AFTER", "10"))
    seconds = float(os.environ.get("PS_SECONDS", "600"))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world)
    sub = dist.new_group([1, 2, 3])
    print("rank %d pid %d" % (rank, os.getpid()), flush=True)
    t0 = time.monotonic()
    step = 0
    skipped = False
    while True:
        x = torch.ones(1024) * rank
        done = torch.tensor([1.0 if time.monotonic() - t0 > seconds else 0.0])
        dist.all_reduce(done, op=dist.ReduceOp.MAX)  # site: sub-world
        if done.item() > 0:
            break
        if rank in (1, 2, 3):
            if rank == fault_rank and not skipped and time.monotonic() - t0 > fault_after:
                skipped = True
                print("rank %d skips at step %d" % (rank, step), flush=True)
            else:
                dist.all_reduce(x, group=sub)  # site: sub-group
        step += 1
        time.sleep(0.01)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
