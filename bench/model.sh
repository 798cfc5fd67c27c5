# SPDX-License-Identifier: BSD-3-Clause
# model.sh — the models over synthetic hours (bench/model_eval): the window rules of the model
# of S, the stall model and its bootstrap, afresh and from a remembered run (--prior). Writes
# results/model.md. BENCH=full: 1000 h and 2000 seeds instead of 300 and 300.
. "$(dirname "$0")/lib.sh"
{
	header "The model and the confirmation window over synthetic hours"
	cat <<EOF
\`bench/model_eval\` replays the detector over synthetic traces (tests/lib/tracegen): healthy jobs
with short phases (~1 s computing, short collectives) and long phases (~12 s computing, ~7 s with
every rank in MPI), and hangs from 20 s to 10 min into short- and long-phase jobs, for each set of the
window rules of stats/detector.h (a: runs-test windows coded against the model's mean; b: a
verdict once the latest 2 windows passed; c: 2 windows instead of 4 after a doubling). A false
suspicion costs one line in the job's output; a false confirmation (the suspicion run outlasting
the 60 s window, with only the model's view to dismiss it: an upper bound, since stacks that
move dismiss earlier) would end a healthy job. The last tables: the second detector, the stall
model (stats/stall.c), over synthetic jobs that live in MPI (S always 0, where the model of S is
blind), with short standstills and with 2-10 s collective phases; its hangs 8 and 20 s in are
judged by its bootstrap (fewer than 64 samples of history, at the stricter bound of stall.h).

EOF
	"$BUILD/bench/model_eval" --hours "$(pick 300 1000)" --seeds "$(pick 300 2000)"
	cat <<EOF

## The same, every run's models started from a remembered healthy run (--memory)

Each job's models start from what a healthy 10-minute run of the same job (another seed) taught
them (\`model_eval --prior 10\`; stats/prior.h): the first half minute, where a fresh model has
no history, is judged from the program's own past. The rows to read against the tables above:
the hang 8 s in, and the false suspicions.

EOF
	"$BUILD/bench/model_eval" --hours "$(pick 300 1000)" --seeds "$(pick 300 2000)" --prior 10
} >"$RESULTS/model.md"
say "wrote $RESULTS/model.md"
