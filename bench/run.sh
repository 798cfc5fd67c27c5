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
section model
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
