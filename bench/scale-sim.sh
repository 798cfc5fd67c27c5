#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scale-sim.sh — one simulated large job watched by real monitors (issue 39): M monitor
# processes of the installed monitor's code under `mpirun --oversubscribe`, real MPI messages
# between them, only the ranks synthetic (tests/sim/source_sim.c: scripted stacks, progress
# fingerprints and records for N ranks, in blocks over the monitors). The job hangs 30 s in
# (PS_SIM_HANG_S) in the way CASE says; the monitors detect it, confirm it (--confirm 10) and
# report it.
#
#   bench/scale-sim.sh --ranks N --monitors M --case behind|ring|farm|healthy [--fanout F]
#                      [--stop-monitor K] [--keep DIR]
#
# Prints one JSON line: ranks, monitors, case, verdict, faulty_ranks (as ranges), expected (the
# scripted culprits, as ranges), report_s (from the decision to the report file written),
# leader_peak_rss_kb, bytes_to_leader (the JSON the other monitors sent the leader for the
# report), json_bytes, text_lines (the text report in the job's output), wall_s (the whole run).
# --fanout F: the monitors' tree (default the monitor's, 32). --stop-monitor K: monitor K is
# stopped (SIGSTOP) when the hang is suspected and let go after the report, as a wedged node
# would be: the report must come anyway, naming it. --keep DIR keeps the report, the trace and
# the output there. BUILD is the build directory
# (make B=... $BUILD/bench/parastack-monitor-sim builds the simulated monitor).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${BUILD:-$ROOT/build}" && pwd)
SIM=$BUILD/bench/parastack-monitor-sim
ranks="" monitors="" kind="" keep="" fanout="" stop=""
usage="usage: bench/scale-sim.sh --ranks N --monitors M --case behind|ring|farm|healthy [--fanout F] [--stop-monitor K] [--keep DIR]"
while [ $# -gt 0 ]; do
	case "$1" in
	--ranks) ranks=${2:-}; shift 2 ;;
	--monitors) monitors=${2:-}; shift 2 ;;
	--case) kind=${2:-}; shift 2 ;;
	--keep) keep=${2:-}; shift 2 ;;
	--fanout) fanout=${2:-}; shift 2 ;;
	--stop-monitor) stop=${2:-}; shift 2 ;;
	-h | --help) echo "$usage"; exit 0 ;;
	*) echo "scale-sim: unknown argument '$1'; $usage" >&2; exit 2 ;;
	esac
done
case "$ranks$monitors" in '' | *[!0-9]*) echo "scale-sim: --ranks and --monitors want whole numbers; $usage" >&2; exit 2 ;; esac
case "$kind" in behind | ring | farm | healthy) ;; *) echo "scale-sim: --case '$kind' is none of behind, ring, farm, healthy" >&2; exit 2 ;; esac
[ "$monitors" -ge 1 ] && [ "$ranks" -ge "$((2 * monitors))" ] ||
	{ echo "scale-sim: want at least 1 monitor and 2 ranks per monitor" >&2; exit 2; }
[ -x "$SIM" ] || { echo "scale-sim: no $SIM (make B=$BUILD $SIM)" >&2; exit 2; }

WORK=${keep:-$(mktemp -d "${TMPDIR:-/tmp}/parastack-scale.XXXXXX")}
mkdir -p "$WORK"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
HANG_S=${PS_SIM_HANG_S:-30}
# The job's launcher, as far as the monitors can tell: a process that lives as long as the job.
sleep $((HANG_S + 900)) &
launcher=$!
cleanup() {
	[ -n "${stopped:-}" ] && kill -CONT "$stopped" 2>/dev/null
	kill "$launcher" 2>/dev/null
	wait "$launcher" 2>/dev/null
	[ -n "$keep" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The culprits the script plants (source_sim.c), as ranges.
case "$kind" in
behind) expected=$(awk -v n="$ranks" 'BEGIN { printf "%d", int(0.77777 * n) }') ;;
ring) r=$((ranks / 2 < 1000 ? ranks / 2 : 1000)); expected="0-$((r - 1))" ;;
farm) expected=$(awk -v n="$ranks" 'BEGIN { printf "%d", int(0.42424 * n) }') ;;
healthy) expected="" ;;
esac

