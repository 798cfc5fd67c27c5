#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# pbs-task-prolog.sh — the test cluster's TaskProlog when it plays a Torque cluster
# (slurm-cluster.sh start DIR N C pbs): Slurm runs it before every task of every job, and adds
# the variables it prints as "export NAME=VALUE" to the task's environment. It gives the job
# what a Torque job sees: PBS_JOBID, PBS_NODEFILE (one line per slot, each host's lines
# together, written once per job by the batch step's task), PBS_NUM_NODES, PBS_NUM_PPN, PBS_NP,
# PBS_O_WORKDIR, PBS_O_HOST, PBS_JOBNAME, PBS_QUEUE, PBS_ENVIRONMENT. Torque's ids carry
# ".server"; these do not, because Slurm's qdel wrapper takes the number only.
set -u
[ -n "${SLURM_JOB_ID:-}" ] || exit 0
dir=${SLURM_CONF%/*}/pbs
nodefile=$dir/$SLURM_JOB_ID.nodes

# tasks_per_node "2(x3),1" -> "2 2 2 1"
counts=
for part in $(echo "${SLURM_TASKS_PER_NODE:-1}" | tr ',' ' '); do
	n=${part%%(*}
	times=1
	case $part in *"(x"*) times=${part#*(x}; times=${times%)} ;; esac
	while [ "$times" -gt 0 ]; do counts="$counts $n"; times=$((times - 1)); done
done
if [ ! -e "$nodefile" ]; then
	mkdir -p "$dir" 2>/dev/null
	tmp=$nodefile.$$
	set -- $counts
	for host in $(scontrol show hostnames "$SLURM_JOB_NODELIST"); do
		i=0
		while [ "$i" -lt "${1:-1}" ]; do echo "$host"; i=$((i + 1)); done
		[ $# -gt 0 ] && shift
	done >"$tmp" && mv "$tmp" "$nodefile"
fi
set -- $counts
echo "export PBS_JOBID=$SLURM_JOB_ID"
echo "export PBS_JOBNAME=${SLURM_JOB_NAME:-}"
echo "export PBS_NODEFILE=$nodefile"
echo "export PBS_NUM_NODES=${SLURM_JOB_NUM_NODES:-1}"
echo "export PBS_NUM_PPN=${SLURM_NTASKS_PER_NODE:-${1:-1}}"
echo "export PBS_NP=${SLURM_NTASKS:-1}"
echo "export PBS_O_WORKDIR=${SLURM_SUBMIT_DIR:-}"
echo "export PBS_O_HOST=${SLURM_SUBMIT_HOST:-}"
echo "export PBS_QUEUE=${SLURM_JOB_PARTITION:-}"
echo "export PBS_ENVIRONMENT=PBS_BATCH"
