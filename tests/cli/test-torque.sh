# SPDX-License-Identifier: BSD-3-Clause
# parastack-qsub on the Slurm test cluster playing a Torque cluster: Debian has no Torque or
# OpenPBS server, so qsub/qdel are Slurm's wrappers (slurm-wlm-torque) and a TaskProlog gives
# every task the variables of a Torque job (PBS_JOBID, PBS_NODEFILE with one line per slot,
# PBS_NUM_NODES, PBS_O_WORKDIR, ...), so that parastack's Torque paths run for real: the job is
# found from those variables, one monitor per host of $PBS_NODEFILE is started by mpirun with
# a host file, ranks on every node are found by PBS_JOBID, and a hung job is ended by qdel.
# 4 nodes n1..n4; a computation hang on a rank of n3 and a healthy job; output, JSON report
# and final states as in test-slurm.sh. Bad command lines first (they need no cluster).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cluster.sh"
QSUB=$BUILD/parastack-qsub
HERE=$(pwd)
# BUILD, PARASTACK and QSUB as absolute paths, whether given relative to here or not.
case "$BUILD" in /*) ;; *) BUILD=$HERE/$BUILD ;; esac
case "$PARASTACK" in /*) ;; *) PARASTACK=$HERE/$PARASTACK ;; esac
case "$QSUB" in /*) ;; *) QSUB=$HERE/$QSUB ;; esac
STENCIL=$BUILD/tests/apps/stencil

# --- bad command lines: one line naming what is wrong, nothing submitted ----------------------
front_end_basics "$QSUB"
printf '#!/bin/sh\n#PBS -l nodes=0:ppn=2\necho hi\n' >"$TMP/badnodes.sh"
run "$QSUB" -l nodes=4:ppn=x "$TMP/ok.sh"
expect_error "malformed -l nodes" 2 "nodes=4:ppn=x: the nodes request is malformed"
run "$QSUB" "$TMP/badnodes.sh"
expect_error "malformed #PBS -l nodes" 2 "nodes=0:ppn=2: the nodes request is malformed"
run "$QSUB" -I "$TMP/ok.sh"
expect_error "interactive" 2 "interactive job"
run "$QSUB" --set-size 0 "$TMP/ok.sh"
expect_error "bad set size" 2 "set-size"
run "$QSUB" -l
expect_error "option without value" 2 "needs a value"

if ! command -v qsub >/dev/null || ! command -v qdel >/dev/null; then
	fail "qsub/qdel not found: scripts/install-deps installs slurm-wlm-torque"
	finish
	exit 1
fi

# --- the cluster, with Torque's variables in every job ------------------------------------------
cluster_up test-torque 4 4 pbs
SUBMIT=$TMP/submit
mkdir -p "$SUBMIT"

# The user's scripts, as written for Torque: #PBS directives, cd to $PBS_O_WORKDIR, mpirun
# over $PBS_NODEFILE.
cat >"$SUBMIT/solve.sh" <<EOF
#!/bin/sh
#PBS -l nodes=4:ppn=2
#PBS -l walltime=00:10:00
echo "solve.sh starts with arguments: \$*"
cd "\$PBS_O_WORKDIR" || exit 1
mpirun --bind-to none -np \$(wc -l <"\$PBS_NODEFILE") --hostfile "\$PBS_NODEFILE" $STENCIL
EOF
cat >"$SUBMIT/healthy.sh" <<EOF
#!/bin/bash
cd "\$PBS_O_WORKDIR" || exit 1
echo "on \$PBS_NUM_NODES nodes, \$PBS_NUM_PPN per node: \$(sort -u "\$PBS_NODEFILE" | tr '\n' ' ')"
mpirun --bind-to none -np \$PBS_NP --hostfile "\$PBS_NODEFILE" $STENCIL && echo "healthy run ok"
EOF

# qsub_job NAME [ENV=VALUE...] -- ARGS: parastack-qsub from the submit directory; sets
# JOB_<NAME> to the job id qsub printed (alone on its line, as Torque's qsub prints it).
qsub_job() {
	name=$1
	shift
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	# A short confirmation window, as test-slurm uses: this file tests the Torque path, test-run
	# the window (a suspicion dismissed while ranks still cascade into their waits would otherwise
	# need 60 + 120 s more).
	# shellcheck disable=SC2086
	(cd "$SUBMIT" && env $envs "$QSUB" --seed 5 --confirm 5 "$@" >"$TMP/$name.qsub" 2>"$TMP/$name.err")
	id=$(grep -x '[0-9][0-9]*' "$TMP/$name.qsub")
	if [ -n "$id" ]; then ok; else fail "$name: parastack-qsub printed no job id: $(cat "$TMP/$name.qsub" "$TMP/$name.err")"; fi
	eval "JOB_$name=\$id"
}

# A hang, with this shell's environment (-V); and a healthy job with only -v variables (which
# Slurm's wrapper turns into --export=NONE, inherited by srun inside the job unless
# parastack-qsub's job script undoes it), whose nodes request is on the command line. Each
# takes 2 of every node's 4 CPUs.
qsub_job spin PS_FAULT=spin PS_FAULT_RANK=5 PS_FAULT_AFTER=15 OMPI_MCA_rmaps_base_oversubscribe=1 \
	-- -V solve.sh first "second arg"
qsub_job healthy -- -l nodes=4:ppn=2 \
	-v PS_ITERS=120,OMPI_MCA_rmaps_base_oversubscribe=1,OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	healthy.sh
expect_grep "-v without -V: the wrapper's quirk is explained" "turns -v without -V into --export=NONE" "$(cat "$TMP/healthy.err")"

# --- a computation hang on n3, ended with qdel --------------------------------------------------
wait_job_end spin "$JOB_spin" 300 "$SUBMIT/solve.sh.o$JOB_spin"
OUTPUT=$(cat "$SUBMIT/solve.sh.o$JOB_spin" "$SUBMIT/solve.sh.e$JOB_spin" 2>/dev/null)
REPORT=$SUBMIT/parastack-$JOB_spin.json
expect_state "spin" "$JOB_spin" CANCELLED -
expect_grep "spin: the script ran with its arguments" "solve.sh starts with arguments: first second arg" "$OUTPUT"
expect_grep "spin: watched as a Torque job" "Torque job $JOB_spin: one monitor on each of the 4 host(s) of \$PBS_NODEFILE (8 slot(s))" "$OUTPUT"
expect_grep "spin: 8 ranks on 4 nodes" "watching 8 ranks on 4 node(s)" "$OUTPUT"
expect_grep "spin: report in the job output" "HANG DETECTED.*computation error" "$OUTPUT"
expect_grep "spin: the report is in SCRIPT.oJOBID, where users look" "HANG DETECTED.*computation error" "$(cat "$SUBMIT/solve.sh.o$JOB_spin" 2>/dev/null)"
expect_grep "spin: faulty rank in the output" "faulty rank(s): 5" "$OUTPUT"
expect_grep "spin: the faulty rank's host" "rank 5 on n3" "$OUTPUT"
expect_grep "spin: ended through qdel" "ending the hung Torque job $JOB_spin (qdel $JOB_spin)" "$OUTPUT"
jreport "spin: verdict" '.verdict == "hang" and .hang_type == "computation" and .faulty_ranks == [5]'
# ppn=2 means two slots on each node, as in Torque (the wrapper alone spreads 8 tasks unevenly).
jreport "spin: every rank with its node" '[.ranks[] | [.rank, .host]] == [[0,"n1"],[1,"n1"],[2,"n2"],[3,"n2"],[4,"n3"],[5,"n3"],[6,"n4"],[7,"n4"]]'
jreport "spin: the faulty rank's stack" '[.ranks[] | select(.rank == 5) | .frames[].func] | index("faulty_spin") != null'

# --- a healthy job ends by itself, with its own status ------------------------------------------
wait_job_end healthy "$JOB_healthy" 300 "$SUBMIT/healthy.sh.o$JOB_healthy"
OUTPUT=$(cat "$SUBMIT/healthy.sh.o$JOB_healthy" "$SUBMIT/healthy.sh.e$JOB_healthy" 2>/dev/null)
REPORT=$SUBMIT/parastack-$JOB_healthy.json
expect_state "healthy" "$JOB_healthy" COMPLETED 0
expect_grep "healthy: Torque's view of the job" "on 4 nodes, 2 per node: n1 n2 n3 n4" "$OUTPUT"
expect_grep "healthy: the run ended well" "healthy run ok" "$OUTPUT"
expect_grep "healthy: watched as a Torque job" "Torque job $JOB_healthy: one monitor on each of the 4 host(s)" "$OUTPUT"
if printf '%s' "$OUTPUT" | grep -q "HANG"; then fail "healthy: false alarm: $OUTPUT"; else ok; fi
jreport "healthy: verdict none, with the model" '.verdict == "none" and (.model.samples > 0)'
# The copy of the script lives in the job's Slurm spool directory: nothing is left in a TMPDIR,
# the test's or the jobs' own (the cluster gives each step one on each node: task-prolog.sh).
left=$(ls -d "${TMPDIR:-/tmp}"/parastack-job.* "$CLUSTER"/local-nodes/*/tmp.*/parastack-job.* 2>/dev/null)
if [ -z "$left" ]; then ok; else fail "a copy of a job script was left: $left"; fi

finish
