# SPDX-License-Identifier: BSD-3-Clause
# MPICH jobs under `parastack run`: Debian's mpich beside Open MPI (which stays the default MPI),
# the test applications built with mpicc.mpich, launched by hydra (mpiexec.mpich) in the forms
# users write (-genv, -env, -genvall, -genvnone, sections, their own LD_PRELOAD): each runs to
# its end with the layer built against MPICH in every rank and never in hydra's proxy; a
# computation hang and a skipped collective are found, the culprit named by the layer.
. "$(dirname "$0")/lib.sh"
M=$BUILD/mpich/tests/apps
if ! command -v mpiexec.mpich >/dev/null || [ ! -x "$M/layercheck" ]; then
	fail "MPICH is not installed or its test applications are not built (scripts/install-deps, make cli)"
	finish
	exit 1
fi
MLAYER=$(cd "$BUILD" && pwd)/mpich/libparastack-mpi.so

# mlaunch NAME NP -- LINE...: runs to status 0; each of NP ranks had the MPICH layer, its
# parent (hydra_pmi_proxy) did not.
mlaunch() {
	name=$1 np=$2
	shift 3
	RUN_TIMEOUT=120 run "$PARASTACK" run --quiet --seed 3 -- "$@"
	expect_status "$name: the job ran to its end" 0
	expect_layer_in "$name (the MPICH layer)" "$np" "user=[01] parent=0 show=[^ ]* preload=[^ ]*$MLAYER "
}

mlaunch "mpiexec.mpich" 2 -- mpiexec.mpich -n 2 "$M/layercheck"
mlaunch "mpirun.mpich" 2 -- mpirun.mpich -n 2 "$M/layercheck"
mlaunch "-genv NAME VALUE" 2 -- mpiexec.mpich -genv PS_SHOW g -n 2 "$M/layercheck"
expect_grep "-genv: kept" "show=g " "$OUT"
mlaunch "-genvnone and -env" 2 -- mpiexec.mpich -genvnone -n 2 -env PS_SHOW e "$M/layercheck"
expect_grep "-env: kept" "show=e " "$OUT"
PS_SHOW=all mlaunch "-genvall" 2 -- mpiexec.mpich -genvall -n 2 "$M/layercheck"
expect_grep "-genvall: the environment passed" "show=all " "$OUT"
# Sections, one with its own LD_PRELOAD (kept first, the layer after it).
mlaunch "sections" 2 -- mpiexec.mpich -n 1 "$M/layercheck" a : -n 1 -env LD_PRELOAD /lib/x86_64-linux-gnu/libm.so.6 "$M/layercheck" b
expect_grep "sections: the section's own LD_PRELOAD first" "preload=/lib/x86_64-linux-gnu/libm.so.6:$MLAYER prog=b" "$OUT"
expect_grep "sections: the other section" "preload=$MLAYER prog=a" "$OUT"
mlaunch "-genv LD_PRELOAD" 2 -- mpiexec.mpich -genv LD_PRELOAD /lib/x86_64-linux-gnu/libm.so.6 -n 2 "$M/layercheck"

# --- hangs ------------------------------------------------------------------------------------
REPORT=$TMP/spin.json
PS_FAULT=spin PS_FAULT_RANK=2 PS_FAULT_AFTER=8 RUN_TIMEOUT=240 run "$PARASTACK" run --seed 3 \
	--confirm 5 --report "$REPORT" -- mpiexec.mpich -n 4 "$M/stencil"
expect_status "MPICH spin: ended as a hang" 86
jreport "MPICH spin: rank 2 in application code" '.verdict == "hang" and .hang_type == "computation" and .faulty_ranks == [2]'
jreport "MPICH spin: the layer in every rank" '[.ranks[].recording_layer] == [true,true,true,true]'
expect_agree "MPICH spin: text and JSON"
REPORT=$TMP/skip.json
PS_FAULT=skip PS_FAULT_RANK=1 PS_FAULT_AFTER=8 RUN_TIMEOUT=240 run "$PARASTACK" run --seed 3 \
	--confirm 5 --report "$REPORT" -- mpiexec.mpich -n 4 "$M/stencil"
expect_status "MPICH skip: ended as a hang" 86
jreport "MPICH skip: rank 1 named by the layer" '.verdict == "hang" and .hang_type == "communication" and .faulty_ranks == [1]'
jreport "MPICH skip: records from MPICH ranks" '[.ranks[].record.library | startswith("MPICH")] == [true,true,true,true]'
expect_agree "MPICH skip: text and JSON"
expect_grep "MPICH skip: the diagnosis names the collective" "wait in MPI_Allreduce .* which rank 1 has not entered" "$ERR"

finish