start=$(date +%s.%N)
# A healthy job is watched for the hang time and one minute more; a hung one to its report.
timeout $((HANG_S + 600)) mpirun --oversubscribe --bind-to none -np "$monitors" \
	-x PS_SIM_RANKS="$ranks" -x PS_SIM_CASE="$kind" -x PS_SIM_HANG_S="$HANG_S" \
	-x PS_SIM_PIDDIR="$WORK" "$SIM" --launcher-pid "$launcher" --confirm 10 ${fanout:+--fanout "$fanout"} \
	--report "$WORK/report.json" --trace "$WORK/run.trace" >"$WORK/out" 2>"$WORK/err" </dev/null &
job=$!
stopped=""
if [ -n "$stop" ]; then
	# The monitor's own PID (it wrote it): stopped at the suspicion, let go after the report.
	until grep -q "suspected hang" "$WORK/err" 2>/dev/null || ! kill -0 "$job" 2>/dev/null; do sleep 0.2; done
	stopped=$(cat "$WORK/monitor.$stop.pid" 2>/dev/null)
	[ -n "$stopped" ] && kill -STOP "$stopped"
	until [ -s "$WORK/report.json" ] || ! kill -0 "$job" 2>/dev/null; do sleep 0.2; done
	[ -n "$stopped" ] && kill -CONT "$stopped"
fi
if [ "$kind" = healthy ]; then
	sleep $((HANG_S + 60))
	kill "$launcher" 2>/dev/null # the job ends: the monitors stop
fi
wait "$job"
end=$(date +%s.%N)

rep=$WORK/report.json
json_bytes=$(stat -c %s "$rep" 2>/dev/null || echo 0)
written=$(stat -c %.Y "$rep" 2>/dev/null || echo 0)
# The text report: from its headline to its action line.
text_lines=$(awk '/HANG DETECTED/ { on = 1 } on { n++ } on && /^  action:/ { on = 0 } END { print n + 0 }' "$WORK/err")
jq -c --argjson ranks "$ranks" --argjson monitors "$monitors" --arg case "$kind" --arg expected "$expected" \
	--argjson json_bytes "$json_bytes" --argjson text_lines "$text_lines" --argjson written "$written" \
	--argjson wall "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')" '
	def ranges: reduce .[] as $r ([]; if length > 0 and (.[-1][1] + 1) == $r then .[-1][1] = $r else . + [[$r, $r]] end)
		| map(if .[0] == .[1] then "\(.[0])" else "\(.[0])-\(.[1])" end) | join(",");
	{ranks: $ranks, monitors: $monitors, case: $case, verdict: (.verdict // "none"),
	 faulty_ranks: ((.faulty_ranks // []) | ranges), expected: $expected,
	 report_s: (if .report_cost then (($written - .report_cost.decided_at) * 100 | round / 100) else null end),
	 leader_peak_rss_kb: (.report_cost.leader_peak_rss_kb // .model.sampling.leader_peak_rss_kb),
	 bytes_to_leader: (.report_cost.bytes_to_leader // 0), json_bytes: $json_bytes, text_lines: $text_lines,
	 wall_s: ($wall * 10 | round / 10),
	 missing_monitors: ([.missing_monitors[]?.monitor] | map(tostring) | join(","))}' "$rep" 2>/dev/null ||
	jq -nc --argjson ranks "$ranks" --argjson monitors "$monitors" --arg case "$kind" --arg expected "$expected" \
		'{ranks: $ranks, monitors: $monitors, case: $case, verdict: "no report", faulty_ranks: "", expected: $expected}'
