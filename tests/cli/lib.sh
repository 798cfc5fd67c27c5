# SPDX-License-Identifier: BSD-3-Clause
# lib.sh — helpers for the command-line tests: each test file sources this, calls `ok`/`fail`
# through the expect_* helpers, and ends with `finish`. Results are counted per file and
# summed by run-all.sh.
set -u
PASSED=0
FAILED=0
SKIPPED=0
BUILD=${BUILD:-build}
PARASTACK=${PARASTACK:-$BUILD/parastack}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/parastack-cli.XXXXXX")
STARTED="" # every process this test started in the background, by PID

# The processes a test starts, known by PID and start time and stopped by PID: procs.sh,
# shared with bench/lib.sh (PROCS_SH: where it is when this library is sourced from elsewhere than
# the test file's folder).
. "${PROCS_SH:-$(dirname "$0")/procs.sh}"

# tmp_remove: $TMP removed, unless KEEP_TMP=1, or KEEP_TMP=failed and a check of this file failed
# (its jobs' and the test cluster's logs are then left to read; run-all.sh names the directory).
tmp_remove() {
	case ${KEEP_TMP:-} in
	'') rm -rf "$TMP" ;;
	failed) [ "$FAILED" -gt 0 ] || rm -rf "$TMP" ;;
	esac
}
trap 'stop_started; tmp_remove' EXIT
trap 'exit 1' TERM INT HUP

# start OUTFILE CMD...: run CMD in the background (output to OUTFILE), record its PID in $BG.
# Each gets an Open MPI session base of its own: two mpiruns started together under one TMPDIR
# race on TMPDIR/ompi.HOST.UID ("orte_session_dir failed": open-mpi/ompi#8510), which is Open
# MPI's, not what a test checks. The base is sticky and open to all, for jobs run as another user.
start() {
	out=$1
	shift
	sess=$(mktemp -d "$TMP/ompi-base.XXXXXX") && chmod 1777 "$sess"
	OMPI_MCA_orte_tmpdir_base=$sess PRTE_MCA_prte_tmpdir_base=$sess "$@" >"$out" 2>&1 &
	BG=$!
	remember "$BG"
	STARTED="$STARTED $BG"
}

# wait_for FILE PATTERN [SECONDS]: poll until FILE has PATTERN (default deadline 60 s).
wait_for() {
	deadline=$(($(date +%s) + ${3:-60}))
	while ! grep -q -- "$2" "$1" 2>/dev/null; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			fail "timed out waiting for /$2/ in $1: $(tail -5 "$1" 2>/dev/null)"
			return 1
		fi
		sleep 0.1
	done
}

# line MARKER: the line of $SRC (a test application) carrying "# site: MARKER".
line() {
	grep -n "# site: $1\$" "$SRC" | head -n 1 | cut -d: -f1
}

# Open MPI refuses root unless told; tests run as root in CI.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# mpirun_start OUTFILE NP PROGRAM...: an MPI job in the background; waits for NP "pid" lines.
mpirun_start() {
	out=$1
	np=$2
	shift 2
	# $MPIRUN_AS: words before mpirun (another user's identity, its environment).
	start "$out" ${MPIRUN_AS:-} mpirun --oversubscribe -np "$np" "$@"
	MPIRUN=$BG
	deadline=$(($(date +%s) + 60))
	# Open MPI forwards each rank's output as it reads it: two ranks' lines can come out run
	# together ("rank 0 pid 11rank 1 pid 12"), so the lines are counted wherever they are.
	while [ "$(rank_lines "$out" | wc -l)" -lt "$np" ]; do
		if [ "$(date +%s)" -ge "$deadline" ] || ! kill -0 "$MPIRUN" 2>/dev/null; then
			fail "MPI job did not start: $(tail -5 "$out")"
			return 1
		fi
		sleep 0.1
	done
}

# descendants PID: every process below PID (one a line), from /proc/PID/task/*/children: the
# tree of a process this test started, never a sweep over /proc by name.
descendants() {
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		echo "$c"
		descendants "$c"
	done
}

# rank_lines OUTFILE: every "rank R pid P" the ranks printed, one a line, wherever it was.
rank_lines() {
	grep -o 'rank [0-9][0-9]* pid [0-9][0-9]*' "$1" 2>/dev/null
}

