#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# task-prolog.sh — the test cluster's TaskProlog (slurm-cluster.sh): Slurm runs it before every
# task of every job step, and adds the variables it prints as "export NAME=VALUE" to the task's
# environment. It gives each step, on each node, a TMPDIR of its own in the node's private
# directory (DIR/local), as a site with per-job temporary directories does (Slurm's
# job_container/tmpfs, or a prolog). Without it every job of the tests shares the submitting
# test's TMPDIR, and Open MPI 4.1 then fails a launch now and then, with or without parastack:
# an mpirun or orted makes TMPDIR/ompi.HOST.UID while another launch of the same user on that
# node removes it as empty, and the mkdir fails ("A call to mkdir was unable to create the
# desired directory ... File exists", then "An ORTE daemon has unexpectedly failed after
# launch": open-mpi/ompi#8510). On a cluster playing Torque, the Torque variables follow
# (pbs-task-prolog.sh).
set -u
[ -n "${SLURM_JOB_ID:-}" ] || exit 0
conf_dir=${SLURM_CONF%/*}
dir=$conf_dir/local/tmp.$SLURM_JOB_ID.${SLURM_STEP_ID:-batch}
mkdir -p "$dir" 2>/dev/null && echo "export TMPDIR=$dir"
if [ -x "$conf_dir/pbs-task-prolog" ]; then exec "$conf_dir/pbs-task-prolog"; fi
exit 0
