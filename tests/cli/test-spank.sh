# SPDX-License-Identifier: BSD-3-Clause
# The SPANK plugin as a site deploys it (issue 41): `make install` into a prefix, its
# spank_parastack.so in the test cluster's plugstack.conf (tests/cluster/slurm-cluster.sh: 4
# nodes), an administrator's report and metrics directories (root-owned, as in /var/log). Users
# submit with plain sbatch, salloc and srun and the --parastack option, in every form they type
# (bare, empty, on, OPTS, off, default=on, a job array, two srun steps at once; issue 51), with
# scripts that run nested srun steps, a multi-node mpirun and MPICH's mpiexec. Checks the job
# output, the reports, the recording layer in the ranks (and nowhere else), the textfile as
# Debian's prometheus client parses it, the job record's AdminComment, and that jobs which do
# not ask are not touched.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cluster.sh"
HERE=$(pwd)
case "$BUILD" in /*) ;; *) BUILD=$HERE/$BUILD ;; esac
STENCIL=$BUILD/tests/apps/stencil
LAYERCHECK=$BUILD/tests/apps/layercheck
MLAYERCHECK=$BUILD/mpich/tests/apps/layercheck
INJ=$BUILD/tests/libpsinject.so

# --- the options the plugin passes on: checked as every command checks them ----------------
run "$PARASTACK" attach --report-dir "$TMP/missing" --pids 1
expect_error "--report-dir must exist" 2 "report-dir $TMP/missing: No such file or directory; create the directory first"
run "$PARASTACK" attach --metrics-dir /etc/passwd --pids 1
expect_error "--metrics-dir must be a directory" 2 "metrics-dir /etc/passwd: not a directory"
# A step of a job (JOBID.STEP, what the plugin watches for an srun step), said wrong:
for bad in 12. 12.x .3 12.-1 12.3.4; do
	run "$PARASTACK" attach --slurm-job "$bad"
	expect_error "--slurm-job $bad" 2 "slurm-job: '$bad' is not a Slurm job id (JOBID or JOBID.STEP)"
done

cluster_up test-spank 4 4
# The administrator's directories: root's, on a path only root can change (/tmp is not: it is
# world-writable), as /var/log/parastack would be. Removed at the end with the rest.
ADMIN=$(mktemp -d /var/lib/parastack-test.XXXXXX)
trap 'sh tests/cluster/slurm-cluster.sh stop "$CLUSTER"; stop_started; rm -rf "$ADMIN"; tmp_remove' EXIT
chmod 755 "$ADMIN"
mkdir -m 750 "$ADMIN/reports"
mkdir -m 755 "$ADMIN/metrics"
chgrp adm "$ADMIN/reports" 2>/dev/null || true
REPORT_GROUP=$(stat -c %g "$ADMIN/reports")
PREFIX=$TMP/prefix
if make -s --no-print-directory B="$BUILD" PREFIX="$PREFIX" install >"$TMP/install.out" 2>&1 &&
	[ -x "$PREFIX/lib/parastack/spank_parastack.so" ]; then ok; else fail "make install: $(tail -3 "$TMP/install.out")"; fi
PLUGIN=$PREFIX/lib/parastack/spank_parastack.so
SUBMIT=$TMP/submit
mkdir -p "$SUBMIT"
export OMPI_MCA_rmaps_base_oversubscribe=1

# plugstack ARGS...: the cluster's plugstack.conf, one line: the installed plugin with ARGS.
plugstack() {
	echo "optional $PLUGIN $*" >"$CLUSTER/plugstack.conf"
}

# sb NAME SBATCH-ARGS...: sbatch from the submit directory (or SB_DIR); sets JOB_<NAME>.
sb() {
	name=$1
	shift
	out=$(cd "${SB_DIR:-$SUBMIT}" && sbatch "$@" 2>&1)
	SB_DIR=""
	id=$(printf '%s' "$out" | sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p')
	if [ -n "$id" ]; then ok; else fail "$name: sbatch printed no job id: $out"; fi
	eval "JOB_$name=\$id"
}

# expect_nested NAME ID WATCHED LAYER: job ID ran nested.sh (the slurm-ID.out beside it) exactly
# as without the plugin: COMPLETED 0, every nested step and launcher ran, no line of the plugin's
# refusing or failing anything, nothing in the file of the script's first command; watched (1:
# the watch attached, 0: no parastack line at all); its ranks with the layer (1: each of
# mpirun's 8 and hydra's 4, the MPICH build; never their parent, orted or hydra's proxy) or
# without it (0: none, and no shims in the script's PATH).
expect_nested() {
	out=$(cat "$SUBMIT/slurm-$2.out" 2>/dev/null)
	expect_state "$1" "$2" COMPLETED 0
	for line in "hosts: n1 n2 n3 " "overlap ok" "concurrent steps ok" "mpirun ok" "nested.sh done"; do
		expect_grep "$1: the script's '$line'" "^$line" "$out"
	done
	bad=$(printf '%s\n' "$out" | grep -E "^parastack[-a-z]*: (error|--parastack)|not a parastack option|is not watched|the monitor stops|Invalid .*argument")
	if [ -z "$bad" ]; then ok; else fail "$1: a line of the plugin's: $bad"; fi
	first=$SUBMIT/first-$2.txt
	if [ -f "$first" ] && [ ! -s "$first" ]; then ok; else fail "$1: the script's first command's file: $(cat "$first" 2>&1)"; fi
	if [ "$3" = 1 ]; then
		expect_grep "$1: watched" "^parastack: attaching to Slurm job $2 (4 node(s)" "$out"
		expect_grep "$1: its 8 ranks found" "^parastack: watching 8 ranks\( (the job's next MPI run)\)\{0,1\} on 4 node(s)" "$out"
	elif printf '%s' "$out" | grep -q parastack; then fail "$1: parastack lines in a job not watched: $out"; else ok; fi
	# Counted wherever they are: mpirun forwards each rank's output as it reads it, and two ranks'
	# lines (or a line of the watch's) can come out run together.
	m=$(printf '%s\n' "$out" | grep -o "layercheck rank [0-9]* of 8: layer=$4 user=0 parent=0 show=[^ ]* preload=[^ ]* prog=mpirun" | wc -l)
	h=$(printf '%s\n' "$out" | grep -o "layercheck rank [0-9]* of 4: layer=$4 user=0 parent=0 show=[^ ]* preload=[^ ]* prog=hydra" | wc -l)
	if [ "$m" = 8 ] && [ "$h" = 4 ]; then ok; else fail "$1: layer=$4 in $m of mpirun's 8 ranks, $h of hydra's 4: $out"; fi
	if [ "$4" = 1 ]; then
		expect_grep "$1: hydra's ranks have the MPICH build" "layer=1 .*preload=[^ ]*/mpich/libparastack-mpi.so prog=hydra$" "$out"
		expect_grep "$1: the script's launchers are shims" "^shims: /tmp/parastack-launch\." "$out"
		# Removed when the step ends (slurmstepd may finish that after Slurm shows the job ended).
		shims=$(printf '%s\n' "$out" | sed -n 's/^shims: \(\/tmp\/parastack-launch\.[A-Za-z0-9]*\)$/\1/p')
		deadline=$(($(date +%s) + 30))
		while [ -n "$shims" ] && [ -e "$shims" ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
		if [ -n "$shims" ] && [ ! -e "$shims" ]; then ok; else fail "$1: the shims' directory '$shims' is left"; fi
	else
		expect_grep "$1: no shims" "^shims: none" "$out"
	fi
}

