# The SPANK plugin as a site deploys it (issue 41): `make install` into a prefix, its
# spank_parastack.so in the test cluster's plugstack.conf (tests/cluster/slurm-cluster.sh: 4
# nodes), an administrator's report and metrics directories (root-owned, as in /var/log). Users
# submit with plain sbatch, salloc and srun and the --parastack option. Checks the job output,
# the reports, the textfile as Debian's prometheus client parses it, the job record's
# AdminComment, and that jobs which do not ask are not touched.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cluster.sh"
HERE=$(pwd)
case "$BUILD" in /*) ;; *) BUILD=$HERE/$BUILD ;; esac
STENCIL=$BUILD/tests/apps/stencil

# --- the options the plugin passes on: checked as every command checks them ----------------
run "$PARASTACK" attach --report-dir "$TMP/missing" --pids 1
expect_error "--report-dir must exist" 2 "report-dir $TMP/missing: No such file or directory; create the directory first"
run "$PARASTACK" attach --metrics-dir /etc/passwd --pids 1
expect_error "--metrics-dir must be a directory" 2 "metrics-dir /etc/passwd: not a directory"

cluster_up test-spank 4 4
# The administrator's directories: root's, on a path only root can change (/tmp is not: it is
# world-writable), as /var/log/parastack would be. Removed at the end with the rest.
ADMIN=$(mktemp -d /var/lib/parastack-test.XXXXXX)
trap 'sh tests/cluster/slurm-cluster.sh stop "$CLUSTER"; stop_started; rm -rf "$TMP" "$ADMIN"' EXIT
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

cat >"$SUBMIT/spin.sh" <<EOF
#!/bin/sh
#SBATCH -N 4 --ntasks-per-node=2
# A user's script, as it would be without parastack: rank 6 spins after 10 s.
mpirun --bind-to none -x PS_FAULT=spin -x PS_FAULT_RANK=6 -x PS_FAULT_AFTER=10 $STENCIL
EOF
cat >"$SUBMIT/healthy.sh" <<EOF
#!/bin/sh
#SBATCH -N 4 --ntasks-per-node=2
mpirun --bind-to none -x PS_ITERS=60 $STENCIL
echo "healthy.sh done"
EOF

plugstack "report_dir=$ADMIN/reports" "metrics_dir=$ADMIN/metrics" options=seed=5

# --- a wrong --parastack value: refused at submission, in one line --------------------------
run sh -c "cd '$SUBMIT' && sbatch --parastack=bogus healthy.sh"
expect_error "an unknown --parastack= value" 1 "parastack: --parastack=bogus: 'bogus' is not a parastack option"
run sh -c "cd '$SUBMIT' && sbatch --parastack=confirm=soon healthy.sh"
expect_error "a bad --parastack= value" 1 "confirm: 'soon' is not a number of seconds"
if [ -z "$(squeue -h -o %i)" ]; then ok; else fail "a refused --parastack submitted a job: $(squeue)"; fi

# --- sbatch --parastack: the hang found, reported, the job ended; beside it a job that did
# not ask is not touched ----------------------------------------------------------------------
sb spin --parastack=confirm=5 spin.sh
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
jreport "user: the user's JSON report" '.verdict == "hang" and .faulty_ranks == [6]'
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

# --- default=on: a job without the option is watched; --parastack=off opts out ---------------
plugstack default=on "metrics_dir=$ADMIN/metrics"
sb dflt healthy.sh
sb off --parastack=off healthy.sh
wait_job_end dflt "$JOB_dflt" 300 "$SUBMIT/slurm-$JOB_dflt.out"
wait_job_end off "$JOB_off" 300 "$SUBMIT/slurm-$JOB_off.out"
OUTPUT=$(cat "$SUBMIT/slurm-$JOB_dflt.out" 2>/dev/null)
expect_state "default=on" "$JOB_dflt" COMPLETED 0
expect_grep "default=on: watched without asking" "watching 8 ranks on 4 node(s)" "$OUTPUT"
expect_grep "default=on: the watch ended with the job, no hang" "watched .* no hang" "$OUTPUT"
OUTPUT=$(cat "$SUBMIT/slurm-$JOB_off.out" 2>/dev/null)
expect_state "--parastack=off" "$JOB_off" COMPLETED 0
if printf '%s' "$OUTPUT" | grep -q parastack; then fail "--parastack=off: parastack lines: $OUTPUT"; else ok; fi

# --- srun --parastack: a step inside an allocation (salloc) ---------------------------------
# Debian's Open MPI under srun --mpi=pmix now and then fails at start-up on a loaded machine (see
# test-slurm): a start that failed is tried again, a watched step that went wrong is not.
plugstack "report_dir=$ADMIN/reports" "metrics_dir=$ADMIN/metrics"
for attempt in 1 2 3; do
	(cd "$SUBMIT" && timeout 300 salloc -N 4 --ntasks-per-node=2 env PS_FAULT=spin PS_FAULT_RANK=6 PS_FAULT_AFTER=10 \
		srun --parastack=confirm=5 --mpi=pmix "$STENCIL") >"$TMP/salloc.out" 2>&1
	grep -q "watching 8 ranks" "$TMP/salloc.out" && break
	echo "test-spank: salloc's srun step did not start (attempt $attempt): $(tail -3 "$TMP/salloc.out")" >&2
done
OUTPUT=$(cat "$TMP/salloc.out")
expect_grep "srun --parastack: the report in srun's output" "HANG DETECTED.*computation error" "$OUTPUT"
expect_grep "srun --parastack: rank 6 named" "faulty rank(s): 6" "$OUTPUT"
SALLOC_JOB=$(printf '%s' "$OUTPUT" | sed -n 's/^salloc: Granted job allocation \([0-9]*\)$/\1/p')
REPORT=$SUBMIT/parastack-$SALLOC_JOB.0.json
jreport "srun --parastack: the step's JSON report" '.verdict == "hang" and .faulty_ranks == [6]'
REPORT=$ADMIN/reports/parastack-$SALLOC_JOB.json
jreport "srun --parastack: the site's copy" '.verdict == "hang" and .faulty_ranks == [6]'

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
deadline=$(($(date +%s) + 60))
while sinfo -h -N -o %T | grep -qv idle && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.5; done
if sinfo -h -N -o %T | grep -qv idle; then fail "a node is not idle after the jobs (none drained): $(sinfo -N)"; else ok; fi

finish
