# SPDX-License-Identifier: BSD-3-Clause
# scale.sh — what a sample costs as the job grows, on the Slurm test cluster with 8 nodes
# (tests/cluster/slurm-cluster.sh: munged, slurmctld, 8 slurmd "nodes" on this machine, started
# here and stopped at the end). Each job runs the phases application (fixed wall time, whatever
# the rank count) under parastack-sbatch; the monitors' report gives, per sample: ranks stopped,
# messages between monitors, and the leader's time for the whole sample. By design all three
# depend on the set size C and the nodes it spans, not on the job size (needs root for slurmd;
# skipped otherwise).
#
# Then what a hang report costs as the job grows past what this machine holds: simulated jobs of
# 1,000, 10,000 and 100,000 ranks (bench/scale-sim.sh: 64 real monitor processes, real MPI
# messages between them in their tree, only the ranks synthetic), each case once (SCALE_SIM_RUNS
# runs in BENCH=full, the median), with report_s at each size over report_s at 10,000 of the
# same case from this same run. Writes results/scale.md and results/scale.svg.
. "$(dirname "$0")/lib.sh"
NODES=8
RANKS=${SCALE_RANKS:-$(pick "8 16 32" "8 16 32 64 128")}
SIM_RANKS=${SCALE_SIM_RANKS:-1000 10000 100000}
SIM_MONITORS=${SCALE_SIM_MONITORS:-64}
SIM_RUNS=${SCALE_SIM_RUNS:-$(pick 1 3)}
CLUSTER=$WORK/cluster
cpus=$(echo "$RANKS" | tr ' ' '\n' | sort -n | tail -n 1)
: >"$WORK/scale.tsv"
: >"$WORK/sim.tsv"

# Simulated: one line per run (ranks, case, then scale-sim's numbers), into sim.tsv.
sim_rows() {
	make --no-print-directory -C "$ROOT" B="$BUILD" "$BUILD/bench/parastack-monitor-sim" >/dev/null ||
		{ say "scale: the simulated monitor did not build; no simulated rows"; return; }
	for n in $SIM_RANKS; do
		for c in behind ring farm; do
			k=0
			while [ "$k" -lt "$SIM_RUNS" ]; do
				k=$((k + 1))
				say "scale: simulated $n ranks, $SIM_MONITORS monitors, case $c (run $k)"
				BUILD=$BUILD sh "$ROOT/bench/scale-sim.sh" --ranks "$n" --monitors "$SIM_MONITORS" --case "$c" |
					jq -r '[.ranks, .case, .verdict, (.faulty_ranks == .expected), .report_s,
						.leader_peak_rss_kb, .bytes_to_leader, .json_bytes, .text_lines] | @tsv' >>"$WORK/sim.tsv"
			done
		done
	done
}

# The simulated rows, one per (ranks, case): medians of the runs, and report_s over the
# median at 10,000 ranks of the same case.
sim_table() {
	sort -t "$(printf '\t')" -k2,2 -k1,1n -k5,5n "$WORK/sim.tsv" | awk -F'\t' '
	{ key = $1 "\t" $2; n[key]++; v[key, n[key]] = $0; order[key] = NR; keys[key] = 1 }
	END {
		for (key in keys) {
			split(v[key, int((n[key] + 1) / 2)], f, "\t")
			med[key] = f[5]; row[key] = v[key, int((n[key] + 1) / 2)]
			named[key] = 0
			for (i = 1; i <= n[key]; i++) { split(v[key, i], g, "\t"); named[key] += (g[4] == "true" && g[3] == "hang") }
		}
		for (key in keys) {
			split(row[key], f, "\t"); base = med[10000 "\t" f[2]]
			printf "%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\t%s\n", f[1], f[2], f[3], named[key], n[key], f[5],
				(base > 0 ? sprintf("%.2f", f[5] / base) : "-"), f[6], f[7], f[8], f[9]
		}
	}' | sort -t "$(printf '\t')" -k2,2 -k1,1n
}

sim_rows
if [ "$(id -u)" -ne 0 ]; then
	say "scale: the Slurm test cluster needs root; its rows are skipped"
	RANKS=""
fi
trap 'sh "$ROOT/tests/cluster/slurm-cluster.sh" stop "$CLUSTER"; bench_stop_all; rm -rf "$WORK"' EXIT
if [ -n "$RANKS" ]; then
	say "scale: starting the $NODES-node Slurm test cluster"
	if ! sh "$ROOT/tests/cluster/slurm-cluster.sh" start "$CLUSTER" $NODES $((cpus / NODES)); then
		say "scale: the Slurm test cluster did not start; its rows are skipped"
		RANKS=""
	fi
	export SLURM_CONF=$CLUSTER/slurm.conf
	chmod 755 "$WORK"
fi

for r in $RANKS; do
	cat >"$WORK/job-$r.sh" <<EOF
