#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# slurm-cluster.sh — a real Slurm cluster on this one machine, for the tests: munged with its own
# key and socket, slurmctld, and N slurmd "nodes" n1..nN, each in its own UTS namespace so each
# has its own host name (Open MPI's shared-memory transport keys on the host name), and in its
# own mount namespace where DIR/local is that node's private directory (DIR/local-nodes/nI), as a
# node-local /tmp is on a real cluster, and where /etc/hosts is DIR/hosts (the machine's, with
# every node's name on the loopback address: MPICH's proxies look their server's host up by
# name); outside the nodes DIR/local is the login node's. Everything
# lives in one directory; nothing under /etc is touched; every daemon's PID is recorded in
# DIR/pids and only those are ever signalled. Needs root (slurmd runs jobs as their users).
# DIR/plugstack.conf is the cluster's SPANK configuration, empty until a test writes it. Every
# job step gets a TMPDIR of its own on each node (task-prolog.sh, the cluster's TaskProlog).
#
#   slurm-cluster.sh start DIR [NODES [CPUS [pbs]]]
#                      start it; prints nothing, exits 0 when all nodes idle. With "pbs", every
#                      task gets the variables of a Torque job (pbs-task-prolog.sh), so that with
#                      Slurm's qsub/qdel wrappers the cluster plays a Torque cluster
#   slurm-cluster.sh stop DIR                   cancel its jobs, stop its daemons, keep DIR's logs
#   slurm-cluster.sh env DIR                    print "export SLURM_CONF=…" for a shell to eval
#   slurm-cluster.sh alive DIR                  exit 0 while every daemon runs; else name the one
#                                               that ended, with its last lines
#
# Known to work with Debian 12's Slurm 22.05: slurmd -N nI under `unshare --uts` on distinct
# ports; %n in SlurmdSpoolDir/PidFile/LogFile/TmpFS; proctrack/linuxproc, task/none;
# config_overrides (the nodes claim more CPUs than the machine has). `ip netns exec` is not
# used: it hides /sys/fs/cgroup and slurmd dies.
set -u

die() {
	echo "slurm-cluster: $*" >&2
	exit 1
}

# free_port_base COUNT: a port P such that P..P+COUNT-1 are not in use on this machine, below
# the kernel's ephemeral range (an outgoing connection's local port, taken between this look
# and the daemons' bind, would fail a daemon with "Address already in use"). Two clusters
# starting at once do not pick the same ports: start() holds a lock from here until its
# daemons listen.
free_port_base() {
	used=$(ss -Htan 2>/dev/null | awk '{n=split($4,a,":"); print a[n]}' | sort -u)
	hi=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
	case $hi in '' | *[!0-9]*) hi=32768 ;; esac
	lo=20000
	[ "$hi" -gt $((lo + 1000)) ] || lo=10000
	span=$((hi - lo - $1))
	p=$((lo + ($$ * 7) % span))
	while :; do
		clash=0
		i=0
		while [ $i -lt "$1" ]; do
			if printf '%s\n' "$used" | grep -qx "$((p + i))"; then clash=1; fi
			i=$((i + 1))
		done
		[ $clash -eq 0 ] && break
		p=$((p + $1 + 1))
		[ $((p + $1)) -ge "$hi" ] && p=$lo
	done
	echo $p
}

write_conf() {
	dir=$1 nodes=$2 cpus=$3 base=$4 prolog=$5
	cat >"$dir/slurm.conf" <<EOF
# Written by tests/cluster/slurm-cluster.sh for the parastack tests; not a site configuration.
ClusterName=pstest
SlurmctldHost=psctl(127.0.0.1)
SlurmctldPort=$base
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.%n.log
TmpFS=$dir/tmp/%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmdParameters=config_overrides
SchedulerParameters=batch_sched_delay=0
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=600
MailProg=/bin/true
PlugStackConfig=$dir/plugstack.conf
EOF
	# The SPANK plugins the tests load (test-spank.sh writes its lines here): none by default.
	: >"$dir/plugstack.conf"
	echo "TaskProlog=$prolog" >>"$dir/slurm.conf"
	i=1
	while [ $i -le "$nodes" ]; do
		echo "NodeName=n$i NodeAddr=127.0.0.1 Port=$((base + i)) CPUs=$cpus RealMemory=2000 State=UNKNOWN" >>"$dir/slurm.conf"
		i=$((i + 1))
	done
	echo "PartitionName=test Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO" >>"$dir/slurm.conf"
}

