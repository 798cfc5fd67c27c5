# pysolver.py — a pure-Python MPI job (Debian's python3-mpi4py) as a new user writes one: a
# Jacobi relaxation on a 1-D grid split over the ranks, halos exchanged with comm.sendrecv, a
# residual with comm.allreduce. PS_FAULT (from the environment, after PS_FAULT_AFTER seconds,
# default 3) on rank PS_FAULT_RANK (default 2):
#   spin     the rank loops forever in relax() (a computation hang in Python code)
#   recv     the rank waits in comm.recv() for a message nobody sends (a communication hang)
#   oddrecv  at the top of the next iteration, before its halo exchange, the rank waits in
#            comm.recv() from its right neighbour with a tag nobody uses: its neighbours then
#            wait for its halos (a cycle with one odd member), the others in comm.allreduce
#   alone    rank 0 computes alone in Python for PS_ALONE seconds (default 20) while the others
#            wait in comm.bcast, then the job goes on: a healthy job
# PS_ITERS bounds the iterations (unset: until ended). Each rank prints "rank R pid P" when
# PS_PRINT_PIDS is set.
import os
import sys
import time

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
size = comm.Get_size()
fault = os.environ.get("PS_FAULT", "")
fault_rank = int(os.environ.get("PS_FAULT_RANK", "2"))
after = float(os.environ.get("PS_FAULT_AFTER", "3"))
iters = int(os.environ.get("PS_ITERS", "-1"))
if os.environ.get("PS_PRINT_PIDS"):
    print("rank %d pid %d" % (rank, os.getpid()), flush=True)


def relax(u, sweeps):
    for _ in range(sweeps):
        u = [u[0]] + [0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]) for i in range(1, len(u) - 1)] + [u[-1]]
    return u


def spin_forever(u):
    x = 0.0
    while True: x = x * 0.5 + u[1]  # site: py-spin


def exchange(u):
    left, right = (rank - 1) % size, (rank + 1) % size
    u[0] = comm.sendrecv(u[1], dest=left, source=right, sendtag=1, recvtag=1)
    u[-1] = comm.sendrecv(u[-2], dest=right, source=left, sendtag=2, recvtag=2)
    return u


def compute_alone(seconds):
    t = time.time()
    u = [float(i) for i in range(200)]
    while time.time() - t < seconds:  # site: py-alone
        u = relax(u, 1)
    return u


u = [float(rank)] * 64
t0 = time.time()
it = 0
fired = False
odd = False
while iters < 0 or it < iters:
    it += 1
    if odd:
        comm.recv(source=(rank + 1) % size, tag=999)  # site: py-oddrecv
    u = exchange(u)
    u = relax(u, 20)
    fire = comm.bcast(not fired and time.time() - t0 >= after, root=0)
    if fire:
        fired = True
        if fault == "spin" and rank == fault_rank:
            spin_forever(u)
        if fault == "recv" and rank == fault_rank:
            comm.recv(source=(rank + 1) % size, tag=77)  # site: py-recv
        odd = fault == "oddrecv" and rank == fault_rank
        if fault == "alone":
            if rank == 0:
                compute_alone(float(os.environ.get("PS_ALONE", "20")))
            comm.bcast(None, root=0)
    comm.allreduce(sum(u))
if rank == 0:
    print("pysolver: %d iterations" % it, flush=True)
sys.exit(0)
# SPDX-License-Identifier: BSD-3-Clause
