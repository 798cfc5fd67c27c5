# SPDX-License-Identifier: BSD-3-Clause
# Launch lines users write run unchanged under `parastack run`, with the recording layer in
# every rank wherever the launcher allows it (launcher/layer_place.c): Open MPI's -x VAR,
# -x VAR=value, -x LD_PRELOAD=user.so (kept, before the layer), --mca/-mca/-gmca
# mca_base_env_list, the list in the environment, --tune and -am files, an appfile, MPMD, the
# mpiexec and orterun names, a wrapper script between mpirun and the program, python3 as the
# program, and a job script whose mpirun is parastack's shim. A line Open MPI itself refuses
# is passed through untouched. Each job is short (tests/apps/layercheck); every run has a
# hard timeout.
. "$(dirname "$0")/lib.sh"
APP=$BUILD/tests/apps/layercheck
USERLIB=$(cd "$BUILD/tests" && pwd)/libpsinject.so
MPIRUN="mpirun --oversubscribe"

# launch NAME NP [ENV=VALUE...] -- LINE...: the line runs under parastack to status 0 and
# each of its NP ranks had the layer, and its parent (mpirun or orted) did not; $OUT holds what
# the ranks printed.
launch() {
	name=$1 np=$2
	shift 2
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	# shellcheck disable=SC2086
	RUN_TIMEOUT=120 run env $envs "$PARASTACK" run --quiet --seed 3 -- "$@"
	expect_status "$name: the job ran to its end" 0
	expect_layer_in "$name" "$np" "(user=[01] )?parent=0 "
	if printf '%s' "$ERR" | grep -q "recording layer not loaded"; then fail "$name: $ERR"; else ok; fi
}

launch "plain mpirun" 2 -- $MPIRUN -np 2 "$APP"
# The monitors' mpirun keeps its Open MPI session directories apart from the job's (two
# mpiruns sharing TMPDIR/ompi.HOST.UID race on it: open-mpi/ompi#8510), in a base of its own.
mkdir "$TMP/sess"
launch "a fresh TMPDIR" 2 TMPDIR="$TMP/sess" -- $MPIRUN -np 2 "$APP"
base=$TMP/sess/parastack-monitors.$(id -u)
if [ -d "$base" ] && [ "$(stat -c %a "$base")" = 700 ]; then ok; else fail "the monitors' session base $base: $(ls -la "$TMP/sess" 2>&1)"; fi
launch "-x VAR" 2 PS_SHOW=fromenv -- $MPIRUN -np 2 -x PS_SHOW "$APP"
expect_grep "-x VAR: the variable reached the ranks" "show=fromenv" "$OUT"
launch "-x VAR=value" 2 -- $MPIRUN -np 2 -x PS_SHOW=given -x OMP_NUM_THREADS=1 "$APP"
expect_grep "-x VAR=value: the value reached the ranks" "show=given" "$OUT"
# The user's own preloaded library stays, first; the layer follows it.
launch "-x LD_PRELOAD=user.so" 2 -- $MPIRUN -np 2 -x LD_PRELOAD="$USERLIB" "$APP"
if [ "$(printf '%s\n' "$OUT" | grep -c "user=1 .*preload=$USERLIB:.*libparastack-mpi.so ")" -eq 2 ]; then ok; else fail "-x LD_PRELOAD: the user's library first, then the layer: $OUT"; fi
launch "--mca mca_base_env_list" 2 -- $MPIRUN --mca mca_base_env_list "PS_SHOW=list" -np 2 "$APP"
expect_grep "--mca list: the user's list kept" "show=list" "$OUT"
launch "-mca mca_base_env_list" 1 -- $MPIRUN -mca mca_base_env_list "PS_SHOW=list1" -np 1 "$APP"
expect_grep "-mca list: kept" "show=list1" "$OUT"
launch "-gmca mca_base_env_list" 1 -- $MPIRUN -gmca mca_base_env_list "PS_SHOW=glist;OMP_NUM_THREADS=1" -np 1 "$APP"
expect_grep "-gmca list: kept" "show=glist" "$OUT"
launch "OMPI_MCA_mca_base_env_list set" 2 OMPI_MCA_mca_base_env_list=PS_SHOW=envlist -- $MPIRUN -np 2 "$APP"
expect_grep "env list: kept" "show=envlist" "$OUT"
printf -- '-x PS_SHOW=tuned\n' >"$TMP/tune.conf"
launch "--tune FILE with -x" 2 -- $MPIRUN --tune "$TMP/tune.conf" -np 2 "$APP"
expect_grep "--tune: its -x kept" "show=tuned" "$OUT"
printf -- '--mca mca_base_env_list PS_SHOW=tunelist\n' >"$TMP/tunelist.conf"
launch "--tune FILE with a list" 1 -- $MPIRUN --tune "$TMP/tunelist.conf" -np 1 "$APP"
expect_grep "--tune list: kept" "show=tunelist" "$OUT"
printf 'mpi_yield_when_idle = 1\n' >"$TMP/am.conf"
launch "-am FILE" 2 -- $MPIRUN -am "$TMP/am.conf" -x PS_SHOW=am -np 2 "$APP"
printf -- '-np 1 %s first\n-np 1 -x PS_SHOW=app2 %s second\n' "$APP" "$APP" >"$TMP/appfile"
launch "--app FILE" 2 -- $MPIRUN --app "$TMP/appfile"
expect_grep "--app: the appfile's -x kept" "show=app2 .* prog=second" "$OUT"
# MPMD: -x belongs to its context; each context gets the layer.
launch "MPMD" 3 -- $MPIRUN -np 1 -x PS_SHOW=a "$APP" first : -np 2 "$APP" second
expect_grep "MPMD: the first context's -x" "show=a .* prog=first" "$OUT"
if [ "$(printf '%s\n' "$OUT" | grep -c "show=- .* prog=second")" -eq 2 ]; then ok; else fail "MPMD: -x reached the second context: $OUT"; fi
launch "mpiexec" 2 -- mpiexec --oversubscribe -np 2 -x PS_SHOW=e "$APP"
launch "orterun" 2 -- orterun --oversubscribe -np 2 "$APP"
printf '#!/bin/sh\nexport PS_SHOW=wrapped\nexec "%s" "$@"\n' "$(cd "$(dirname "$APP")" && pwd)/layercheck" >"$TMP/run.sh"
chmod +x "$TMP/run.sh"
launch "a wrapper script between mpirun and the program" 2 -- $MPIRUN -np 2 "$TMP/run.sh" viawrapper
expect_grep "wrapper: the program ran through it" "show=wrapped .* prog=viawrapper" "$OUT"
# A job script (what parastack-sbatch and -qsub run): its mpirun is the shim, -x and all; the
# shims' private directory (the script writes down which) is gone afterwards.
printf '#!/bin/sh\ndirname "$(command -v mpirun)" >"%s"\n%s -np 2 -x PS_SHOW=script "%s"\n' "$TMP/shimdir" "$MPIRUN" "$APP" >"$TMP/job.sh"
chmod +x "$TMP/job.sh"
launch "a job script with mpirun -x" 2 -- "$TMP/job.sh"
expect_grep "job script: its -x kept" "show=script" "$OUT"
shimdir=$(cat "$TMP/shimdir" 2>/dev/null)
expect_grep "job script: its mpirun came from a shims directory" "^/tmp/parastack-launch\\." "$shimdir"
left=""
[ -n "$shimdir" ] && [ -e "$shimdir" ] && left=" $shimdir"
if [ -z "$left" ]; then ok; else fail "job script: shim directory left behind:$left"; fi
if /usr/bin/python3 -c "import mpi4py" 2>/dev/null; then
	cat >"$TMP/app.py" <<'EOF'