cat >"$SUBMIT/spin.sh" <<EOF
#!/bin/sh
#SBATCH -N 4 --ntasks-per-node=2
# A user's script, as it would be without parastack: rank 6 spins after 10 s.
mpirun --bind-to none -x PS_FAULT=spin -x PS_FAULT_RANK=6 -x PS_FAULT_AFTER=10 $STENCIL
EOF
# What users' scripts run inside a job: a first command whose output goes to a file of its own
# (the watch's lines must stay in the job's output, not land there), nested srun steps (one
# --overlap, two at once: their tasks, with the layer, map MPI and claim ranks 0 and 1 twice
# while they last), a multi-node mpirun of layercheck (each rank says whether the recording
# layer is in it and in its parent) and of the stencil, and MPICH's mpiexec under Slurm.
cat >"$SUBMIT/nested.sh" <<EOF
#!/bin/sh
#SBATCH -N 4 --ntasks-per-node=2
sleep 1 >"first-\$SLURM_JOB_ID.txt" 2>&1
echo "shims: \${PARASTACK_SHIM_DIR:-none}"
echo "hosts: \$(srun -N 3 -n 3 hostname | sort | tr '\n' ' ')"
srun --overlap -n 2 true && echo "overlap ok"
srun -n 2 sleep 2 & srun -n 2 sleep 2 & wait
echo "concurrent steps ok"
mpirun --bind-to none $LAYERCHECK mpirun
mpirun --bind-to none -x PS_ITERS=60 $STENCIL && echo "mpirun ok"
mpiexec.mpich -n 4 $MLAYERCHECK hydra </dev/null
echo "nested.sh done"
EOF
# Rank 3 waits, at its 100th Allreduce, in a receive nobody matches (the injector, held inside
# MPI below the layer).
cat >"$SUBMIT/block.sh" <<EOF
#!/bin/sh
#SBATCH -N 4 --ntasks-per-node=2
mpirun --bind-to none -x LD_PRELOAD=$INJ -x PS_INJECT_RANK=3 -x PS_INJECT_KIND=block -x PS_INJECT_CALL=100 $STENCIL
EOF
cat >"$SUBMIT/healthy.sh" <<EOF
#!/bin/sh
#SBATCH -N 4 --ntasks-per-node=2
mpirun --bind-to none -x PS_ITERS=60 $STENCIL
echo "healthy.sh done"
EOF

