# SPDX-License-Identifier: BSD-3-Clause
# lib.sh — what the benchmark scripts share: where things are, the machine's description for
# the results' headers, seeded random numbers, summary statistics (awk), and background runs
# recorded by PID and stopped by PID. Sourced by bench/*.sh; BUILD is the build directory.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${BUILD:-build}" && pwd)
PARASTACK=$BUILD/parastack
APPS=$BUILD/tests/apps
RESULTS=${BENCH_RESULTS:-$ROOT/bench/results}
BENCH=${BENCH:-quick}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/parastack-bench.XXXXXX")
STARTED=""
mkdir -p "$RESULTS"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
trap 'bench_stop_all; rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM HUP

# quick|full VALUE: the value for this campaign size.
pick() {
	if [ "$BENCH" = full ]; then echo "$2"; else echo "$1"; fi
}

machine() {
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	mem=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
	echo "$(nproc) cores, $mem, Linux $(uname -r), ${cpu:-unknown CPU}"
}

# header TITLE: the start of a results file.
header() {
	printf '# %s\n\nMeasured %s on %s; `make bench` (BENCH=%s).\nNumbers only: nothing here is asserted by a test.\n\n' \
		"$1" "$(date -u +%Y-%m-%d)" "$(machine)" "$BENCH"
}

# rand LO HI: a uniform number in [LO, HI) from the seeded sequence (BENCH_SEED, default 1),
# so a campaign repeats its fault times and ranks.
# The call count lives in a file: calls are made in command substitutions (subshells).
rand() {
	k=$(($(cat "$WORK/rand.calls" 2>/dev/null || echo 0) + 1))
	echo "$k" >"$WORK/rand.calls"
	awk -v s="${BENCH_SEED:-1}" -v k="$k" -v lo="$1" -v hi="$2" \
		'BEGIN { srand(s * 100003 + k); for (i = 0; i < k % 7; i++) rand(); printf "%.3f\n", lo + rand() * (hi - lo) }'
}

# randint LO HI: an integer in [LO, HI].
randint() {
	rand "$1" "$(($2 + 1))" | cut -d. -f1
}

# stats: numbers on stdin -> "n mean sd median min max p90" (sd with n - 1; p90 the value
# at rank ceil(0.9 n)).
stats() {
	sort -g | awk '{ v[NR] = $1; s += $1; q += $1 * $1 }
		END {
			if (NR == 0) { print "0 - - - - - -"; exit }
			m = s / NR; sd = NR > 1 ? sqrt((q - NR * m * m) / (NR - 1)) : 0
			med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			k = int(0.9 * NR); if (k < 0.9 * NR) k++
			printf "%d %.2f %.2f %.2f %.2f %.2f %.2f\n", NR, m, (sd > 0 ? sd : 0), med, v[1], v[NR], v[k]
		}'
}

now() {
	date +%s.%N
}

# The runs a benchmark starts: recorded by PID and start time, stopped by PID (the tests'
# helpers: proc_ours, reap, stop_started).
. "$ROOT/tests/cli/procs.sh"

# bg OUT CMD...: start CMD in the background, output in OUT; its PID in $BG, recorded.
bg() {
	out=$1
	shift
	"$@" >"$out" 2>&1 &
	BG=$!
	remember "$BG"
	STARTED="$STARTED $BG"
}

# running PID: the background run still runs (neither gone, nor a zombie, nor another process
# that got its PID).
running() {
	proc_ours "$1"
}

# finish_bg PID SECONDS: wait for a background run with a deadline; past it, TERM then KILL
# that PID. Leaves its exit status in $RC (124 when it had to be stopped).
finish_bg() {
	deadline=$(($(date +%s) + $2))
	while running "$1"; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			kill -TERM "$1" 2>/dev/null
			reap "$1" 5
			RC=124
			started_forget "$1"
			return
		fi
		sleep 0.2
	done
	wait "$1"
	RC=$?
	started_forget "$1"
}

bench_stop_all() {
	stop_started
}

# svg_preamble FILE TITLE: the start of every benchmark plot's gnuplot script.
svg_preamble() {
	printf "set terminal svg size 800,420 dynamic noenhanced font 'sans,11'\nset output '%s'\nset title '%s'\n" "$1" "$2"
}

# say TEXT: progress on stderr (the results go to files).
say() {
	echo "bench: $*" >&2
}

# BENCH_STATE=DIR: a campaign kept across sessions (hours of runs on a machine that is not
# always there). Each run's line goes to a file in DIR as soon as the run ends; run again with
# the same DIR, the campaign skips the runs it already has — its random draws are made all the
# same, so every run gets the rank and moment it would have had — and redoes a run cut short.
# It resumes only while the code it measures is the code that began it: state_begin PATH...
# refuses, in one line, when any PATH changed since DIR was begun (committed or not).
STATE=${BENCH_STATE:-$WORK}
state_begin() {
	[ -n "${BENCH_STATE:-}" ] || return 0
	mkdir -p "$STATE" || exit 2
	head=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null) ||
		{ echo "bench: BENCH_STATE needs a git checkout of the project" >&2; exit 2; }
	if [ ! -s "$STATE/commit" ]; then
		echo "$head" >"$STATE/commit"
		return 0
	fi
	began=$(cat "$STATE/commit")
	if ! git -C "$ROOT" diff --quiet "$began" -- "$@" 2>/dev/null; then
		echo "bench: $STATE was begun at ${began%"${began#???????}"}, and $* changed since" \
			"(git diff $began -- $*): measure the new code with a new BENCH_STATE" >&2
		exit 2
	fi
	say "resuming the campaign in $STATE (begun at ${began%"${began#???????}"})"
}

# state_has FILE COLUMN RUN: the campaign's FILE (in STATE) has a line for run number RUN in
# that column.
state_has() {
	[ -s "$STATE/$1" ] && awk -F'\t' -v c="$2" -v r="$3" '$c == r { f = 1 } END { exit !f }' "$STATE/$1"
}

# state_params TEXT: the campaign's settings; a campaign resumes only under the same ones (its
# run numbers name the same runs only then).
state_params() {
	[ -s "$STATE/params" ] || echo "$1" >"$STATE/params"
	if [ "$(cat "$STATE/params")" != "$1" ]; then
		echo "bench: $STATE holds a campaign of $(cat "$STATE/params"), not $1: give the same" \
			"settings, or a new BENCH_STATE" >&2
		exit 2
	fi
}