# Daemons run in their own session (setsid): a signal to the test's process group (timeout,
# Ctrl-C) must not take them down before stop has cancelled their jobs. In a script without job
# control a background child is no group leader, so setsid execs in place and $! stays the
# daemon's PID.

# started_at PID: its start time (clock ticks after boot; "" when gone): with the PID, one
# process - a daemon that ended while the cluster ran leaves a PID another process may get.
started_at() {
	awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null
}

# record NAME PID: one daemon we started ("PID NAME START" in $DIR/pids).
record() {
	echo "$2 $1 $(started_at "$2")" >>"$DIR/pids"
}

# daemons_alive [WHILE]: 0 while every daemon started so far runs (the recorded PID, started at
# the recorded time); else 1, and which one ended is said with the last lines it wrote (a
# slurmctld that cannot run fails the start at once, by name; a slurmd that died under a test
# is named beside the job that then never ended).
daemons_alive() {
	while read -r pid name start; do
		st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$pid/status" 2>/dev/null)
		[ -n "$st" ] && [ "$st" != Z ] && [ "$(started_at "$pid")" = "$start" ] && continue
		log=$DIR/log/$(echo "$name" | tr - .)
		echo "slurm-cluster: $name (pid $pid) ended ${1:-while the cluster started}: $({ tail -n 2 "$log.log"; tail -n 2 "$log.out"; } 2>/dev/null | tr '\n' ' ')" >&2
		return 1
	done <"$DIR/pids"
}

