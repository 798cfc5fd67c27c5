#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rank-pid.sh — start an unmodified MPI program under mpirun, first noting "RANK PID" in the file
# $PS_RANK_PIDS, so a benchmark can fault one rank by PID (exec keeps the PID).
echo "${OMPI_COMM_WORLD_RANK:-?} $$" >>"$PS_RANK_PIDS"
exec "$@"