plugstack "report_dir=$ADMIN/reports" "metrics_dir=$ADMIN/metrics" options=seed=5,confirm=5

# --- a wrong --parastack value: refused at submission, in one line --------------------------
run sh -c "cd '$SUBMIT' && sbatch --parastack=bogus healthy.sh"
expect_error "an unknown --parastack= value" 1 "parastack: --parastack=bogus: 'bogus' is not a parastack option"
run sh -c "cd '$SUBMIT' && sbatch --parastack=confirm=soon healthy.sh"
expect_error "a bad --parastack= value" 1 "confirm: 'soon' is not a number of seconds"
if [ -z "$(squeue -h -o %i)" ]; then ok; else fail "a refused --parastack submitted a job: $(squeue)"; fi

# --- sbatch --parastack (bare; the site's options=confirm=5): the hang found, reported, the job
# ended; beside it a job that did not ask is not touched ------------------------------------------
sb spin --parastack spin.sh
sb plain healthy.sh
# The same for an ordinary user's job (nobody; root may submit for anyone): Slurm lets only the
# owner start the monitors' step, so the watch runs as the user, and the plugin copies the site's
# files out of the user's spool as root.
USUBMIT=$TMP/user
mkdir -p "$USUBMIT"
cp "$SUBMIT/spin.sh" "$USUBMIT/"
chown -R 65534:65534 "$USUBMIT"
SB_DIR=$USUBMIT sb user --uid=65534 --gid=65534 --parastack=confirm=5 spin.sh
wait_job_end spin "$JOB_spin" 300 "$SUBMIT/slurm-$JOB_spin.out"
wait_job_end plain "$JOB_plain" 300 "$SUBMIT/slurm-$JOB_plain.out"
OUTPUT=$(cat "$SUBMIT/slurm-$JOB_spin.out" 2>/dev/null)
expect_state "spin" "$JOB_spin" CANCELLED -
expect_grep "spin: watched from the plugin" "attaching to Slurm job $JOB_spin" "$OUTPUT"
expect_grep "spin: 8 ranks on 4 nodes" "watching 8 ranks on 4 node(s)" "$OUTPUT"
expect_grep "spin: the report in the job output" "HANG DETECTED.*computation error" "$OUTPUT"
expect_grep "spin: rank 6 named" "faulty rank(s): 6" "$OUTPUT"
expect_grep "spin: ended through Slurm" "cancelling the hung Slurm job $JOB_spin" "$OUTPUT"
REPORT=$SUBMIT/parastack-$JOB_spin.json
jreport "spin: the user's JSON report" '.verdict == "hang" and .hang_type == "computation" and .faulty_ranks == [6]'
REPORT=$ADMIN/reports/parastack-$JOB_spin.json
jreport "spin: the report in the site's directory" '.verdict == "hang" and .faulty_ranks == [6]'
if [ "$(stat -c '%u %g %a' "$REPORT" 2>/dev/null)" = "0 $REPORT_GROUP 640" ]; then ok; else
	fail "spin: the site's report is $(stat -c '%U %G %a' "$REPORT" 2>&1), want root, the directory's group, 640"; fi
