# SPDX-License-Identifier: BSD-3-Clause
# torch_record_loop.py — the cost of a torch.distributed call with parastack's collective record
# around it (bench/torch-record.sh): ITERS all_reduce calls of a 1-element tensor on gloo, then
# ITERS of a DDP step (forward, backward: the gradient all-reduce), timed on rank 0 after a
# warm-up. Prints "record R all_reduce_us A ddp_step_us D" (R: whether the record was kept).
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def main():
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("RANK", "0")))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("WORLD_SIZE", "1")))
    iters = int(os.environ.get("ITERS", "2000"))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world)
    x = torch.ones(1)
    for _ in range(200):
        dist.all_reduce(x)
    t0 = time.perf_counter()
    for _ in range(iters):
        dist.all_reduce(x)
    allreduce_us = (time.perf_counter() - t0) / iters * 1e6
    model = DistributedDataParallel(torch.nn.Linear(8, 2))
    data = torch.randn(4, 8)
    for _ in range(50):
        model(data).sum().backward()
    t0 = time.perf_counter()
    for _ in range(iters // 4):
        model(data).sum().backward()
    ddp_us = (time.perf_counter() - t0) / (iters // 4) * 1e6
    kept = "parastack_torchrec" in sys.modules and sys.modules["parastack_torchrec"].record is not None
    if rank == 0:
        print("record %d all_reduce_us %.1f ddp_step_us %.1f" % (kept, allreduce_us, ddp_us), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