from mpi4py import MPI
comm = MPI.COMM_WORLD
import os
layer = "libparastack-mpi" in open("/proc/self/maps").read()
parent = "libparastack-mpi" in open("/proc/%d/maps" % os.getppid()).read()
print("layercheck rank %d of %d: layer=%d parent=%d " % (comm.rank, comm.size, layer, parent), flush=True)
comm.Barrier()
EOF
	launch "mpirun python3 app.py" 2 -- $MPIRUN -np 2 /usr/bin/python3 "$TMP/app.py"
else
	fail "python3-mpi4py is not installed (scripts/install-deps installs it)"
fi

# --- what parastack must pass through untouched -----------------------------------------------
# A line Open MPI refuses by itself (-x beside mca_base_env_list): untouched, one line says why.
RUN_TIMEOUT=60 run "$PARASTACK" run --quiet -- $MPIRUN -np 1 -x PS_SHOW=1 --mca mca_base_env_list PS_X=2 "$APP"
if [ "$RC" -ne 0 ] && printf '%s' "$ERR" | grep -q "with both the \"-x\" method" &&
	[ "$(printf '%s\n' "$ERR" | grep -c '^parastack: recording layer not loaded: the line mixes mpirun -x with mca_base_env_list')" -eq 1 ]; then ok; else fail "refused line: rc $RC: $ERR"; fi
# Program arguments that look like mpirun's: left to the program.
launch "program arguments like mpirun's" 1 -- $MPIRUN -np 1 "$APP" -x
expect_grep "program arguments: passed on" "prog=-x" "$OUT"
# --no-record: the line is not touched at all.
RUN_TIMEOUT=60 run "$PARASTACK" run --quiet --no-record -- $MPIRUN -np 1 -x PS_SHOW=n "$APP"
expect_status "--no-record: runs" 0
expect_grep "--no-record: no layer" "layer=0 .*show=n" "$OUT"
# A launcher that does not exist: exit 127, one line, nothing watched.
run "$PARASTACK" run -- /nonexistent/mpirun -np 1 "$APP"
expect_error "missing launcher by path" 127 "cannot start /nonexistent/mpirun: No such file"
run "$PARASTACK" run -- no-such-mpirun -np 1 "$APP"
expect_error "missing launcher in PATH" 127 "cannot start no-such-mpirun: No such file"

# --- -x LD_PRELOAD=user.so with a hang: the user's injector skips rank 1's 3rd Allreduce ----
# The layer, after the user's library, still sees the calls it passes on, and names rank 1.
REPORT=$TMP/inject.json
RUN_TIMEOUT=180 run "$PARASTACK" run --seed 3 --confirm 5 --report "$REPORT" -- $MPIRUN -np 4 \
	-x LD_PRELOAD="$USERLIB" -x PS_INJECT_RANK=1 -x PS_INJECT_CALL=3 -x PS_ITERS=100000 \
	"$BUILD/tests/apps/stencil"
expect_status "injected skip: ended as a hang" 86
jreport "injected skip: rank 1 named by the layer" '.verdict == "hang" and .hang_type == "communication" and .faulty_ranks == [1]'
expect_agree "injected skip: text and JSON"
jreport "injected skip: every rank had the layer" '[.ranks[].recording_layer] == [true, true, true, true]'

finish
