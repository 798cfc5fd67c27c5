# SPDX-License-Identifier: BSD-3-Clause
# procs.sh — the processes a test or a benchmark started, known by PID and start time, waited
# for with a deadline and stopped by PID, never by name: sourced by tests/cli/lib.sh and
# bench/lib.sh, which keep every PID they start in $STARTED (and `remember` it).

# proc_state PID: one-letter state ("" when gone).
proc_state() {
	sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null
}

# proc_alive PID: it exists and is no zombie.
proc_alive() {
	s=$(proc_state "$1")
	[ -n "$s" ] && [ "$s" != Z ]
}

# proc_started_at PID: the process's start time (clock ticks after boot; "" when gone). With a
# PID it names one process: PIDs are reused (pid_max is 32768 here), a start time is not.
proc_started_at() {
	awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null
}

# proc_started_before PID UNIXTIME: the process under PID started before UNIXTIME (seconds, a
# fraction allowed), so it is not one that got the PID later. Its start is in clock ticks after
# boot; UNIXTIME becomes seconds after boot by the uptime now (btime is whole seconds, and the
# clock drifts from it).
proc_started_before() {
	_ticks=$(proc_started_at "$1")
	[ -n "$_ticks" ] || return 1
	awk -v t="$_ticks" -v hz="$(getconf CLK_TCK)" -v when="$2" -v now="$(date +%s.%N)" \
		'{ exit !(t / hz < $1 - (now - when)) }' /proc/uptime
}

# remember PID: note which process PID is now, for proc_ours ("gone" if it has already ended).
remember() {
	_at=$(proc_started_at "$1")
	eval "PROC_AT_$1=${_at:-gone}"
}

# proc_ours PID: the process remembered under PID is still running - not another one that got
# its PID after it ended and the shell reaped it. A shell reaps its background children as soon
# as it runs its next command, so a test that waits for, or signals, a child that ended minutes
# ago would otherwise reach whatever process holds the number now: `collect` of a run that ended
# past its deadline sent SIGKILL at once - the likely end of a package build another test file
# ran ("debian/rules binary subprocess was killed by signal 9"). A PID never remembered:
# proc_alive.
proc_ours() {
	eval "_at=\${PROC_AT_$1:-}"
	case $_at in
	"") proc_alive "$1" ;;
	gone) return 1 ;;
	*) proc_alive "$1" && [ "$(proc_started_at "$1")" = "$_at" ] ;;
	esac
}

# reap PID [SECONDS]: wait, with a deadline, for a child of this shell to end, and reap it; its
# exit status in $REAP_RC. Returns 1 (and SIGKILLs it) if it did not end in time.
reap() {
	deadline=$(($(date +%s) + ${2:-10}))
	while proc_ours "$1"; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			kill -KILL "$1" 2>/dev/null
			wait "$1" 2>/dev/null
			REAP_RC=$?
			return 1
		fi
		sleep 0.05
	done
	wait "$1" 2>/dev/null
	REAP_RC=$?
	return 0
}

# started_forget PID: no longer one of the processes stop_started stops.
started_forget() {
	STARTED=$(printf '%s\n' $STARTED | grep -vx "$1" | tr '\n' ' ')
}

# Stop exactly the processes we started, by PID: SIGCONT (a test may have stopped one),
# SIGTERM, and SIGKILL for any still running after a grace period; reap them all.
stop_started() {
	for p in $STARTED; do proc_ours "$p" && kill -CONT "$p" 2>/dev/null && kill -TERM "$p" 2>/dev/null; done
	for p in $STARTED; do reap "$p" 10; done
	STARTED=""
}
# stop_started_one PID: stop one process we started (as stop_started does) and forget it.
stop_started_one() {
	proc_ours "$1" && kill -CONT "$1" 2>/dev/null && kill -TERM "$1" 2>/dev/null
	reap "$1" 10
	started_forget "$1"
}

# reap_other PID SECONDS: wait for a process that is not our child to be gone (or a zombie).
reap_other() {
	deadline=$(($(date +%s) + $2))
	while proc_ours "$1"; do
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.1
	done
	return 0
}
