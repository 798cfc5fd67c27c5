# SPDX-License-Identifier: BSD-3-Clause
# culprits.sh — culprit accuracy of communication hangs (issue 26). Four applications written
# as users write them — a Fortran halo exchange (MPI_IRECV/MPI_ISEND/MPI_WAITALL, an
# MPI_ALLREDUCE every 10 iterations: tests/apps/halo.f90), an iterative solver (MPI_Sendrecv
# halos, MPI_Allreduce: tests/apps/stencil.c), a transpose (MPI_Alltoall, MPI_Allreduce:
# tests/apps/transpose.c) and a task farm whose master receives from MPI_ANY_SOURCE
# (tests/apps/masterworker.c) and LAMMPS's halo in C++ (MPI_Irecv, a blocking MPI_Send of
# 29,808 bytes — over the 4 KiB eager limit — and MPI_Wait: tests/apps/halo_cxx.cpp, "lmphalo",
# issue 53) — 4 ranks each, under `parastack run`, with a fault injected
# from outside by a preloaded injector (tests/fixtures/psinject.c) into a random rank at a
# random call number: skip a collective, skip a send, block inside MPI (a receive nobody
# matches, below the layer), a receive with a tag nobody sends, a collective with another
# count, an early MPI_Finalize, an early exit. Each with and without the recording layer.
# Per kind: hangs found, AC_f (the injected rank among the culprits), PR_f (the share of the
# culprits that is the injected rank), and wrong certain claims (a culprit marked certain that
# is not the injected rank). A fault that does not hang the job (a skipped send whose next
# message takes its place; an exit the launcher turns into an abort) is counted as such.
# Issue 37 adds applications with sub-communicators (tests/apps/subcomm.c), at 4 and 16 ranks:
# a 2-D process grid (row and column communicators from MPI_Comm_split), NPB FT's shape (the
# transposes on a duplicate of the world, the checksum on MPI_COMM_WORLD), a periodic Cartesian
# grid (MPI_Cart_create, MPI_Cart_sub rows) and MPI_Comm_create_group of the even ranks; each
# with skip, block and reorder (the collective put off past the next one on another
# communicator) faults.
# Runs per (application, kind, layer): CULPRIT_RUNS, default 2 (quick) or 20 (full).
# CULPRIT_APPS narrows the applications (default: all); CULPRIT_NPS the sub-communicator
# applications' sizes (default "4 16"). BENCH_STATE=DIR keeps the campaign across sessions
# (lib.sh): the same command again goes on where it stopped. Writes results/culprits.md.
. "$(dirname "$0")/lib.sh"
RUNS=${CULPRIT_RUNS:-$(pick 2 20)}
INJ=$BUILD/tests/libpsinject.so
RUN=0
APPLIST=${CULPRIT_APPS:-halo lmphalo stencil transpose farm grid dup cart group}
NPS=${CULPRIT_NPS:-4 16}
# The code the numbers are of: a campaign in BENCH_STATE resumes only over the same.
state_begin base monitor stats record launcher inspect sched tests/apps tests/fixtures bench/culprits.sh bench/lib.sh
[ -n "${BENCH_STATE:-}" ] || : >"$STATE/runs.tsv"
state_params "runs=$RUNS apps=$APPLIST nps=$NPS seed=${BENCH_SEED:-1}"

