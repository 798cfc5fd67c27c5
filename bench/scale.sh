# scale.sh — what a sample costs as the job grows, on the Slurm test cluster with 8 nodes
# (tests/cluster/slurm-cluster.sh: munged, slurmctld, 8 slurmd "nodes" on this machine, started
# here and stopped at the end). Each job runs the phases application (fixed wall time, whatever
# the rank count) under parastack-sbatch; the monitors' report gives, per sample: ranks stopped,
# messages between monitors, and the leader's time for the whole sample. By design all three
# depend on the set size C and the nodes it spans, not on the job size. Writes results/scale.md
# and results/scale.svg. Needs root (slurmd); skipped otherwise.
. "$(dirname "$0")/lib.sh"
NODES=8
RANKS=${SCALE_RANKS:-$(pick "8 16 32" "8 16 32 64 128")}
CLUSTER=$WORK/cluster

if [ "$(id -u)" -ne 0 ]; then
	say "scale: the Slurm test cluster needs root; skipped"
	exit 0
fi
trap 'sh "$ROOT/tests/cluster/slurm-cluster.sh" stop "$CLUSTER"; bench_stop_all; rm -rf "$WORK"' EXIT
say "scale: starting the $NODES-node Slurm test cluster"
cpus=$(echo "$RANKS" | tr ' ' '\n' | sort -n | tail -n 1)
if ! sh "$ROOT/tests/cluster/slurm-cluster.sh" start "$CLUSTER" $NODES $((cpus / NODES)); then
	say "scale: the Slurm test cluster did not start; skipped"
	exit 1
fi
export SLURM_CONF=$CLUSTER/slurm.conf
chmod 755 "$WORK"
: >"$WORK/scale.tsv"

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
	header "Scale: cost per sample as the job grows"
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
	echo "![cost per sample against ranks](scale.svg)"
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
