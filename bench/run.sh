# SPDX-License-Identifier: BSD-3-Clause
# run.sh — `make bench`: every measurement in turn, each writing its tables (and plots) to
# bench/results/, then the index results/README.md with the date and the machine. BENCH=quick
# (default, about 45 minutes on 2 cores) or BENCH=full (the longer campaign: more runs, pairs,
# seeds and ranks; hours). Usage: sh bench/run.sh BUILD_DIR
BUILD=${1:-build}
export BUILD
. "$(dirname "$0")/lib.sh"
started=$(date +%s)

section() {
	t0=$(date +%s)
	say "== $1"
	sh "$ROOT/bench/$1.sh" || say "$1 ended with status $?"
	echo "| $1 | $(($(date +%s) - t0)) s |" >>"$WORK/times.md"
}

: >"$WORK/times.md"
t0=$(date +%s)
say "== sample cost"
{
	header "Sample cost"
	"$BUILD/bench/sample_cost" "$BUILD/tests/callchain-O0" "$(pick 2000 20000)" /usr/bin/python3
} >"$RESULTS/sample-cost.md"
echo "| sample cost | $(($(date +%s) - t0)) s |" >>"$WORK/times.md"
t0=$(date +%s)
say "== model (synthetic hours)"
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
blind), with short standstills and with 2-10 s collective phases.

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
echo "| model | $(($(date +%s) - t0)) s |" >>"$WORK/times.md"
section overhead
section detection
section livesinmpi
section culprits
section wrapper-exec
section pyversions
section traces
section scale
section memory
section record
section training

{
	header "parastack benchmark results"
	cat <<EOF
The evidence behind parastack's claims (design.md §6), measured the way the ParaStack paper
(SC'17) measured them, on this machine. Regenerate with \`make bench\` (quick) or
\`make bench BENCH=full\`; see [../README.md](../README.md) for what each script does.

| result | what it shows | paper |
|---|---|---|
| [sample-cost.md](sample-cost.md) | how long a sampled rank is stopped, against the prototype's way, eu-stack and gdb | §3.3 |
| [model.md](model.md) | the window rules and the confirmation window over 600 synthetic healthy hours, and hang delays | §7.1 |
| [overhead.md](overhead.md) | application slowdown at I = 100, 400 ms and the default, test app and LAMMPS | Tables 3-5 |
| [detection.md](detection.md) | AC_h, AC_f, PR_f, response delay, live false alarms; LAMMPS faulted unmodified | Tables 6-8, 10, Fig. 9 |
| [livesinmpi.md](livesinmpi.md) | hangs in jobs that live in MPI (8 and 16 ranks on 2 cores): which detector suspected, delays, the sampling achieved; their healthy runs | — |
| [culprits.md](culprits.md) | culprit accuracy of communication hangs: 4 applications, 7 kinds of fault injected from outside, with and without the layer: AC_f, PR_f, wrong certain claims | — |
| [wrapper-exec.md](wrapper-exec.md) | ranks started through a wrapper script whose \`exec "$@"\` comes late on one rank (NPB FT's shape, 16 ranks, a skipped Alltoall): the skipping rank named, every rank sampled, before and after issue 72 | — |
| [python-versions.md](python-versions.md) | the sample's cost for a Python rank on every CPython 3.8-3.13 (pyenv's, Debian's 3.11) beside a C rank in the same run, 5 runs (issue 66) | §3.3 |
| [false-alarms.md](false-alarms.md) | healthy traces replayed over thousands of seeds | §7.1 II |
| [timeouts.md](timeouts.md) | fixed timeouts (Table 1 settings) and \`mpirun --timeout\` beside ParaStack | Tables 1, 9 |
| [scale.md](scale.md) | cost and messages per sample as the job grows, 8-node Slurm cluster; a hang report's time, leader memory and bytes at 1 k, 10 k and 100 k simulated ranks | §3.3 |
| [memory.md](memory.md) | the monitor's peak memory at 16 to 256 ranks on one node | — |
| [record.md](record.md) | the recording layer: ns per MPI call, application overhead, culprits named with and without it | — |
| [training.md](training.md) | torch.distributed (gloo) training jobs under mpirun and torchrun's layout: healthy runs with a 30-s checkpoint pause, a spin, a lost dist.recv and a SIGSTOP, delays against gloo's 30-min timeout | — |

Plots: [detection-delays.svg](detection-delays.svg), [scale.svg](scale.svg),
[example-stencil-spin.svg](example-stencil-spin.svg), [example-phases-spin.svg](example-phases-spin.svg).

Time per part of this run:

| part | seconds |
|---|---|
$(cat "$WORK/times.md")
| all | $(($(date +%s) - started)) |
EOF
} >"$RESULTS/README.md"
say "done in $(($(date +%s) - started)) s; results in $RESULTS"