# app NAME: its program, the environment that bounds a healthy run, and its faults as
# "kind FUNC KIND LO HI" lines (the call number drawn in [LO, HI]).
app_program() {
	case $1 in
	halo) echo "$APPS/halo" ;; stencil) echo "$APPS/stencil" ;; lmphalo) echo "$APPS/halo_cxx" ;;
	transpose) echo "$APPS/transpose" ;; farm) echo "$APPS/masterworker" ;;
	grid | dup | cart | group) echo "$APPS/subcomm" ;;
	esac
}
app_bound() {
	case $1 in
	halo) echo PS_ITERS=3000 ;; stencil) echo PS_ITERS=300 ;; lmphalo) echo PS_ITERS=3000 ;;
	transpose) echo PS_ITERS=3000 ;; farm) echo PS_TASKS=300 ;;
	grid | cart | group) echo PS_ITERS=4000 ;; dup) echo PS_ITERS=1500 ;;
	esac
}
# app_env APP: the environment that picks the program's shape and the reorder's reach.
app_env() {
	case $1 in
	grid | cart | group) echo "PS_SHAPE=$1" ;;
	dup) echo "PS_SHAPE=dup" ;;
	*) echo "PS_BENCH=1" ;;
	esac
}
# app_nps APP: the sizes it runs at.
app_nps() {
	case $1 in
	grid | dup | cart | group) echo "$NPS" ;;
	*) echo 4 ;;
	esac
}
app_faults() {
	case $1 in
	halo) cat <<-EOF
	skip-collective allreduce skip 3 30
	skip-send isend skip 100 800
	block waitall block 50 400
	wrong-tag irecv tag 100 800
	other-count allreduce count 3 30
	finalize waitall finalize 50 400
	exit waitall exit 50 400
	EOF
	;;
	lmphalo) cat <<-EOF
	wrong-tag irecv tag 100 800
	wrong-send-tag send tag 100 800
	skip-collective allreduce skip 3 30
	block irecv block 100 800
	EOF
	;;
	stencil) cat <<-EOF
	skip-collective allreduce skip 3 30
	block allreduce block 3 30
	other-count allreduce count 3 30
	finalize allreduce finalize 3 30
	exit allreduce exit 3 30
	EOF
	;;
	transpose) cat <<-EOF
	skip-collective alltoall skip 20 200
	block alltoall block 20 200
	other-count alltoall count 20 200
	finalize alltoall finalize 20 200
	exit alltoall exit 20 200
	EOF
	;;
	farm) cat <<-EOF
	skip-send send skip 2 20
	block recv block 2 20
	wrong-tag recv tag 2 20
	finalize recv finalize 2 20
	exit recv exit 2 20
	EOF
	;;
	grid | cart | group) cat <<-EOF
	skip-collective allreduce skip 20 400
	block allreduce block 20 400
	reorder allreduce reorder 20 400
	EOF
	;;
	dup) cat <<-EOF
	skip-collective alltoall skip 5 200
	block alltoall block 5 200
	reorder alltoall reorder 5 200
	EOF
	;;
	esac
}

# one APP KIND FUNC INJKIND LO HI LAYER NP: one run; a line of runs.tsv. The application's
# name in the table carries its size when it runs at several ("grid/16").
one() {
	RUN=$((RUN + 1))
	rank=$(randint 0 $(($8 - 1)))
	call=$(randint "$5" "$6")
	rep=$WORK/report-$RUN.json
	name=$1
	[ "$(app_nps "$1")" = 4 ] || name=$1/$8
	state_has runs.tsv 4 "$RUN" && return 0
	rm -f "$rep"
	say "culprits: run $RUN: $name $2 (rank $rank, call $call of $3), layer $7"
	norecord=""
	[ "$7" = no ] && norecord=--no-record
	# The checksum's MPI_Reduce may return at once on a leaf: FT's reorder goes past the Bcast.
	defer=1
	[ "$1" = dup ] && defer=2
	bg "$WORK/run-$RUN.out" "$PARASTACK" run $norecord --seed "$RUN" --confirm 10 --report "$rep" \
		-- mpirun --oversubscribe --bind-to none -np "$8" -x LD_PRELOAD="$INJ" -x "$(app_bound "$1")" \
		-x "$(app_env "$1")" -x PS_INJECT_DEFER=$defer \
		-x PS_INJECT_FUNC="$3" -x PS_INJECT_KIND="$4" -x PS_INJECT_RANK="$rank" -x PS_INJECT_CALL="$call" \
		"$(app_program "$1")"
	finish_bg "$BG" 300
	if [ -s "$rep" ] && [ "$(jq -r .verdict "$rep")" = hang ]; then
		jq -r --arg a "$name" --arg k "$2" --arg l "$7" --argjson r "$rank" --arg n "$RUN" '
			[$a, $k, $l, $n, "hang", ($r | tostring), (.faulty_ranks | map(tostring) | join(",")),
			 (if (.faulty_ranks | index($r)) != null then 1 else 0 end),
			 (if (.faulty_ranks | length) > 0 then ([.faulty_ranks[] | select(. == $r)] | length) / (.faulty_ranks | length) else 0 end),
			 ([.culprits[]? | select(.evidence == "certain" and .rank != $r)] | length),
			 ([.culprits[]?.evidence] | unique | join("+")), .hang_type] | @tsv' "$rep" >>"$STATE/runs.tsv"
	else
		printf '%s\t%s\t%s\t%s\tno hang (exit %s)\t%s\t-\t-\t-\t0\t-\t-\n' "$name" "$2" "$7" "$RUN" "$RC" "$rank" >>"$STATE/runs.tsv"
	fi
}

