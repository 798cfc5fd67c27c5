# SPDX-License-Identifier: BSD-3-Clause
# overhead.sh — application slowdown under parastack: fixed-work runs with and without it, in
# alternating pairs (clean, watched) so drifts of the machine hit both alike; the ratio of each
# pair, and the median ratio per setting: I = 100 ms and 400 ms held fixed (as the paper's
# Table 4/5), and the automatic default. The work time is the application's own (from MPI_Init
# to its end; LAMMPS's "Loop time"), free of launch costs. Writes results/overhead.md.
. "$(dirname "$0")/lib.sh"
PAIRS=$(pick 3 10)
NP=2 # one rank per core: the monitor competes with a fully used node, as in production

# work_time APP: run the application once (optionally under parastack: the words before "--");
# prints its own work time in seconds.
stencil_time() {
	PS_ITERS=$(pick 100 500) PS_ELAPSED=1 "$@" mpirun --bind-to none -np $NP "$APPS/stencil" 2>&1 |
		sed -n 's/^elapsed //p' | tail -n 1
}
lammps_time() {
	"$@" mpirun --bind-to none -np $NP lmp -in "$ROOT/bench/in.lj" -var steps "$(pick 250 1500)" -log none 2>&1 |
		sed -n 's/^Loop time of \([0-9.]*\) .*/\1/p' | tail -n 1
}

# settings: label, parastack options ("" = automatic default)
SETTINGS="100:--interval=100:--max-interval=100 400:--interval=400:--max-interval=400 auto:"

measure() {
	app=$1
	for pair in $(seq "$PAIRS"); do
		for s in $SETTINGS; do
			label=${s%%:*}
			opts=$(echo "${s#*:}" | tr ':' ' ')
			clean=$(${app}_time)
			# shellcheck disable=SC2086
			watched=$(${app}_time "$PARASTACK" run $opts --)
			if [ -n "$clean" ] && [ -n "$watched" ]; then
				echo "$app $label $pair $clean $watched" >>"$WORK/overhead.tsv"
			else
				say "overhead: $app $label pair $pair gave no time (clean '$clean', watched '$watched')"
			fi
		done
	done
}

say "overhead: $PAIRS pairs per setting, stencil and LAMMPS, $NP ranks"
: >"$WORK/overhead.tsv"
measure stencil
measure lammps

{
	header "Overhead: application time with and without parastack"
	cat <<EOF
Fixed work, $NP ranks on this machine's cores (fully subscribed: the monitor shares the cores
with the ranks). Each pair runs the application clean, then under \`parastack run\`; the ratio
is watched / clean for the pair, and the table gives the median over $PAIRS pairs (budget,
design.md §6: at most 1 % slowdown at the default). \`I = 100\` and \`I = 400\` hold the interval
fixed (\`--interval N --max-interval N\`), as the paper's Tables 4-5; \`auto\` is the default
(400 ms initially, doubled while sampling is not random). Times are the application's own
(stencil: MPI_Init to the end; LAMMPS: its "Loop time"), so launching the monitors is not counted.

The last column is the machine's own noise: the standard deviation of the clean runs over their
median. A slowdown smaller than it is not resolved by this many pairs (BENCH=full runs more).

| application | setting | pairs | clean median s | watched median s | median ratio | slowdown | clean noise |
|---|---|---|---|---|---|---|---|
EOF
	for app in stencil lammps; do
		for s in $SETTINGS; do
			label=${s%%:*}
			rows=$(awk -v a="$app" -v l="$label" '$1 == a && $2 == l' "$WORK/overhead.tsv")
			[ -n "$rows" ] || continue
			cs=$(printf '%s\n' "$rows" | awk '{ print $4 }' | stats)
			c=$(echo "$cs" | cut -d' ' -f4)
			noise=$(echo "$cs" | awk '{ printf "%.1f %%", ($4 > 0 ? $3 / $4 * 100 : 0) }')
			w=$(printf '%s\n' "$rows" | awk '{ print $5 }' | stats | cut -d' ' -f4)
			r=$(printf '%s\n' "$rows" | awk '{ printf "%.5f\n", $5 / $4 }' | sort -g |
				awk '{ v[NR] = $1 } END { printf "%.4f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
			n=$(printf '%s\n' "$rows" | grep -c .)
			name=$app
			[ "$app" = lammps ] && name="LAMMPS lmp (Debian), in.lj"
			[ "$app" = stencil ] && name="stencil (test app)"
			echo "| $name | I = $label | $n | $c | $w | $r | $(awk -v r="$r" 'BEGIN { printf "%+.2f %%", (r - 1) * 100 }') | $noise |"
		done
	done
	echo
	echo "Every pair (application, setting, pair, clean s, watched s):"
	echo
	echo '```'
	cat "$WORK/overhead.tsv"
	echo '```'
} >"$RESULTS/overhead.md"
say "overhead: wrote $RESULTS/overhead.md"
