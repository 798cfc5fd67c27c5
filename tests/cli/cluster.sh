# SPDX-License-Identifier: BSD-3-Clause
# cluster.sh — helpers for the tests that run jobs on the Slurm test cluster
# (tests/cluster/slurm-cluster.sh): start it for this test file (stopped on exit, before the
# test's own processes), and follow a job to its final state through libslurm (slurm_probe).
# Sourced after lib.sh.
PROBE=$BUILD/tests/slurm_probe
CLUSTER=$TMP/cluster
JOB_PROCS=""

# cluster_start NODES CPUS [pbs]: the cluster in $CLUSTER; exports SLURM_CONF. 1 if it did not
# come up (the failure is counted).
cluster_start() {
	trap 'sh tests/cluster/slurm-cluster.sh stop "$CLUSTER"; stop_started; tmp_remove' EXIT
	if ! why=$(sh tests/cluster/slurm-cluster.sh start "$CLUSTER" "$@" 2>&1); then
		fail "the Slurm test cluster did not start: $(printf '%s\n' "$why" | head -n 8)"
		return 1
	fi
	ok
	export SLURM_CONF=$CLUSTER/slurm.conf
	chmod 755 "$TMP" # the jobs' working directory must be reachable from the nodes
}

# front_end_basics PROG: what every batch front end says to the simplest command lines
# (none, a missing script, --help); leaves $TMP/ok.sh, a script that runs.
front_end_basics() {
	printf '#!/bin/sh\necho hi\n' >"$TMP/ok.sh"
	run "$1"
	expect_error "no script" 2 "no job script given"
	run "$1" "$TMP/missing.sh"
	expect_error "missing script" 1 "cannot read the job script .*missing.sh"
	run "$1" --help
	expect_status "--help" 0
	expect_grep "--help lists the options" "--report FILE" "$OUT"
}

# cluster_up NAME NODES CPUS [pbs]: the cluster for the rest of test NAME; ends the test (its
# counts printed) when not root (the rest skipped: a failure under CI=true), or when the cluster
# does not come up (a failure that names why).
cluster_up() {
	name=$1
	shift
	if [ "$(id -u)" -ne 0 ]; then
		skip "$name: the rest of the file needs the Slurm test cluster, which needs root (slurmd runs jobs as their owners)"
		finish
		exit $?
	fi
	if ! cluster_start "$@"; then
		finish
		exit 1
	fi
}

# job_field ID FIELD: "state", "exit", "nodes" of the job, from libslurm.
job_field() {
	"$PROBE" job "$1" 2>/dev/null | sed -n "s/^$2 //p"
}

# job_wait ID SECONDS: poll until the job has ended; 1 if it is still there at the deadline,
# and then it is cancelled, so that one failure does not hold the nodes the next tests need
# (its processes as they were before, in $JOB_PROCS).
job_wait() {
	deadline=$(($(date +%s) + $2))
	while :; do
		case $(job_field "$1" state) in
		PENDING | RUNNING | SUSPENDED | "") ;;
		*) return 0 ;;
		esac
		if [ "$(date +%s)" -ge "$deadline" ]; then
			JOB_PROCS=$(job_processes "$1")
			scancel "$1" 2>/dev/null
			return 1
		fi
		sleep 0.5
	done
}

# job_processes ID: the processes below the job's slurmstepd processes (read from ps, nothing
# signalled): state, kernel wait channel, tracer and command line, so that a job that did not
# end says where it was.
job_processes() {
	ps -eo pid=,ppid=,stat=,wchan:24=,etimes=,args= | awk -v job="$1" '
		{ pid[NR] = $1; ppid[NR] = $2; line[NR] = $0 }
		index($0, "slurmstepd: [" job ".") { mine[$1] = 1 }
		END {
			do { grew = 0
			     for (i = 1; i <= NR; i++)
				     if (!(pid[i] in mine) && (ppid[i] in mine)) { mine[pid[i]] = 1; grew = 1 }
			} while (grew)
			# The programs of the job first, the launchers and monitors after: an excerpt
			# of a failure (CI keeps a part of the output) shows where the ranks were.
			for (pass = 0; pass < 2; pass++)
				for (i = 1; i <= NR; i++) {
					infra = line[i] ~ /slurmstepd|orted|srun |mpirun|parastack-monitor|parastack run|slurm_script/
					if ((pid[i] in mine) && infra == pass) print substr(line[i], 1, 160)
				}
		}' | while read -r pid rest; do
		printf '  %s %s tracer %s\n' "$pid" "$rest" "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)"
	done
}

# wait_job_end NAME ID SECONDS OUTFILE: job_wait, a failure past the deadline (with the job's
# output, its processes as they were then, and a test-cluster daemon that had died).
wait_job_end() {
	job_wait "$2" "$3" && return 0
	fail "$1: job $2 had not ended after $3 s (cancelled): $(tail -15 "$4" 2>/dev/null)
$1: the job's processes at the deadline:
$JOB_PROCS
$1: the test cluster: $(sh tests/cluster/slurm-cluster.sh alive "$CLUSTER" 2>&1 && echo "every daemon runs")"
	return 1
}

# expect_state NAME ID STATE EXIT ("-": any exit status)
expect_state() {
	st=$(job_field "$2" state)
	ex=$(job_field "$2" exit)
	if [ "$st" = "$3" ] && { [ "$4" = - ] || [ "$ex" = "$4" ]; }; then ok; else fail "$1: job $2 ended $st (exit $ex), want $3 (exit $4)"; fi
}