for a in $APPLIST; do
	app_faults "$a" >"$WORK/faults"
	for np in $(app_nps "$a"); do
		while read -r kind func inj lo hi; do
			for layer in yes no; do
				i=0
				while [ "$i" -lt "$RUNS" ]; do
					one "$a" "$kind" "$func" "$inj" "$lo" "$hi" "$layer" "$np" </dev/null
					i=$((i + 1))
				done
			done
		done <"$WORK/faults"
	done
done

# table: per application, kind and layer, then per kind over the applications.
summary() {
	awk -F'\t' -v by="$1" '{
		key = by == "kind" ? $2 "\t" $3 : $1 "\t" $2 "\t" $3
		n[key]++
		if ($5 == "hang") { h[key]++; ac[key] += $8; pr[key] += $9; wc[key] += $10; ev[key] = ev[key] " " $11 }
		if (!(key in order)) { order[key] = ++k; keys[k] = key }
	} END {
		for (i = 1; i <= k; i++) {
			key = keys[i]
			split(ev[key], e, " "); delete seen; evs = ""
			for (j in e) if (e[j] != "" && !(e[j] in seen)) { seen[e[j]] = 1; evs = evs (evs ? ", " : "") e[j] }
			gsub("\t", " | ", key)
			hk = keys[i]
			printf "| %s | %d | %d | %s | %s | %d | %s |\n", key, n[hk], h[hk] + 0,
				h[hk] ? sprintf("%.0f %%", 100 * ac[hk] / h[hk]) : "-",
				h[hk] ? sprintf("%.0f %%", 100 * pr[hk] / h[hk]) : "-", wc[hk] + 0, evs ? evs : "-"
		}
	}' "$STATE/runs.tsv"
}

{
	header "Culprit accuracy of communication hangs"
	cat <<EOF
\`bench/culprits.sh\`: 4 ranks per job on this machine's cores (the sub-communicator
applications of \`tests/apps/subcomm.c\` also at 16: "grid/16"), \`parastack run --confirm 10\`,
faults injected from outside (\`tests/fixtures/psinject.c\` preloaded by \`mpirun -x LD_PRELOAD\`,
before the recording layer) into a random rank at a random call number; $RUNS run(s) per
application, kind and layer. Applications: $APPLIST. reorder: the collective put off past the
next one on another communicator (FT's: past the next two). AC_f: runs whose culprits include the injected rank, of the runs
that hung; PR_f: the mean share of the culprits that is the injected rank; wrong certain: culprits
marked certain that are not the injected rank (goal: 0). Evidence: the levels the culprits carried.

## Per kind (all applications)

| kind | layer | runs | hangs | AC_f | PR_f | wrong certain | evidence |
|---|---|---|---|---|---|---|---|
EOF
	summary kind
	cat <<EOF

## Per application and kind

| application | kind | layer | runs | hangs | AC_f | PR_f | wrong certain | evidence |
|---|---|---|---|---|---|---|---|---|
EOF
	summary app
	cat <<EOF

## Every run

| application | kind | layer | run | outcome | injected rank | faulty_ranks | AC | PR | wrong certain | evidence | hang type |
|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
	sed -e 's/\t/ | /g' -e 's/^/| /' -e 's/$/ |/' "$STATE/runs.tsv"
} >"$RESULTS/culprits.md"
say "culprits: $RUN runs; results/culprits.md"
