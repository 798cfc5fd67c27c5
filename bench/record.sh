# SPDX-License-Identifier: BSD-3-Clause
# record.sh — the recording layer (libparastack-mpi.so): what it costs while the job is healthy,
# and what it adds at a hang. (1) ns added per MPI call: bench/record_micro (2 ranks,
# MPI_Irecv + MPI_Isend + MPI_Waitall of 8 bytes; MPI_Allreduce of 8 bytes) with and without the
# layer preloaded, alternating pairs, medians. (2) The test stencil and LAMMPS (in.lj) with and
# without it: median of the pairs' time ratios, beside the spread of the runs without it (the
# machine's noise). (3) The communication faults of tests/apps/commfaults.c under `parastack
# run`, with the layer and with --no-record: does the report name the culprit? Writes
# results/record.md.
. "$(dirname "$0")/lib.sh"
NP=2 # the applications: one rank per core
PAIRS=$(pick 5 11)
LIB=$BUILD/libparastack-mpi.so

trap 'bench_stop_all; rm -rf "$WORK"' EXIT

# pre LIB|none CMD...: CMD (an mpirun) with the layer preloaded into its ranks, or not.
pre() {
	if [ "$1" = none ]; then shift; "$@"; else l=$1; shift; OMPI_MCA_mca_base_env_list="LD_PRELOAD=$l" "$@"; fi
}

micro() {
	pre "$1" mpirun --bind-to none -np 2 "$BUILD/bench/record_micro" "$(pick 100000 400000)" 2>/dev/null
}
stencil_time() {
	pre "$1" env PS_ITERS=$(pick 100 500) PS_ELAPSED=1 mpirun --oversubscribe --bind-to none -np $NP "$APPS/stencil" 2>&1 |
		sed -n 's/^elapsed //p' | tail -n 1
}
lammps_time() {
	command -v lmp >/dev/null || return 0
	pre "$1" mpirun --oversubscribe --bind-to none -np $NP lmp -in "$ROOT/bench/in.lj" -var steps "$(pick 250 1500)" -log none 2>&1 |
		sed -n 's/^Loop time of \([0-9.]*\) .*/\1/p' | tail -n 1
}

say "record: per-call cost, $PAIRS pairs"
: >"$WORK/micro.tsv"
i=0
while [ $i -lt "$PAIRS" ]; do
	for w in none "$LIB"; do
		micro "$w" | awk -v w="$([ "$w" = none ] && echo off || echo on)" \
			'{ v[$1] = $2 } END { print w "\t" v["p2p_ns"] "\t" v["allreduce_ns"] }' >>"$WORK/micro.tsv"
	done
	i=$((i + 1))
done

say "record: applications, $PAIRS pairs"
: >"$WORK/apps.tsv"
for app in stencil lammps; do
	i=0
	while [ $i -lt "$PAIRS" ]; do
		off=$(${app}_time none)
		on=$(${app}_time "$LIB")
		[ -n "$off" ] && [ -n "$on" ] && printf '%s\t%s\t%s\n' "$app" "$off" "$on" >>"$WORK/apps.tsv"
		i=$((i + 1))
	done
done

say "record: the communication faults, with and without the layer"
: >"$WORK/faults.tsv"
for sc in cycle2:1,2 cycle4:0,1,2,3 bcast:1 roots:1 wrongsource:1 lostisend:2 finalize:1 skip:1; do
	name=${sc%%:*} want=${sc#*:}
	np=4
	[ "$name" = cycle4 ] && np=6
	for mode in record no-record; do
		opt=
		[ "$mode" = no-record ] && opt=--no-record
		rep=$WORK/$name-$mode.json
		bg "$WORK/$name-$mode.out" env PS_COMM="$name" "$PARASTACK" run --seed 3 --confirm 5 \
			--report "$rep" $opt -- mpirun --oversubscribe -np "$np" "$APPS/commfaults"
		finish_bg "$BG" 300
		got=$(jq -r '(.faulty_ranks // []) | map(tostring) | join(",")' "$rep" 2>/dev/null)
		first=$(jq -r '.diagnosis[0] // "-"' "$rep" 2>/dev/null | cut -c1-150 | tr '|' '/')
		printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$want" "$mode" "${got:-none}" "$first" >>"$WORK/faults.tsv"
	done
done

{
	header "The recording layer: its cost, and what it adds at a hang"
	cat <<'MD'
`libparastack-mpi.so` is preloaded into the ranks by `parastack run` (the way the launch line
passes variables: see `man parastack`, "How the layer reaches the ranks"; here Open MPI's
`mca_base_env_list`); on each MPI call it stores a few words in memory the monitor reads only
at a confirmed hang. Below, the same programs with and without it, in alternating pairs.

### Per MPI call (bench/record_micro, 2 ranks, medians of the pairs)

| | without (ns) | with (ns) | added (ns) | added per call (ns) |
|---|---:|---:|---:|---:|
MD
	for col in 2 3; do
		off=$(awk -F'\t' -v c=$col '$1 == "off" { print $c }' "$WORK/micro.tsv" | stats | cut -d' ' -f4)
		on=$(awk -F'\t' -v c=$col '$1 == "on" { print $c }' "$WORK/micro.tsv" | stats | cut -d' ' -f4)
		calls=3
		label="MPI_Irecv + MPI_Isend + MPI_Waitall, 8 bytes (one round)"
		[ $col = 3 ] && calls=1 && label="MPI_Allreduce, 8 bytes"
		awk -v l="$label" -v a="$off" -v b="$on" -v k=$calls 'BEGIN { printf "| %s | %.0f | %.0f | %.0f | %.0f |\n", l, a, b, b - a, (b - a) / k }'
	done
	cat <<'MD'

### Applications (time with / without, per pair; the noise is the spread of the runs without)

| application | pairs | median ratio | min ratio | max ratio | noise (sd/mean without) |
|---|---:|---:|---:|---:|---:|
MD
	for app in stencil lammps; do
		grep -q "^$app	" "$WORK/apps.tsv" || continue
		# Ratios to 4 decimals (stats rounds to 2): sorted, median, extremes.
		awk -F'\t' -v a=$app '$1 == a && $2 > 0 { print $3 / $2 }' "$WORK/apps.tsv" | sort -g |
			awk -v a="$app" -v noise="$(awk -F'\t' -v a=$app '$1 == a { print $2 }' "$WORK/apps.tsv" | stats |
				awk '{ print ($2 > 0 ? $3 / $2 : 0) }')" \
			'{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf "| %s | %d | %.4f | %.4f | %.4f | %.4f |\n", a, NR, m, v[1], v[NR], noise }'
	done
	cat <<'MD'

### At a hang: the same communication faults with the layer and with `--no-record`

`tests/apps/commfaults.c`, 4 ranks (cycle4: 6), `parastack run --confirm 5`. "culprit" is the
rank(s) the fault puts at fault; the report's `faulty_ranks` and its first diagnosis line.

| fault | culprit | mode | faulty_ranks | first line of the diagnosis |
|---|---|---|---|---|
MD
	awk -F'\t' '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$WORK/faults.tsv"
} >"$RESULTS/record.md"
cat "$RESULTS/record.md"
