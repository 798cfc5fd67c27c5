# run.sh — `make bench`: every measurement in turn, each writing its tables (and plots) to
# bench/results/, then the index results/README.md with the date and the machine. BENCH=quick
# (default, under 15 minutes on 2 cores) or BENCH=full (the longer campaign: more runs, pairs,
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
	"$BUILD/bench/sample_cost" "$BUILD/tests/callchain-O0" "$(pick 2000 20000)"
} >"$RESULTS/sample-cost.md"
echo "| sample cost | $(($(date +%s) - t0)) s |" >>"$WORK/times.md"
section overhead
section detection
section traces
section scale

{
	header "parastack benchmark results"
	cat <<EOF
The evidence behind parastack's claims (design.md §6), measured the way the ParaStack paper
(SC'17) measured them, on this machine. Regenerate with \`make bench\` (quick) or
\`make bench BENCH=full\`; see [../README.md](../README.md) for what each script does.

| result | what it shows | paper |
|---|---|---|
| [sample-cost.md](sample-cost.md) | how long a sampled rank is stopped, against the prototype's way, eu-stack and gdb | §3.3 |
| [overhead.md](overhead.md) | application slowdown at I = 100, 400 ms and the default, test app and LAMMPS | Tables 3-5 |
| [detection.md](detection.md) | AC_h, AC_f, PR_f, response delay, live false alarms; LAMMPS faulted unmodified | Tables 6-8, 10, Fig. 9 |
| [false-alarms.md](false-alarms.md) | healthy traces replayed over thousands of seeds | §7.1 II |
| [timeouts.md](timeouts.md) | fixed timeouts (Table 1 settings) and \`mpirun --timeout\` beside ParaStack | Tables 1, 9 |
| [scale.md](scale.md) | cost and messages per sample as the job grows, 8-node Slurm cluster | §3.3 |

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
