# SPDX-License-Identifier: BSD-3-Clause
# End-to-end tests of the straggler estimate (issue 69): the rank that holds a job back, named
# from the samples the watch takes anyway.
#   1. an 8-rank stencil whose rank 5 computes twice as long from 10 s on: the job runs to its
#      end (exit 0, verdict none); a line names rank 5 while it runs; the report's stragglers
#      is exactly rank 5, its wait shares and confidence, its keys in parastack(1); the
#      end-of-job summary names it;
#   2. the same program balanced: no rank named, no line.
# The stencil computes 40 ms of wall time per iteration (PS_COMPUTE_MS; the slow rank 80 ms), as
# ranks with a core each would, whatever else shares this machine's cores. Seeds fixed (rank 5
# is in the rank set sampled first, before its slowdown); one job at a time; hard timeouts. bench/stragglers.sh measures
# the rest (25 % slowdowns, 16 ranks, imbalance by design, DDP).
. "$(dirname "$0")/lib.sh"
APPS=$BUILD/tests/apps
MPIRUN="mpirun --oversubscribe --bind-to none -np 8"

# --- 1. rank 5 twice as slow from 10 s --------------------------------------------------------
psrun slow 300 PS_COMPUTE_MS=40 PS_FAULT=slow PS_FAULT_RANK=5 PS_FAULT_AFTER=10 PS_SLOW=2 PS_SECONDS=100 -- \
	--seed 1 -- $MPIRUN "$APPS/stencil"
expect_status "a slow rank: the job ends by itself" 0
jreport "a slow rank: no hang" '.verdict == "none"'
jreport "a slow rank: the report's stragglers is exactly rank 5" '[.stragglers[].rank] == [5]'
jreport "a slow rank: its shares and confidence" '.stragglers[0] | .others_wait > .own_wait and
	.confidence >= 0.999 and .since <= .flagged_at and (.until == null)'
expect_grep "a slow rank: the line while it runs" \
	"^parastack: rank 5 holds the job back since [0-9:]* UTC: the others wait for it [0-9]* % of the time, it waits [0-9]* %" "$ERR"
expect_grep "a slow rank: the summary" "^parastack: watched .*; rank 5 holds the job back since" "$ERR"
expect_keys_documented "a slow rank's report" "$REPORT"

# --- 2. balanced ------------------------------------------------------------------------------
psrun balanced 300 PS_COMPUTE_MS=40 PS_SECONDS=60 -- --seed 1 -- $MPIRUN "$APPS/stencil"
expect_status "balanced: the job ends by itself" 0
jreport "balanced: no straggler" '.verdict == "none" and .stragglers == []'
if printf '%s' "$ERR" | grep -q "holds the job back"; then fail "balanced: a straggler line: $ERR"; else ok; fi

finish