comment=$(scontrol show job "$JOB_spin" 2>/dev/null | sed -n 's/^ *AdminComment=\(.*[^ ]\) *$/\1/p')
if [ "$comment" = "parastack: hang (computation), faulty 6" ]; then ok; else fail "spin: AdminComment '$comment'"; fi
OUTPUT=$(cat "$SUBMIT/slurm-$JOB_plain.out" 2>/dev/null)
expect_state "plain" "$JOB_plain" COMPLETED 0
expect_grep "plain: the job ran" "healthy.sh done" "$OUTPUT"
if printf '%s' "$OUTPUT" | grep -q parastack; then fail "plain: a job that did not ask has parastack lines: $OUTPUT"; else ok; fi

wait_job_end user "$JOB_user" 300 "$USUBMIT/slurm-$JOB_user.out"
OUTPUT=$(cat "$USUBMIT/slurm-$JOB_user.out" 2>/dev/null)
expect_state "user" "$JOB_user" CANCELLED -
expect_grep "user: the report in the job output" "faulty rank(s): 6" "$OUTPUT"
REPORT=$USUBMIT/parastack-$JOB_user.json
jreport "user: the user's JSON report, the layer in every rank (the shims made as the user)" '.verdict == "hang" and .faulty_ranks == [6] and ([.ranks[].recording_layer] | length == 8 and all)'
if [ "$(stat -c %u "$REPORT" 2>/dev/null)" = 65534 ]; then ok; else fail "user: the user's report is $(stat -c %U "$REPORT" 2>&1)'s"; fi
REPORT=$ADMIN/reports/parastack-$JOB_user.json
# The plugin collects the spool when the watch has stopped, in slurmstepd, which may be after
# Slurm already shows the job as ended: wait for the spool to be gone, with a deadline.
deadline=$(($(date +%s) + 60))
while [ -n "$(ls -A /run/parastack 2>/dev/null | grep "^$JOB_user\.")" ] && [ "$(date +%s)" -lt "$deadline" ]; do
	sleep 0.5
done
jreport "user: the site's copy" '.verdict == "hang" and .faulty_ranks == [6]'
if [ "$(stat -c '%u %g %a' "$REPORT" 2>/dev/null)" = "0 $REPORT_GROUP 640" ]; then ok; else
	fail "user: the site's copy is $(stat -c '%U %G %a' "$REPORT" 2>&1), want root, the directory's group, 640"; fi
if [ -z "$(ls -A /run/parastack 2>/dev/null | grep "^$JOB_user\.")" ]; then ok; else fail "user: the spool was left: $(ls -l /run/parastack)"; fi

# --- default=on: a job without the option is watched; --parastack=off opts out; layer=off ----
plugstack default=on "metrics_dir=$ADMIN/metrics" layer=off
sb dflt nested.sh
sb off --parastack=off nested.sh
wait_job_end dflt "$JOB_dflt" 300 "$SUBMIT/slurm-$JOB_dflt.out"
wait_job_end off "$JOB_off" 300 "$SUBMIT/slurm-$JOB_off.out"
expect_nested "default=on, layer=off" "$JOB_dflt" 1 0
expect_grep "default=on: the watch ended with the job, no hang" "watched .* no hang" "$(cat "$SUBMIT/slurm-$JOB_dflt.out" 2>/dev/null)"
expect_nested "--parastack=off" "$JOB_off" 0 0

