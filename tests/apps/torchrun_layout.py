# SPDX-License-Identifier: BSD-3-Clause
# torchrun_layout.py — starts a training script's workers exactly as torchrun's elastic agent
# does (issue 54), for the tests: Debian's torchrun (python3-torch 1.13 under Python 3.11) fails
# at start. Like torchrun's agent this process imports torch, carries whatever launcher variables
# it was started with (OMPI_COMM_WORLD_RANK, SLURM_PROCID: its node's number) and is no rank; its
# children are: each `python3 -u SCRIPT ARGS` with RANK, LOCAL_RANK, WORLD_SIZE,
# LOCAL_WORLD_SIZE, GROUP_RANK, GROUP_WORLD_SIZE, ROLE_RANK, ROLE_WORLD_SIZE, ROLE_NAME,
# MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID, TORCHELASTIC_RESTART_COUNT,
# TORCHELASTIC_MAX_RESTARTS, TORCHELASTIC_USE_AGENT_STORE (False: worker 0 serves the store)
# and OMP_NUM_THREADS=1 in their environment. When a worker fails, every worker is stopped
# (SIGTERM, then SIGKILL after 5 s) and, while restarts are left, all start again with
# TORCHELASTIC_RESTART_COUNT one higher; SIGTERM or SIGINT to the agent stops the workers and
# ends it. Prints "agent pid P" at start.
#
#   torchrun_layout.py [--nnodes N] [--node-rank R] --nproc-per-node K [--max-restarts M]
#                      [--master-addr A] [--master-port P] [--rdzv-id ID] SCRIPT [ARGS...]
import argparse
import os
import signal
import subprocess
import sys
import time

import torch  # noqa: F401 -- the agent maps torch (and gloo) as torchrun's does


def parse():
    p = argparse.ArgumentParser(prog="torchrun_layout.py")
    p.add_argument("--nnodes", type=int, default=1)
    p.add_argument("--node-rank", type=int, default=-1,
                   help="default: the launcher's rank of this process (SLURM_NODEID, OMPI_COMM_WORLD_RANK), else 0")
    p.add_argument("--nproc-per-node", type=int, required=True)
    p.add_argument("--max-restarts", type=int, default=0)
    p.add_argument("--master-addr", default="127.0.0.1")
    p.add_argument("--master-port", type=int, default=29500)
    p.add_argument("--rdzv-id", default="none")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    return p.parse_args()


def node_rank(a):
    if a.node_rank >= 0:
        return a.node_rank
    for v in ("SLURM_NODEID", "OMPI_COMM_WORLD_RANK"):
        if os.environ.get(v, "").isdigit():
            return int(os.environ[v])
    return 0


def start_workers(a, restart):
    node = node_rank(a)
    world = a.nnodes * a.nproc_per_node
    procs = []
    for local in range(a.nproc_per_node):
        rank = node * a.nproc_per_node + local
        env = dict(os.environ)
        env.update({
            "LOCAL_RANK": str(local), "RANK": str(rank), "GROUP_RANK": str(node),
            "ROLE_RANK": str(rank), "ROLE_NAME": "default",
            "LOCAL_WORLD_SIZE": str(a.nproc_per_node), "WORLD_SIZE": str(world),
            "GROUP_WORLD_SIZE": str(a.nnodes), "ROLE_WORLD_SIZE": str(world),
            "MASTER_ADDR": a.master_addr, "MASTER_PORT": str(a.master_port),
            "TORCHELASTIC_RESTART_COUNT": str(restart),
            "TORCHELASTIC_MAX_RESTARTS": str(a.max_restarts),
            "TORCHELASTIC_RUN_ID": a.rdzv_id, "TORCHELASTIC_USE_AGENT_STORE": "False",
            "NCCL_ASYNC_ERROR_HANDLING": "1", "OMP_NUM_THREADS": "1",
        })
        procs.append(subprocess.Popen([sys.executable, "-u", a.script] + a.args, env=env))
    return procs


def stop_workers(procs):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 5
    for p in procs:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


class Stop(Exception):
    def __init__(self, sig):
        super().__init__(sig)
        self.sig = sig


def on_signal(sig, _frame):
    raise Stop(sig)


def main():
    a = parse()
    print("agent pid %d" % os.getpid(), flush=True)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    restart = 0
    procs = start_workers(a, restart)
    try:
        while True:
            time.sleep(0.5)
            codes = [p.poll() for p in procs]
            if all(c == 0 for c in codes):
                return 0
            if not any(c not in (None, 0) for c in codes):
                continue
            stop_workers(procs)
            if restart >= a.max_restarts:
                print("agent: a worker failed (exit codes %s), no restart left" % codes, flush=True)
                return 1
            restart += 1
            print("agent: a worker failed (exit codes %s), restart %d" % (codes, restart), flush=True)
            procs = start_workers(a, restart)
    except Stop as s:
        stop_workers(procs)
        return 128 + s.sig


if __name__ == "__main__":
    sys.exit(main())