wait_idle() {
	deadline=$(($(date +%s) + 60))
	while :; do
		daemons_alive || return 1
		idle=$(SLURM_CONF=$DIR/slurm.conf sinfo -h -N -o '%T' 2>/dev/null | grep -c '^idle')
		[ "$idle" -ge "$1" ] && return 0
		if [ "$(date +%s)" -ge "$deadline" ]; then
			echo "slurm-cluster: only $idle of $1 nodes came up idle within 60 s; logs in $DIR/log" >&2
			SLURM_CONF=$DIR/slurm.conf sinfo -N >&2 2>&1
			tail -5 "$DIR"/log/*.log >&2
			return 1
		fi
		sleep 0.2
	done
}

start() {
	nodes=${1:-4}
	cpus=${2:-4}
	[ "$(id -u)" -eq 0 ] || die "needs root (slurmd runs jobs as their owners)"
	for prog in munged mungekey slurmctld slurmd sinfo unshare ss; do
		command -v "$prog" >/dev/null || die "$prog not found; run scripts/install-deps"
	done
	[ -e "$DIR/pids" ] && die "$DIR already holds a cluster; stop it first"
	mkdir -p "$DIR/munge" "$DIR/state" "$DIR/log" || die "cannot create $DIR"
	# munged: its socket directory must be reachable by every user (world-executable), not writable.
	chmod 755 "$DIR" "$DIR/munge"
	mungekey --create --keyfile="$DIR/munge/munge.key" --force >/dev/null 2>&1 ||
		dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 400 "$DIR/munge/munge.key"
	setsid munged --foreground --force --socket="$DIR/munge/munge.socket.2" \
		--key-file="$DIR/munge/munge.key" --pid-file="$DIR/munge/munged.pid" \
		--log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/munged.seed" \
		>>"$DIR/log/munged.out" 2>&1 &
	record munged $!
	prolog=$DIR/task-prolog
	cp "$(dirname "$0")/task-prolog.sh" "$prolog" && chmod 755 "$prolog" ||
		die "cannot copy task-prolog.sh into $DIR"
	if [ "${3:-}" = pbs ]; then
		cp "$(dirname "$0")/pbs-task-prolog.sh" "$DIR/pbs-task-prolog" && chmod 755 "$DIR/pbs-task-prolog" ||
			die "cannot copy pbs-task-prolog.sh into $DIR"
		mkdir -p "$DIR/pbs" && chmod 1777 "$DIR/pbs"
	fi
	# One cluster at a time picks its ports and has its daemons bind them (free_port_base);
	# the daemons do not inherit the lock (9>&-).
	lock=/run/lock/parastack-test-cluster.lock
	[ -d /run/lock ] || lock=/tmp/parastack-test-cluster.lock
	exec 9>>"$lock" && flock -w 180 9
	base=$(free_port_base $((nodes + 1)))
	write_conf "$DIR" "$nodes" "$cpus" "$base" "$prolog"
	deadline=$(($(date +%s) + 20))
	until [ -S "$DIR/munge/munge.socket.2" ]; do
		[ "$(date +%s)" -ge "$deadline" ] && die "munged did not start: $(tail -3 "$DIR/log/munged.log")"
		sleep 0.1
	done
	setsid unshare --uts sh -c "hostname psctl && exec slurmctld -D -i -f '$DIR/slurm.conf'" \
		>>"$DIR/log/slurmctld.out" 2>&1 9>&- &
	record slurmctld $!
	{ cat /etc/hosts 2>/dev/null; printf '127.0.0.1 psctl'; i=1; while [ $i -le "$nodes" ]; do printf ' n%d' $i; i=$((i + 1)); done; echo; } >"$DIR/hosts"
	i=1
	while [ $i -le "$nodes" ]; do
		mkdir -p "$DIR/spool/n$i" "$DIR/tmp/n$i" "$DIR/local" "$DIR/local-nodes/n$i"
		chmod 1777 "$DIR/local-nodes/n$i" # the steps' TMPDIRs (task-prolog.sh), made as their users
		setsid unshare --uts --mount --propagation private sh -c \
			"hostname n$i && mount --bind '$DIR/local-nodes/n$i' '$DIR/local' && mount --bind '$DIR/hosts' /etc/hosts && exec slurmd -D -N n$i -f '$DIR/slurm.conf'" \
			>>"$DIR/log/slurmd.n$i.out" 2>&1 9>&- &
		record "slurmd-n$i" $!
		i=$((i + 1))
	done
	wait_idle "$nodes" || { exec 9>&-; stop; exit 1; }
	exec 9>&-
}

# The jobs first (through Slurm), then the daemons, by their recorded PIDs only.
stop() {
	[ -e "$DIR/pids" ] || return 0
	if SLURM_CONF=$DIR/slurm.conf squeue -h -o %i 2>/dev/null | grep -q .; then
		SLURM_CONF=$DIR/slurm.conf scancel --full $(SLURM_CONF=$DIR/slurm.conf squeue -h -o %i) 2>/dev/null
		deadline=$(($(date +%s) + 30))
		while SLURM_CONF=$DIR/slurm.conf squeue -h -o %i 2>/dev/null | grep -q . &&
			[ "$(date +%s)" -lt "$deadline" ]; do
			sleep 0.2
		done
	fi
	# slurmds before slurmctld before munged: the reverse of the start order; each only while it
	# is still the process recorded (PID and start time).
	daemons=$(tac "$DIR/pids" | awk '$3 != "" { print $1 ":" $3 }' | tr '\n' ' ')
	for d in $daemons; do
		[ "$(started_at "${d%%:*}")" = "${d#*:}" ] && kill -TERM "${d%%:*}" 2>/dev/null
	done
	deadline=$(($(date +%s) + 20))
	for d in $daemons; do
		p=${d%%:*}
		while [ "$(started_at "$p")" = "${d#*:}" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; do
			if [ "$(date +%s)" -ge "$deadline" ]; then
				kill -KILL "$p" 2>/dev/null
				break
			fi
			sleep 0.1
		done
	done
	mv "$DIR/pids" "$DIR/pids.stopped"
}

[ $# -ge 2 ] || die "usage: slurm-cluster.sh start|stop|env|alive DIR [NODES [CPUS [pbs]]]"
cmd=$1
DIR=$2
shift 2
case $cmd in
start) start "$@" ;;
stop) stop ;;
env) echo "export SLURM_CONF='$DIR/slurm.conf'" ;;
alive) daemons_alive "while the cluster ran" ;;
*) die "unknown command '$cmd' (start, stop, env or alive)" ;;
esac