# --- srun --parastack: a step inside an allocation (salloc) ---------------------------------
# Debian's Open MPI under srun --mpi=pmix now and then fails at start-up on a loaded machine (see
# test-slurm): a start that failed is tried again, a watched step that went wrong is not.
# salloc --parastack, bare: srun has it from the job's environment (Slurm's "(null)"), and the
# step is watched alone.
plugstack "report_dir=$ADMIN/reports" "metrics_dir=$ADMIN/metrics" options=seed=5,confirm=5
for attempt in 1 2 3; do
	(cd "$SUBMIT" && timeout 300 salloc --parastack -N 4 --ntasks-per-node=2 env PS_FAULT=spin PS_FAULT_RANK=6 \
		PS_FAULT_AFTER=10 srun --mpi=pmix "$STENCIL") >"$TMP/salloc.out" 2>&1
	grep -q "watching 8 ranks" "$TMP/salloc.out" && break
	echo "test-spank: salloc's srun step did not start (attempt $attempt): $(tail -3 "$TMP/salloc.out")" >&2
done
OUTPUT=$(cat "$TMP/salloc.out")
SALLOC_JOB=$(printf '%s' "$OUTPUT" | sed -n 's/^salloc: Granted job allocation \([0-9]*\)$/\1/p')
expect_grep "salloc --parastack: the step watched alone" "attaching to Slurm step $SALLOC_JOB.0 (4 node" "$OUTPUT"
expect_grep "salloc --parastack: the report in srun's output" "HANG DETECTED.*computation error" "$OUTPUT"
expect_grep "salloc --parastack: rank 6 named" "faulty rank(s): 6" "$OUTPUT"
expect_grep "salloc --parastack: the step ended, not the allocation" "cancelling the hung Slurm step $SALLOC_JOB.0 (the allocation runs on)" "$OUTPUT"
if printf '%s' "$OUTPUT" | grep -q "not a parastack option"; then fail "salloc --parastack: srun refused the job's value: $OUTPUT"; else ok; fi
REPORT=$SUBMIT/parastack-$SALLOC_JOB.0.json
jreport "salloc --parastack: the step's JSON report, every rank with the layer" '.verdict == "hang" and .faulty_ranks == [6] and ([.ranks[].recording_layer] | length == 8 and all)'
REPORT=$ADMIN/reports/parastack-$SALLOC_JOB.0.json
jreport "salloc --parastack: the site's copy, named by the step" '.verdict == "hang" and .faulty_ranks == [6]'

# --- the textfile: what node_exporter would read, as Debian's Prometheus client parses it ----
# (spin, the user's job and the salloc step hung; default=on's job was watched; plain and off
# were not).
PROM=$ADMIN/metrics/parastack.prom
parsed=$(/usr/bin/python3 - "$PROM" <<'EOF' 2>&1
import sys
from prometheus_client.parser import text_string_to_metric_families
v = {}
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in fam.samples:
        v[s.name + "".join("{%s=%s}" % kv for kv in sorted(s.labels.items()))] = s.value
print("jobs=%d hangs_computation=%d hangs_communication=%d suspicions_cover_hangs=%d samples_positive=%d" % (
    v["parastack_jobs_watched_total"], v["parastack_hangs_total{type=computation}"],
    v["parastack_hangs_total{type=communication}"],
    v["parastack_suspicions_total"] - v["parastack_suspicions_dismissed_total"] >= 3,
    v["parastack_samples_total"] > 0))
EOF
)
if [ "$parsed" = "jobs=4 hangs_computation=3 hangs_communication=0 suspicions_cover_hangs=1 samples_positive=1" ]; then ok; else
	fail "metrics: $parsed; the file: $(cat "$PROM" 2>&1)"; fi
if grep -v '^#' "$PROM" | awk 'NF != 2 { bad = 1 } END { exit bad }'; then ok; else fail "metrics: a line with a timestamp: $(cat "$PROM")"; fi

# --- every form of sbatch --parastack a user types, with a script of nested steps and launchers:
# each runs as without the plugin, watched, its ranks with the layer (--parastack=no-record:
# without); a job array's tasks each watched; a communication hang's culprit named from the
# layer's records ---------------------------------------------------------------------------------
plugstack options=seed=5,confirm=5
sb bare --parastack nested.sh
sb empty --parastack= nested.sh
sb on --parastack=on nested.sh
sb norec --parastack=no-record nested.sh
sb array --array=0-1 --parastack nested.sh
sb block --parastack block.sh
for name in bare empty on norec block; do
	eval "id=\$JOB_$name"
	wait_job_end "$name" "$id" 400 "$SUBMIT/slurm-$id.out"
