# SPDX-License-Identifier: BSD-3-Clause
# ctypes_ring — an MPI program in Python with no mpi4py, as users write one where none is built
# for their interpreter (pyenv's, conda's): Open MPI's libmpi loaded with ctypes, a ring of
# MPI_Sendrecv and an MPI_Allreduce each step, a little Python arithmetic between. Runs on any
# CPython 3.8+. PS_FAULT=spin: rank PS_FAULT_RANK (default 2) spins in spin_forever after
# PS_FAULT_AFTER seconds (default 20); PS_STEPS bounds a healthy run (default: 300 steps).
import ctypes
import os
import sys
import time

mpi = ctypes.CDLL(os.environ.get("PS_LIBMPI", "libmpi.so.40"), mode=ctypes.RTLD_GLOBAL)


def handle(name):
    """An Open MPI predefined handle: the address of its global object."""
    return ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(mpi, name)))


WORLD = handle("ompi_mpi_comm_world")
DOUBLE = handle("ompi_mpi_double")
SUM = handle("ompi_mpi_op_sum")
STATUS_IGNORE = ctypes.c_void_p(0)


def spin_forever(x):
    # One line: the loop's jump back and its body alike (3.12 puts the jump on the while line).
    while True: x = x * 0.5 + 1.0  # site: ctypes-spin


def step(rank, size, value):
    out = ctypes.c_double(value)
    got = ctypes.c_double(0.0)
    total = ctypes.c_double(0.0)
    mpi.MPI_Sendrecv(ctypes.byref(out), 1, DOUBLE, (rank + 1) % size, 7, ctypes.byref(got), 1, DOUBLE,
                     (rank - 1) % size, 7, WORLD, STATUS_IGNORE)
    mpi.MPI_Allreduce(ctypes.byref(got), ctypes.byref(total), 1, DOUBLE, SUM, WORLD)
    return total.value


def main():
    mpi.MPI_Init(None, None)
    rank, size = ctypes.c_int(0), ctypes.c_int(0)
    mpi.MPI_Comm_rank(WORLD, ctypes.byref(rank))
    mpi.MPI_Comm_size(WORLD, ctypes.byref(size))
    rank, size = rank.value, size.value
    fault = os.environ.get("PS_FAULT", "")
    fault_rank = int(os.environ.get("PS_FAULT_RANK", "2"))
    after = float(os.environ.get("PS_FAULT_AFTER", "20"))
    steps = int(os.environ.get("PS_STEPS", "300"))
    start = time.time()
    value = float(rank)
    for _ in range(steps):
        if fault == "spin" and rank == fault_rank and time.time() - start > after:
            spin_forever(value)
        value = step(rank, size, sum(i * 0.001 for i in range(2000)) + value * 1e-9)
        time.sleep(0.02)
    mpi.MPI_Finalize()
    if rank == 0:
        print("ctypes_ring: %d steps on %d ranks, Python %d.%d" % (steps, size, *sys.version_info[:2]))


main()
