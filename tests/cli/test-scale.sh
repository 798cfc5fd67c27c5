# SPDX-License-Identifier: BSD-3-Clause
# The monitors as a tree, on a simulated job (tests/sim/source_sim.c: real monitor processes and
# their real MPI messages, only the ranks scripted; bench/scale-sim.sh runs it): 2,000 ranks
# over 8 monitors with the fan-out forced to 2 (a tree four levels deep) give the scripted
# culprits and a text report within its bounds; a monitor stopped (SIGSTOP) at the suspicion is
# named in the job's output and the report, and the report still comes, from the others.
. "$(dirname "$0")/lib.sh"
SIM=$(dirname "$0")/../../bench/scale-sim.sh
export PS_SIM_HANG_S=20

# sim NAME ARGS...: one simulated job; its JSON line in $LINE, its output kept in $TMP/NAME.
sim() {
	name=$1
	shift
	RUN_TIMEOUT=400 run env BUILD="$BUILD" sh "$SIM" --ranks 2000 --monitors 8 --fanout 2 --keep "$TMP/$name" "$@"
	LINE=$OUT
}
# expect_line NAME JQ: the JSON line satisfies JQ.
expect_line() {
	if printf '%s' "$LINE" | jq -e "$2" >/dev/null 2>&1; then ok; else fail "$1: jq '$2' false on: $LINE"; fi
}

sim behind --case behind
expect_status "behind: ran" 0
expect_line "behind: the rank that never entered, alone" '.verdict == "hang" and .faulty_ranks == "1555" and .expected == "1555"'
expect_line "behind: the text report within its bounds" '.text_lines > 10 and .text_lines <= 200'
expect_line "behind: every monitor answered" '.missing_monitors == ""'

sim ring --case ring
expect_line "ring: the 1,000-rank cycle" '.verdict == "hang" and .faulty_ranks == "0-999"'
expect_line "ring: the text report within its bounds" '.text_lines <= 200'
expect_grep "ring: the cycle said once, by its ends" "deadlock: ranks 0 → 1 → 2 → 3 → … → 998 → 999 → 0" "$(cat "$TMP/ring/err")"

# Monitor 2 holds ranks 500-749; under fan-out 2 it asks monitors 5 and 6 (ranks 1250-1749).
sim stopped --case behind --stop-monitor 2
expect_line "stopped monitor: the hang still reported, its culprit found" '.verdict == "hang" and .faulty_ranks == "1555"'
expect_line "stopped monitor: named in the report" '.missing_monitors == "2"'
expect_grep "stopped monitor: named in the job's output" "the monitor on .* (monitor 2) did not answer" "$(cat "$TMP/stopped/err")"
expect_grep "stopped monitor: its ranks named in the text report" "its 250 rank(s) (500-749) are left out of this report" "$(cat "$TMP/stopped/err")"
# 2,000 ranks: a summary report (the faulty rank and one of each group in full), the others in
# the groups: every rank but the stopped monitor's 250, the 500 below it among them.
jreport_at() { if jq -e "$2" "$TMP/stopped/report.json" >/dev/null 2>&1; then ok; else fail "$1: jq '$2' false"; fi; }
jreport_at "stopped monitor: a summary report" '.ranks_detail == "summary" and .ranks_omitted > 0 and (.ranks | length) < 20'
jreport_at "stopped monitor: the groups hold the 1,750 ranks that answered" '([.groups[].count] | add) == 1750'
jreport_at "stopped monitor: its ranks named in the report" '.missing_monitors[0].ranks == "500-749" and .missing_monitors[0].count == 250'
finish
