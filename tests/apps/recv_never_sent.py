# recv_never_sent.py — an mpi4py job (Debian's python3-mpi4py) with a communication fault, after
# a short healthy phase (allreduce of a Python object, PS_FAULT_AFTER seconds, default 1):
# rank 1 waits in comm.recv() for a message from rank 2 that rank 2 never sends (mpi4py receives
# a pickled object with MPI_Mprobe and MPI_Mrecv); the others go on to the final barrier.
# Each rank prints "rank R pid P" when PS_PRINT_PIDS is set.
import os
import time

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
if os.environ.get("PS_PRINT_PIDS"):
    print("rank %d pid %d" % (rank, os.getpid()), flush=True)
after = float(os.environ.get("PS_FAULT_AFTER") or 1)
t0 = time.time()
while True:
    total = comm.allreduce({"rank": rank}["rank"])
    if comm.bcast(time.time() - t0 >= after, root=0):
        break
if rank == 1:
    comm.recv(source=2, tag=5)  # site: py-recv
comm.barrier()  # site: py-barrier
# SPDX-License-Identifier: BSD-3-Clause
