# SPDX-License-Identifier: BSD-3-Clause
# Every command has a man page that renders cleanly, and every option its --help lists is
# documented there (as git checks its own documentation).
. "$(dirname "$0")/lib.sh"
MAN=$(dirname "$0")/../../man

for page in "$MAN"/*.1 "$MAN"/*.8; do
	warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$page" 2>&1 >/dev/null)
	if [ -z "$warnings" ]; then ok; else fail "$page renders with warnings: $warnings"; fi
done

# The page as plain ASCII text.
rendered() {
	LC_ALL=C MANWIDTH=200 man -l "$1" 2>/dev/null | col -b
}

# help_options HELP-TEXT: every long option a --help names (its option lines, its usage and its
# prose alike), each once, as whole words: --report-dir is one, --report another.
help_options() {
	printf '%s\n' "$1" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}
# options_missing HELP-TEXT PAGE...: those of the help's options no PAGE has an entry for (.TP with
# the option in its tag: tests/cli/man-options.py), each with a space before it.
options_missing() {
	_help=$1
	shift
	_entries=$(/usr/bin/python3 "$(dirname "$0")/man-options.py" "$@") || { printf ' (man-options.py failed)'; return; }
	for _o in $(help_options "$_help"); do
		printf '%s\n' "$_entries" | grep -qxF -- "$_o" || printf ' %s' "$_o"
	done
}
# check_help PAGE CMD...: every option CMD's --help lists has an entry in PAGE or parastack(1).
check_help() {
	page=$1
	shift
	run "$@" --help
	expect_status "$* --help" 0
	missing=$(options_missing "$OUT" "$page" "$MAN/parastack.1")
	[ -n "$(help_options "$OUT")" ] || fail "'$* --help' lists no option"
	# One check per option, as it has always been counted.
	for opt in $(help_options "$OUT"); do
		case "$missing " in
		*" $opt "*) fail "$opt from '$* --help' has no entry in $page or parastack(1)" ;;
		*) ok ;;
		esac
	done
}

check_help "$MAN/parastack.1" "$PARASTACK"
check_help "$MAN/parastack.1" "$PARASTACK" replay
check_help "$MAN/parastack.1" "$PARASTACK" stack
check_help "$MAN/parastack.1" "$PARASTACK" run
check_help "$MAN/parastack.1" "$PARASTACK" attach
check_help "$MAN/parastack.1" "$PARASTACK" plot
check_help "$MAN/parastack.1" "$PARASTACK" view
check_help "$MAN/parastack-monitor.1" "$BUILD/parastack-monitor"
check_help "$MAN/parastack-sbatch.1" "$BUILD/parastack-sbatch"
check_help "$MAN/parastack-qsub.1" "$BUILD/parastack-qsub"
# --version everywhere, with the libraries built against; help COMMAND; a mistyped option gets
# the nearest one suggested, an option without its value says so.
for cmd in "$PARASTACK" "$PARASTACK run" "$PARASTACK attach" "$PARASTACK stack" "$PARASTACK replay" \
	"$PARASTACK plot" "$PARASTACK view" "$BUILD/parastack-monitor" "$BUILD/parastack-sbatch" "$BUILD/parastack-qsub"; do
	run $cmd --version
	expect_status "$cmd --version" 0
	expect_grep "$cmd --version names the libraries" "^parastack[a-z-]* [0-9.]* (built with Open MPI [0-9.]*, Slurm [0-9]*\.[0-9][0-9]\.[0-9]*)$" "$OUT"
done
run "$PARASTACK" help run
expect_status "help run" 0
expect_grep "help run is run --help" "^usage: parastack run" "$OUT"
run "$PARASTACK" run --alpa 0.01 -- true
expect_error "a mistyped option" 2 "unknown option '--alpa'; did you mean '--alpha'?"
run "$PARASTACK" run --confirm
expect_error "an option without its value" 2 "option '--confirm' needs a value"
run "$PARASTACK" stack --jsn 1
expect_error "stack: a mistyped option" 2 "unknown option '--jsn'; did you mean '--json'?"
run "$PARASTACK" run --bogus-thing -- true
expect_error "an unknown option, nothing near" 2 "unknown option '--bogus-thing'; see 'parastack run --help'"

# Site defaults: the file (PARASTACK_CONFIG here), then PARASTACK_OPTIONS, then the command line.
printf '# cluster-wide\n--alpha 2   # out of range on purpose\n' >"$TMP/site"
run env PARASTACK_CONFIG="$TMP/site" "$PARASTACK" run -- true
expect_error "the site's file is read" 2 "alpha"
printf 'alpha 2\n' >"$TMP/site-bad"
run env PARASTACK_CONFIG="$TMP/site-bad" "$PARASTACK" run -- true
expect_error "a word that is no option" 2 "$TMP/site-bad: 'alpha' is not an option"
run env PARASTACK_CONFIG=/nonexistent PARASTACK_OPTIONS="--report $TMP/env.json" "$PARASTACK" run -- true
if jq -e '.verdict == "unwatched"' "$TMP/env.json" >/dev/null 2>&1; then ok; else fail "PARASTACK_OPTIONS not applied"; fi
run env PARASTACK_CONFIG=/nonexistent PARASTACK_OPTIONS="--report $TMP/env2.json" "$PARASTACK" run --report "$TMP/cmd.json" -- true
if [ -e "$TMP/cmd.json" ] && [ ! -e "$TMP/env2.json" ]; then ok; else fail "the command line does not win over PARASTACK_OPTIONS"; fi

# The report's schema and the page, key by key: every key the schema names (at any depth) is a
# bold word of parastack(1) (\fBkey\fR, or a .B line of it alone), the whole word.
SCHEMA=$(dirname "$0")/../../docs/report.schema.json
keys=$(jq -r '[paths | select(length >= 2 and .[-2] == "properties") | .[-1]] | unique | .[]' "$SCHEMA")
if [ "$(printf '%s\n' "$keys" | wc -l)" -ge 60 ]; then ok; else fail "the schema names only $(printf '%s\n' "$keys" | wc -l) keys"; fi
# shellcheck disable=SC2086
missing=$(man_keys_missing "$MAN/parastack.1" $keys)
if [ -z "$missing" ]; then ok; else fail "report keys of docs/report.schema.json not in parastack(1) as a word:$missing"; fi

# The two checks fail where they should (issue 71): a page with an option's entry taken out, or
# a key no longer bold, is caught - by the whole word: --report-dir's entry does not hide a
# missing --report, \fBrank\fR does not document a key "ran".
sed 's/^\.BI \\-\\-report " FILE"/.BI \\-\\-planted " FILE"/' "$MAN/parastack.1" >"$TMP/planted.1"
run "$PARASTACK" run --help
got=$(options_missing "$OUT" "$TMP/planted.1")
if [ "$got" = " --report" ]; then ok; else fail "planted: run --help against a page without --report's entry: missing '$got', want ' --report'"; fi
sed -e 's/\\fBfaulty_ranks\\fR/faulty_ranks/g' -e 's/^\.B faulty_ranks$/faulty_ranks/' "$MAN/parastack.1" >"$TMP/planted-keys.1"
printf '{"faulty_ranks": [2], "rank": 1, "ran": 0}\n' >"$TMP/planted.json"
got=$(man_keys_missing "$TMP/planted-keys.1" $(json_keys "$TMP/planted.json"))
if [ "$got" = " faulty_ranks ran" ]; then ok; else fail "planted: keys against a page without faulty_ranks bold: missing '$got', want ' faulty_ranks ran'"; fi

# Every subcommand in the top-level help has a section in the page.
for sub in $("$PARASTACK" --help | sed -n 's/^  \([a-z]\{2,\}\) .*/\1/p'); do
	if rendered "$MAN/parastack.1" | grep -q "^   parastack $sub"; then ok; else fail "subcommand $sub has no section in parastack.1"; fi
done
finish