done
wait_array() {
	deadline=$(($(date +%s) + 300))
	while squeue -h -j "$JOB_array" 2>/dev/null | grep -q . && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.5; done
	if squeue -h -j "$JOB_array" 2>/dev/null | grep -q .; then fail "the job array $JOB_array had not ended after 300 s"; scancel "$JOB_array"; else ok; fi
}
wait_array
# The watch's monitors are started by mpirun over the allocation's nodes; on a loaded machine an
# orted of that launch fails now and then before it reports back (Open MPI's "An ORTE daemon has
# unexpectedly failed after launch", seen once in CI with six jobs at once). parastack says so
# and the job runs on, as it should; that start is tried once more, a watch that went wrong
# after its start is not.
if cat "$SUBMIT/slurm-${JOB_array}"_?.out 2>/dev/null | grep -q "ORTE daemon has unexpectedly failed after launch"; then
	echo "test-spank: the array's monitors did not start (orted failed), submitted again" >&2
	rm -f "$SUBMIT/slurm-${JOB_array}"_?.out
	sb array --array=0-1 --parastack nested.sh
	wait_array
fi
expect_nested "--parastack" "$JOB_bare" 1 1
expect_nested "--parastack=" "$JOB_empty" 1 1
expect_nested "--parastack=on" "$JOB_on" 1 1
expect_nested "--parastack=no-record" "$JOB_norec" 1 0
for task in 0 1; do
	# An array task's output is slurm-ARRAY_TASK.out; the job it ran as has an id of its own.
	id=$(scontrol -o show job "$JOB_array" 2>/dev/null | sed -n "s/^JobId=\([0-9]*\) .*ArrayTaskId=$task .*/\1/p")
	cp "$SUBMIT/slurm-${JOB_array}_$task.out" "$SUBMIT/slurm-$id.out" 2>/dev/null
	expect_nested "--array=0-1 --parastack, task $task" "$id" 1 1
done
OUTPUT=$(cat "$SUBMIT/slurm-$JOB_block.out" 2>/dev/null)
expect_state "block" "$JOB_block" CANCELLED -
expect_grep "block: rank 3 named, certain" "rank 3, certain: ranks 0-2,4-7 wait in a collective rank 3 has not entered" "$OUTPUT"
REPORT=$SUBMIT/parastack-$JOB_block.json
jreport "block: faulty [3], certain, every rank's recording_layer true" '.hang_type == "communication" and .faulty_ranks == [3] and .culprits[0].evidence == "certain" and ([.ranks[].recording_layer] | length == 8 and all)'

# --- two srun --parastack steps at once in one allocation: each watched alone, its own report ---
cat >"$SUBMIT/two.sh" <<EOF
#!/bin/sh
PS_FAULT=spin PS_FAULT_RANK=1 PS_FAULT_AFTER=10 srun --parastack -N 2 -n 4 --mpi=pmix $STENCIL >step-a.out 2>&1 &
PS_FAULT=spin PS_FAULT_RANK=2 PS_FAULT_AFTER=10 srun --parastack -N 2 -n 4 --mpi=pmix $STENCIL >step-b.out 2>&1 &
wait
EOF
for attempt in 1 2 3; do
	rm -f "$SUBMIT"/step-?.out
	(cd "$SUBMIT" && timeout 300 salloc -N 4 --ntasks-per-node=2 sh two.sh) >"$TMP/two.out" 2>&1
	# Each step's own watch found its 4 ranks, and every rank left MPI_Init. srun --mpi=pmix's
	# start-up fails now and then on a loaded machine: a step not started, or (seen once in the
	# repeats of issue 52) two ranks of a node left in MPI_Init's PMIx_Get for good while the
	# stepd's messages to the other node "exceeded the retry limit", and the watch rightly
	# reported that start-up hang. Such a start is tried again; a watched step that went wrong
	# after its start is not.
	grep -q 'watching 4 ranks on 2 node' "$SUBMIT/step-a.out" 2>/dev/null &&
		grep -q 'watching 4 ranks on 2 node' "$SUBMIT/step-b.out" 2>/dev/null &&
		! grep -Eq 'IN_MPI +main > app_start > MPI_Init$' "$SUBMIT/step-a.out" "$SUBMIT/step-b.out" && break
	echo "test-spank: two steps did not both start (attempt $attempt): $(tail -3 "$SUBMIT"/step-?.out)" >&2