# rank_pid OUTFILE RANK: the pid a "rank R pid P" line reported.
rank_pid() {
	rank_lines "$1" | sed -n "s/^rank $2 pid \([0-9]*\)$/\1/p"
}

# expect_untraced NAME PID: the process is not traced and not in a tracing stop. One that
# exited between the caller's look and this one (its status unreadable) is gone, not traced.
expect_untraced() {
	status=$(cat "/proc/$2/status" 2>/dev/null)
	tracer=$(printf '%s\n' "$status" | sed -n 's/^TracerPid:[[:space:]]*//p')
	state=$(printf '%s\n' "$status" | sed -n 's/^State:[[:space:]]*\(.\).*/\1/p')
	if [ -z "$status" ] && [ ! -e "/proc/$2" ]; then
		ok
	elif [ "$tracer" = 0 ] && [ "$state" != t ]; then
		ok
	else
		fail "$1: pid $2 left traced (TracerPid $tracer, state $state)"
	fi
}

ok() { PASSED=$((PASSED + 1)); }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $*" >&2; }
# skip REASON: a check, or the group of checks REASON names, not run. Never a pass: counted
# apart, and under CI=true (where everything a check needs is installed and the tests run as
# root) a failure.
skip() {
	if [ "${CI:-}" = true ]; then
		fail "$1 (skipped under CI=true, where nothing may be skipped)"
		return
	fi
	SKIPPED=$((SKIPPED + 1))
	echo "SKIP: $1" >&2
}

