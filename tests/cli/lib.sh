# lib.sh — helpers for the command-line tests: each test file sources this, calls `ok`/`fail`
# through the expect_* helpers, and ends with `finish`. Results are counted per file and
# summed by run-all.sh.
set -u
PASSED=0
FAILED=0
BUILD=${BUILD:-build}
PARASTACK=${PARASTACK:-$BUILD/parastack}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/parastack-cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

ok() { PASSED=$((PASSED + 1)); }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $*" >&2; }

# run CMD...: runs with a hard timeout, leaves $OUT, $ERR (file contents) and $RC.
run() {
	timeout 120 "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
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

# expect_grep NAME PATTERN TEXT
expect_grep() {
	if printf '%s' "$3" | grep -q -- "$2"; then ok; else fail "$1: /$2/ not in: $3"; fi
}

finish() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}