done
TWO_JOB=$(sed -n 's/^salloc: Granted job allocation \([0-9]*\)$/\1/p' "$TMP/two.out")
for s in a b; do
	OUTPUT=$(cat "$SUBMIT/step-$s.out" 2>/dev/null)
	expect_grep "two steps, step $s: watched alone, on its own 2 nodes" "attaching to Slurm step $TWO_JOB\.[01] (2 node(s)" "$OUTPUT"
	expect_grep "two steps, step $s: its hang reported" "HANG DETECTED.*computation error" "$OUTPUT"
done
expect_grep "two steps: rank 1 named in step a's output" "faulty rank(s): 1$" "$(cat "$SUBMIT/step-a.out" 2>/dev/null)"
expect_grep "two steps: rank 2 named in step b's output" "faulty rank(s): 2$" "$(cat "$SUBMIT/step-b.out" 2>/dev/null)"
REPORT=$SUBMIT/parastack-$TWO_JOB.0.json
jreport "two steps: step 0's report, its 4 ranks" '.verdict == "hang" and (.ranks | length) == 4'
REPORT=$SUBMIT/parastack-$TWO_JOB.1.json
jreport "two steps: step 1's report, its 4 ranks" '.verdict == "hang" and (.ranks | length) == 4'
both=$(jq -r '[.faulty_ranks[]] | map(tostring) | join(",")' "$SUBMIT/parastack-$TWO_JOB.0.json" "$SUBMIT/parastack-$TWO_JOB.1.json" 2>/dev/null | sort | tr '\n' ' ')
if [ "$both" = "1 2 " ]; then ok; else fail "two steps: faulty ranks '$both', want 1 in one report and 2 in the other"; fi
shared=$(jq -r '.ranks[] | "\(.host) \(.pid)"' "$SUBMIT/parastack-$TWO_JOB.0.json" "$SUBMIT/parastack-$TWO_JOB.1.json" 2>/dev/null | sort | uniq -d)
n=$(jq -r '.ranks[] | "\(.host) \(.pid)"' "$SUBMIT/parastack-$TWO_JOB.0.json" "$SUBMIT/parastack-$TWO_JOB.1.json" 2>/dev/null | sort -u | wc -l)
if [ -z "$shared" ] && [ "$n" = 8 ]; then ok; else fail "two steps: $n distinct ranks in the two reports, shared: $shared"; fi

# --- the plugin loaded, its parastack program missing: jobs run, one line says why -----------
cp -a "$PREFIX" "$TMP/broken"
rm -f "$TMP/broken/bin/parastack"
echo "optional $TMP/broken/lib/parastack/spank_parastack.so default=on" >"$CLUSTER/plugstack.conf"
sb missing healthy.sh
wait_job_end missing "$JOB_missing" 300 "$SUBMIT/slurm-$JOB_missing.out"
OUTPUT=$(cat "$SUBMIT/slurm-$JOB_missing.out" 2>/dev/null)
expect_state "missing program" "$JOB_missing" COMPLETED 0
expect_grep "missing program: the job ran" "healthy.sh done" "$OUTPUT"
expect_grep "missing program: one line says why it is not watched" \
	"^parastack: this job is not watched for hangs: $TMP/broken/lib/parastack/../../bin/parastack: No such file or directory" "$OUTPUT"
if [ "$(printf '%s\n' "$OUTPUT" | grep -c parastack)" = 1 ]; then ok; else fail "missing program: more than one line: $OUTPUT"; fi
# ... and the same in slurmd's log, with the job's id, where the administrator looks.
if cat "$CLUSTER"/log/slurmd.*.log 2>/dev/null |
	grep -q "parastack: job $JOB_missing is not watched for hangs: $TMP/broken/lib/parastack/../../bin/parastack: No such file or directory"; then
	ok
else
	fail "missing program: not in slurmd's log: $(grep -h parastack "$CLUSTER"/log/slurmd.*.log 2>/dev/null | tail -3)"
fi
deadline=$(($(date +%s) + 60))
while sinfo -h -N -o %T | grep -qv idle && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.5; done
if sinfo -h -N -o %T | grep -qv idle; then fail "a node is not idle after the jobs (none drained): $(sinfo -N)"; else ok; fi

finish