# run CMD...: runs with a hard timeout (RUN_TIMEOUT seconds, default 120), leaves $OUT, $ERR
# (file contents) and $RC.
run() {
	timeout "${RUN_TIMEOUT:-120}" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

# later NAME SECONDS CMD...: `run` in the background with a hard timeout of SECONDS, for checks
# that mostly wait (a fault at a fixed time, a confirmation window): at most $WIDTH (default 2)
# at a time, the next started when one ends. `collect NAME` waits for it and leaves $OUT, $ERR
# and $RC as `run` does. NAME: letters, digits and _; its files are $TMP/NAME.later.*.
WIDTH=${WIDTH:-2}
LATER="" # the PIDs (timeout's) of the later runs not yet collected
later() {
	name=$1 limit=$2
	shift 2
	while [ "$(later_running | wc -w)" -ge "$WIDTH" ]; do sleep 0.2; done
	timeout "$limit" "$@" >"$TMP/$name.later.out" 2>"$TMP/$name.later.err" &
	remember "$!"
	eval "LATER_$name=$! LATER_END_$name=$(($(date +%s) + limit + 30))"
	LATER="$LATER $!"
	STARTED="$STARTED $!"
}
# later_running: those of $LATER still running.
later_running() {
	for p in $LATER; do proc_ours "$p" && echo "$p"; done
}
collect() {
	eval "pid=\${LATER_$1:-} deadline=\${LATER_END_$1:-0}"
	if [ -z "$pid" ]; then
		RC=255 OUT="" ERR="collect $1: never started"
		return
	fi
	# timeout ends it in time; the deadline only guards against timeout itself stuck.
	reap "$pid" $((deadline - $(date +%s)))
	RC=$REAP_RC
	LATER=$(printf '%s\n' $LATER | grep -vx "$pid" | tr '\n' ' ')
	started_forget "$pid"
	OUT=$(cat "$TMP/$1.later.out")
	ERR=$(cat "$TMP/$1.later.err")
}

# psrun_later NAME SECONDS [ENV=VALUE...] -- [PARASTACK-RUN-OPTIONS...] -- LAUNCH...: a job under
# `parastack run`, its report $TMP/NAME.json, in the background as `later` runs it (SECONDS its
# hard timeout). psrun_collect NAME waits for it: $RC, $OUT, $ERR as `run` leaves them, and
# $REPORT. psrun: both, at once. Every file's own helper (prun, crun, pyrun) is this one with
# its file's defaults.
psrun_later() {
	name=$1 limit=$2
	shift 2
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	# shellcheck disable=SC2086
	later "$name" "$limit" env $envs "$PARASTACK" run --report "$TMP/$name.json" "$@"
}
psrun_collect() {
	collect "$1"
	REPORT=$TMP/$1.json
}
psrun() {
	psrun_later "$@"
	psrun_collect "$1"
}

# expect_layer_in NAME NP PATTERN: NP ranks said they have the recording layer (layercheck's
# line, "layercheck rank R of N: layer=1 ..." followed by PATTERN) in $OUT; counted as
# occurrences, not lines: a launcher may forward two ranks' lines run together.
expect_layer_in() {
	got=$(printf '%s\n' "$OUT" | grep -oE "layercheck rank [0-9]+ of [0-9]+: layer=1 $3" | wc -l)
	if [ "$got" -eq "$2" ]; then ok; else fail "$1: $got of $2 ranks had the layer: $OUT $ERR"; fi
}

# expect_status NAME WANT: the last run exited with WANT.
expect_status() {
	if [ "$RC" -eq "$2" ]; then ok; else fail "$1: exit status $RC, want $2 (stderr: $ERR)"; fi
}

# expect_error NAME WANT PATTERN: exit WANT, exactly one line on stderr matching PATTERN.
expect_error() {
	lines=$(printf '%s\n' "$ERR" | grep -c .)
	if [ "$RC" -eq "$2" ] && [ "$lines" -eq 1 ] && printf '%s' "$ERR" | grep -q -- "$3"; then
		ok
	else
		fail "$1: exit $RC (want $2), stderr lines $lines, stderr: $ERR (want /$3/)"
	fi
}

# expect_json NAME JQ-EXPR: the last stdout satisfies a jq boolean expression.
expect_json() {
	if printf '%s' "$OUT" | jq -e "$2" >/dev/null 2>&1; then ok; else fail "$1: jq '$2' false on: $OUT"; fi
}

# wait_report FILTER SECONDS: until $REPORT exists and FILTER holds on it (a monitor that
# watches on prints its text report first and writes the JSON file after it, or once the cores
# are written).
wait_report() {
	deadline=$(($(date +%s) + $2))
	until jq -e "$1" "$REPORT" >/dev/null 2>&1; do
		if [ "$(date +%s)" -ge "$deadline" ]; then fail "no report with $1 in $REPORT"; return 1; fi
		sleep 0.2
	done
}
# jreport NAME EXPR: the JSON report in $REPORT satisfies a jq expression.
jreport() {
	if jq -e "$2" "$REPORT" >/dev/null 2>&1; then ok; else fail "$1: jq '$2' false on $(jq -c '{verdict,hang_type,faulty_ranks,groups,diagnosis}' "$REPORT" 2>&1 | head -c 1500)"; fi
}

# expect_trainer_shape NAME TEXT: a training job's report ($REPORT, and its text in TEXT: the
# job's output) read as a trainer reads it (issue 67): every stack group at its ranks' Python
# call site; gloo the runtime named; no line of the groups, the tree or the diagnosis over 200
# bytes; no sentence of parastack's about MPI (the job has none).
expect_trainer_shape() {
	jreport "$1: every stack group at a Python call site" '[.groups[] | .site // "" | test("[.]py:[0-9]+[)]$")] | all'
	jreport "$1: gloo, the runtime the report names" '.runtime == "gloo"'
	long=$(printf '%s\n' "$2" | awk '/^  stack groups:/ { on = 1 } /^  rank [0-9]+ on / || /^  model:/ { on = 0 }
		on && length($0) > 200 { print length($0) ": " $0 }')
	if [ -n "$long" ]; then fail "$1: lines over 200 bytes: $long"; else ok; fi
	said=$(printf '%s\n' "$2" | sed -n '/^parastack: /p; /HANG DETECTED/,/^  action:/p' | grep -w "MPI")
	if [ -n "$said" ]; then fail "$1: a sentence about MPI: $said"; else ok; fi
}

# expect_grep NAME PATTERN TEXT
expect_grep() {
	if printf '%s' "$3" | grep -q -- "$2"; then ok; else fail "$1: /$2/ not in: $3"; fi
}

# man_keys_missing PAGE KEY...: the keys (space-separated, each with a space before it) that are
# not a bold word of the man page PAGE - \fBkey\fR, or a .B line of it alone: the whole word, so
# that `e`, `id` or `at` is not found inside another word.
man_keys_missing() {
	_page=$1
	shift
	for _k in "$@"; do
		grep -qF "\\fB$_k\\fR" "$_page" || grep -qxF ".B $_k" "$_page" || printf ' %s' "$_k"
	done
}

# json_keys FILE: every key of the JSON in FILE, at any depth, once each.
json_keys() {
	jq -r '[paths | map(select(type == "string")) | last | select(. != null)] | unique | .[]' "$1"
}

# expect_keys_documented NAME JSON-FILE [PAGE]: every key of the JSON (at any depth) is a bold word
# of parastack(1) (or PAGE).
expect_keys_documented() {
	# shellcheck disable=SC2046
	missing=$(man_keys_missing "${3:-$(dirname "$0")/../../man/parastack.1}" $(json_keys "$2"))
	if [ -n "$(json_keys "$2")" ] && [ -z "$missing" ]; then ok; else fail "$1: keys not in parastack(1) as a bold word:${missing:- (no keys in $2)}"; fi
}

# expect_reports_valid: every JSON report this file's runs wrote (under $TMP) validates against
# the report's schema (docs/report.schema.json): one check, when there was a report.
expect_reports_valid() {
	here=$(dirname "$0")
	# No JSON written, or a copy of this library outside the tree (test-runner's fakes): nothing.
	[ -d "$TMP" ] && [ -r "$here/report-schema.py" ] && [ -n "$(find "$TMP" -name '*.json' -print -quit 2>/dev/null)" ] ||
		return 0
	if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
		skip "the reports against docs/report.schema.json: python3-jsonschema is not installed (scripts/install-deps --test)"
		return
	fi
	got=$(/usr/bin/python3 "$here/report-schema.py" "$here/../../docs/report.schema.json" "$TMP" 2>&1)
	case $got in
	"checked 0") ;;
	"checked "*) ok ;;
	*) fail "the reports against docs/report.schema.json: $got" ;;
	esac
}

