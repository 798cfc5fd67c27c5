# heat.py — an mpi4py program as users write them (no numpy: Debian 12's python3-mpi4py alone),
# for the field trial (bench/field.sh): a 2-D heat equation on rows split over the ranks, each
# step a halo exchange (Irecv from each neighbour, a blocking Send of a whole row: 20,000
# bytes; and an 8-double flag message: 64 bytes), a residual Allreduce, and every 50 steps a
# checkpoint of each rank's rows to its own file (an I/O phase). Runs STEPS steps (argv[1]).
# The residual goes through comm.Allreduce of a buffer, as numerical mpi4py codes sum theirs:
# mpi4py 3.1's comm.allreduce of a Python float makes no MPI_Allreduce call, and the field
# trial's skipped-collective and lone-barrier faults, injected at MPI_Allreduce, never fired.
import sys
from array import array

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
COLS, ROWS = 2500, 6
up, down = (rank - 1) % size, (rank + 1) % size

grid = [array("d", [float(rank)] * COLS) for _ in range(ROWS + 2)]
flags_out, flags_in = array("d", [0.0] * 8), array("d", [0.0] * 8)


def exchange():
    reqs = [comm.Irecv(grid[0], source=up, tag=1), comm.Irecv(grid[ROWS + 1], source=down, tag=2),
            comm.Irecv(flags_in, source=up, tag=3)]
    comm.Send(grid[ROWS], dest=down, tag=1)
    comm.Send(grid[1], dest=up, tag=2)
    comm.Send(flags_out, dest=down, tag=3)
    MPI.Request.Waitall(reqs)


def relax():
    change = 0.0
    for r in range(1, ROWS + 1):
        above, row, below = grid[r - 1], grid[r], grid[r + 1]
        for c in range(1, COLS - 1, 50):
            new = 0.25 * (above[c] + below[c] + row[c - 1] + row[c + 1])
            change += abs(new - row[c])
            row[c] = new
    return change


def checkpoint(step):
    with open("heat-%d.chk" % rank, "wb") as f:
        for _ in range(40):
            for row in grid:
                row.tofile(f)
        f.flush()


res_in, res_out = array("d", [0.0]), array("d", [0.0])
for step in range(steps):
    exchange()
    res_in[0] = relax()
    comm.Allreduce(res_in, res_out, op=MPI.SUM)
    residual = res_out[0]
    flags_out[0] = residual
    if step % 50 == 0:
        checkpoint(step)
if rank == 0:
    print("heat.py: %d steps, residual %g" % (steps, residual))
# SPDX-License-Identifier: BSD-3-Clause
