# SPDX-License-Identifier: BSD-3-Clause
# sample-cost-ab.sh BEFORE AFTER — the parastack rows of bench/sample_cost for two builds,
# alternating (before, after, before, ...) SAMPLE_COST_AB_RUNS times each (default 3), and a
# table of the medians over the runs with the ratio after/before. The one-target rows pool their
# 13- and 43-frame rows. Prints markdown on stdout: for a section of results/sample-cost.md.
# Run it on an otherwise idle machine: the rows are tens of microseconds.
set -eu
BEFORE=${1:?usage: sample-cost-ab.sh BEFORE_BUILD AFTER_BUILD}
AFTER=${2:?usage: sample-cost-ab.sh BEFORE_BUILD AFTER_BUILD}
RUNS=${SAMPLE_COST_AB_RUNS:-3}
SAMPLES=${SAMPLE_COST_AB_SAMPLES:-2000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

for b in "$BEFORE" "$AFTER"; do
	[ -x "$b/bench/sample_cost" ] || { echo "sample-cost-ab: no $b/bench/sample_cost (make B=$b $b/bench/sample_cost)" >&2; exit 1; }
done
for i in $(seq "$RUNS"); do
	for side in before after; do
		b=$BEFORE
		[ $side = after ] && b=$AFTER
		echo "sample-cost-ab: run $i, $side ($b)" >&2
		# "| label | threads | frames | median | ..." rows, tagged with the side.
		SAMPLE_COST_ONLY_PARASTACK=1 "$b/bench/sample_cost" "$b/tests/callchain-O0" "$SAMPLES" |
			awk -F' *\\| *' -v side=$side '/^\| parastack/ { print side "\t" $2 "\t" $3 "\t" $4 "\t" $5 }' \
				>>"$WORK/rows.tsv"
	done
done

echo "| row | threads | before | after | ratio | before, each | after, each |"
echo "|---|---|---:|---:|---:|---|---|"
# One table row per (label, threads): the "two ranks" rows keep their frames apart.
awk -F'\t' '
	function median(list,   n, a, i, j, t) {
		n = split(list, a, ",")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		key = $2 ($2 ~ /two ranks/ ? " (" $4 " frames)" : "") "\t" $3
		if (!(key in seen)) { seen[key] = 1; order[++n] = key }
		v[key, $1] = v[key, $1] (v[key, $1] == "" ? "" : ",") $5
	}
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]; split(k, p, "\t")
			b = median(v[k, "before"]); a = median(v[k, "after"])
			bl = v[k, "before"]; al = v[k, "after"]; gsub(",", ", ", bl); gsub(",", ", ", al)
			printf "| %s | %s | %.1f | %.1f | %.2f | %s | %s |\n", p[1], p[2], b, a, (b > 0 ? a / b : 0), bl, al
		}
	}' "$WORK/rows.tsv"