finish() {
	expect_reports_valid
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
}

# expect_agree NAME: the report's text (the job's output, $ERR) and its JSON ($REPORT) say the
# same: the headline's hang type, the faulty ranks line (as ranges), and one line per culprit
# with its rank and its evidence in words ("certain", "likely", "from the stacks alone"), and
# no culprit line the JSON does not have.
expect_agree() {
	want_type=$(jq -r '.hang_type' "$REPORT" 2>/dev/null)
	want_ranks=$(jq -r '[.faulty_ranks[]] | reduce .[] as $r ([];
		if length > 0 and (.[-1][1] + 1) == $r then .[-1][1] = $r else . + [[$r, $r]] end)
		| map(if .[0] == .[1] then "\(.[0])" else "\(.[0])-\(.[1])" end) | join(",")' "$REPORT" 2>/dev/null)
	# No culprit: "unknown — …" where the records leave only a rank that could not be read.
	[ -n "$want_ranks" ] || want_ranks=$(jq -r 'if (.wait_for.unknown | length) > 0 then "unknown — "
		else "none in application code" end' "$REPORT" 2>/dev/null)
	problems=""
	printf '%s\n' "$ERR" | grep -q -- "HANG DETECTED at .* — $want_type error" || problems="$problems; headline not '$want_type'"
	printf '%s\n' "$ERR" | grep -q -x -- "  faulty rank(s): $want_ranks.*" ||
		problems="$problems; no line 'faulty rank(s): $want_ranks'"
	# The text prints at most 8 culprits (then "… and N more"); the JSON has them all.
	lines=$(jq -r '(.culprits | if length > 9 then .[0:8] else . end)[] |
		"    rank \(.rank), \(if .evidence == "stacks" then "from the stacks alone" else .evidence end): "' \
		"$REPORT" 2>/dev/null)
	n=0
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		n=$((n + 1))
		printf '%s\n' "$ERR" | grep -q -F -- "$l" || problems="$problems; no line '$l'"
	done <<-LINES
	$lines
	LINES
	have=$(printf '%s\n' "$ERR" | grep -c -E '^    rank [0-9]+, (certain|likely|from the stacks alone): ')
	[ "$have" -eq "$n" ] || problems="$problems; $have culprit lines in the text, $n in the JSON"
	if [ -z "$problems" ]; then ok; else fail "$1: text and JSON disagree$problems"; fi
}
