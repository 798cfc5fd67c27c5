# SPDX-License-Identifier: BSD-3-Clause
# memory.sh — the monitor's memory as the job grows: one node, N ranks of tests/mpi_states (rank
# 0 computes forever, the others wait in MPI: a hang from the first second) under `parastack run
# --on-hang=kill`; the report's sampling.leader_peak_rss_kb is the leader's peak resident set
# (it holds every rank's frames, symbolized, at report time), and the ranks' own memory beside
# it. Symbolizers are shared per executable, so the growth per rank is the frames, not debug
# information loaded once per rank. Writes results/memory.md.
#   MEMORY_BASELINE=DIR  also run each size with the build in DIR (an earlier commit's), right
#                        after this one's, and give its private memory per rank beside
. "$(dirname "$0")/lib.sh"
SIZES=${MEMORY_RANKS:-$(pick "16 64 256" "16 64 128 256 512")}
BASELINE=${MEMORY_BASELINE:-}
trap 'bench_stop_all; rm -rf "$WORK"' EXIT
: >"$WORK/memory.tsv"
: >"$WORK/baseline.tsv"

# measure BUILD N TSV: one run of N ranks under that build's parastack, a line of TSV.
measure() {
	t0=$(now)
	bg "$WORK/run-$2.out" "$1/parastack" run --seed 1 --confirm 10 --on-hang=kill \
		--report "$WORK/report-$2.json" -- \
		mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np "$2" "$BUILD/tests/mpi_states"
	finish_bg "$BG" 1800
	secs=$(echo "$(now) - $t0" | bc)
	if [ -s "$WORK/report-$2.json" ]; then
		jq -r --arg n "$2" --arg s "$secs" '[$n, .verdict, (.faulty_ranks | map(tostring) | join(",")),
			.model.sampling.leader_peak_rss_kb, (.ranks | length), $s,
			.model.sampling.leader_rss_anon_kb] | @tsv' \
			"$WORK/report-$2.json" >>"$3"
	else
		printf '%s\tno report (exit %s)\t-\t-\t-\t%s\t-\n' "$2" "$RC" "$secs" >>"$3"
	fi
	rm -f "$WORK/report-$2.json"
}

for n in $SIZES; do
	say "memory: $n ranks"
	measure "$BUILD" "$n" "$WORK/memory.tsv"
	if [ -n "$BASELINE" ]; then
		say "memory: $n ranks, the baseline build ($BASELINE)"
		measure "$BASELINE" "$n" "$WORK/baseline.tsv"
	fi
done

{
	header "The monitor's memory as the job grows"
	cat <<'MD'
One node, N ranks of `tests/mpi_states` (rank 0 computes forever, the others wait in MPI: a
hang from the first second) under `parastack run --confirm 10 --on-hang=kill`, from the
report's `model.sampling`: the leader's peak resident set (`leader_peak_rss_kb`, getrusage)
and its private memory at report time (`leader_rss_anon_kb`, RssAnon), when it holds every
rank's frames of the six report snapshots, symbolized. The peak resident set counts the ranks'
libraries once per rank (libunwind maps each rank's modules for their unwind tables: pages of
the page cache, shared, not memory used); the private memory is what each watched rank costs
(its map of code and read-only mappings, its unwinder's module tables, its part of the report).
The files the ranks map (one entry per file: its path and the ranges of MPI's functions, from
one ELF scan), the unwind tables' pages (one cache per monitor, keyed by file and offset), the
stack copy and libunwind's address spaces are the monitor's, not each rank's; symbolizers are
shared per executable and owner: debug information is loaded once, not once per rank. On 2 cores the
ranks of large jobs mostly wait for a CPU, so the time to the report grows with N.

| ranks | verdict | faulty | peak RSS | private at report | private per rank beyond the smallest job | ranks in report | run (s) |
|---:|---|---|---:|---:|---:|---:|---:|
MD
	awk -F'\t' 'NR == 1 { n0 = $1; a0 = $7 }
		{ per = ($7 ~ /^[0-9]+$/ && $1 > n0) ? sprintf("%.0f KiB", ($7 - a0) / ($1 - n0)) : "-"
		  rss = $4 ~ /^[0-9]+$/ ? sprintf("%.1f MiB", $4 / 1024) : "-"
		  anon = $7 ~ /^[0-9]+$/ ? sprintf("%.1f MiB", $7 / 1024) : "-"
		  printf "| %s | %s | %s | %s | %s | %s | %s | %.0f |\n", $1, $2, $3, rss, anon, per, $5, $6 }' "$WORK/memory.tsv"
	if [ -s "$WORK/baseline.tsv" ]; then
		printf '\nThe same sizes with the baseline build (%s), each run right after this one'"'"'s:\n\n' "$BASELINE"
		echo "| ranks | verdict | peak RSS | private at report | private per rank beyond the smallest job |"
		echo "|---:|---|---:|---:|---:|"
		awk -F'\t' 'NR == 1 { n0 = $1; a0 = $7 }
			{ per = ($7 ~ /^[0-9]+$/ && $1 > n0) ? sprintf("%.0f KiB", ($7 - a0) / ($1 - n0)) : "-"
			  printf "| %s | %s | %s | %s | %s |\n", $1, $2, $4 ~ /^[0-9]+$/ ? sprintf("%.1f MiB", $4 / 1024) : "-",
				$7 ~ /^[0-9]+$/ ? sprintf("%.1f MiB", $7 / 1024) : "-", per }' "$WORK/baseline.tsv"
	fi
} >"$RESULTS/memory.md"
cat "$RESULTS/memory.md"