#!/bin/sh
#SBATCH -N $NODES
#SBATCH -n $r
#SBATCH -o $WORK/job-$r.out
mpirun --bind-to none --oversubscribe "$APPS/phases"
EOF
	say "scale: $r ranks on $NODES nodes"
	id=$(cd "$WORK" && env PS_COMPUTE=0.3 PS_COMM=0.2 PS_ITERS="$(pick 40 80)" \
		"$BUILD/parastack-sbatch" --report "$WORK/scale-$r.json" "$WORK/job-$r.sh" 2>&1 |
		sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p')
	if [ -z "$id" ]; then
		say "scale: $r ranks: not submitted"
		continue
	fi
	deadline=$(($(date +%s) + 300))
	while :; do
		state=$("$BUILD/tests/slurm_probe" job "$id" 2>/dev/null | sed -n 's/^state //p')
		case $state in PENDING | RUNNING | SUSPENDED | "") ;; *) break ;; esac
		if [ "$(date +%s)" -ge "$deadline" ]; then
			scancel "$id"
			say "scale: $r ranks: job $id still $state after 300 s; cancelled"
			break
		fi
		sleep 1
	done
	if [ "$(jq -r '.model.sampling.samples // 0' "$WORK/scale-$r.json" 2>/dev/null)" -gt 0 ]; then
		jq -r --arg r "$r" '[$r, .verdict, (.model.sampling | .monitors, .samples, .ranks_per_sample,
			.messages_per_sample, .mean_ms, .max_ms)] | @tsv' "$WORK/scale-$r.json" >>"$WORK/scale.tsv"
	else
		say "scale: $r ranks: no samples in the report; the job's output ends:"
		tail -n 5 "$WORK/job-$r.out" >&2
	fi
done

{
	header "Scale: the cost of a sample, and of a hang report, as the job grows"
	cat <<EOF
On the Slurm test cluster: $NODES slurmd nodes on this one machine (each its own host name), one
monitor per node, jobs of the phases application under \`parastack-sbatch\` at the defaults
(C = 10: two disjoint sets of 10 ranks, alternating). Per sample, from the report's
\`model.sampling\`: ranks stopped, messages between monitors (the leader's command to each
monitor that holds a sampled rank, and its reply), and the leader's wall time for the whole
sample (commands, the ptrace stops on every node, replies). The nodes share 2 cores here, so
absolute times include waiting for a CPU among up to $cpus oversubscribed ranks; the point is the
shape: nothing grows with the job size once the job has 2C ranks.

| ranks | monitors | verdict | samples | ranks stopped / sample | messages / sample | mean ms / sample | max ms |
|---|---|---|---|---|---|---|---|
EOF
	awk -F'\t' '{ printf "| %s | %s | %s | %s | %.1f | %.1f | %.2f | %.1f |\n", $1, $3, $2, $4, $5, $6, $7, $8 }' "$WORK/scale.tsv"
	echo
	if [ -s "$WORK/scale.tsv" ]; then
		echo "![cost per sample against ranks](scale.svg)"
	else
		echo "(Not measured in this run: the Slurm test cluster needs root.)"
	fi
	cat <<EOF

## The hang report of a large job (simulated)

\`bench/scale-sim.sh --ranks N --monitors $SIM_MONITORS --case CASE\`: $SIM_MONITORS real monitor processes
(the installed monitor's code from the sample on: both models, the confirmation, the monitors'
tree at its default fan-out of 32, the diagnosis, the report) under \`mpirun --oversubscribe\` on
this machine's 2 cores, exchanging real MPI messages; only the ranks are synthetic
(tests/sim/source_sim.c: scripted stacks, fingerprints and recording-layer records). Cases:
\`behind\` (rank ⌊0.77777·N⌋ never enters the Allreduce the others wait in), \`ring\` (a deadlock
through the 1,000 ranks of a sub-communicator, the rest in an Allreduce on WORLD), \`farm\` (rank 0
waits on MPI_ANY_SOURCE, worker ⌊0.42424·N⌋ computes forever). report_s: from the decision
to the report written, five snapshot gaps of up to 1 s included; growth: report_s over the
same case's at 10,000 ranks in this run. Each monitor reduces its ranks to classes
(hang/snapclass.h) and merges its children's, so the leader receives classes, not ranks.
Runs per row: $SIM_RUNS (the median shown).

| ranks | case | verdict | scripted culprits named | report_s | growth vs 10 k | leader peak RSS KB | bytes to leader | JSON bytes | text lines |
|---|---|---|---|---|---|---|---|---|---|
EOF
	sim_table | awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
} >"$RESULTS/scale.md"

if [ -s "$WORK/scale.tsv" ]; then
	{
		svg_preamble "$RESULTS/scale.svg" "Cost per sample against job size ($NODES nodes, C = 10)"
		cat <<EOF
set xlabel 'ranks in the job'
set logscale x 2
set ylabel 'messages / ranks stopped per sample'
set y2label 'leader ms per sample'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set key top left
set grid
plot '$WORK/scale.tsv' using 1:6 with linespoints lw 2 title 'messages per sample', \
     '' using 1:5 with linespoints lw 2 title 'ranks stopped per sample', \
     '' using 1:7 axes x1y2 with linespoints lw 2 dt 2 title 'ms per sample (right axis)'
EOF
	} | gnuplot
fi
say "scale: wrote $RESULTS/scale.md"
