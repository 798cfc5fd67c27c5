# memory.sh — the monitor's memory as the job grows: one node, N ranks of tests/mpi_states (rank
# 0 computes forever, the others wait in MPI: a hang from the first second) under `parastack run
# --on-hang=kill`; the report's sampling.leader_peak_rss_kb is the leader's peak resident set
# (it holds every rank's frames, symbolized, at report time), and the ranks' own memory beside
# it. Symbolizers are shared per executable, so the growth per rank is the frames, not debug
# information loaded once per rank. Writes results/memory.md.
. "$(dirname "$0")/lib.sh"
SIZES=${MEMORY_RANKS:-$(pick "16 64 256" "16 64 128 256 512")}
trap 'bench_stop_all; rm -rf "$WORK"' EXIT
: >"$WORK/memory.tsv"

for n in $SIZES; do
	say "memory: $n ranks"
	t0=$(now)
	bg "$WORK/run-$n.out" "$PARASTACK" run --seed 1 --confirm 10 --on-hang=kill \
		--report "$WORK/report-$n.json" -- \
		mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np "$n" "$BUILD/tests/mpi_states"
	finish_bg "$BG" 1800
	secs=$(echo "$(now) - $t0" | bc)
	if [ -s "$WORK/report-$n.json" ]; then
		jq -r --arg n "$n" --arg s "$secs" '[$n, .verdict, (.faulty_ranks | map(tostring) | join(",")),
			.model.sampling.leader_peak_rss_kb, (.ranks | length), $s] | @tsv' \
			"$WORK/report-$n.json" >>"$WORK/memory.tsv"
	else
		printf '%s\tno report (exit %s)\t-\t-\t-\t%s\n' "$n" "$RC" "$secs" >>"$WORK/memory.tsv"
	fi
done

{
	header "The monitor's memory as the job grows"
	cat <<'MD'
One node, N ranks of `tests/mpi_states` (rank 0 computes forever, the others wait in MPI: a
hang from the first second) under `parastack run --confirm 10 --on-hang=kill`. The leader's
peak resident set (getrusage, in the report's `model.sampling.leader_peak_rss_kb`) includes
every rank's frames of the six report snapshots, symbolized; symbolizers are shared per
executable and owner, so debug information is loaded once, not once per rank. On 2 cores the
ranks of large jobs mostly wait for a CPU, so the time to the report grows with N.

| ranks | verdict | faulty | leader peak RSS | per rank beyond the smallest job | ranks in report | run (s) |
|---:|---|---|---:|---:|---:|---:|
MD
	awk -F'\t' 'NR == 1 { n0 = $1; r0 = $4 }
		{ per = ($4 ~ /^[0-9]+$/ && $1 > n0) ? sprintf("%.1f KiB", ($4 - r0) / ($1 - n0)) : "-"
		  rss = $4 ~ /^[0-9]+$/ ? sprintf("%.1f MiB", $4 / 1024) : "-"
		  printf "| %s | %s | %s | %s | %s | %s | %.0f |\n", $1, $2, $3, rss, per, $5, $6 }' "$WORK/memory.tsv"
} >"$RESULTS/memory.md"
cat "$RESULTS/memory.md"
