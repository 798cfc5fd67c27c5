# SPDX-License-Identifier: BSD-3-Clause
# README.md as a newcomer follows it (issue 55): every command in its ```sh blocks is run here,
# as written, in a sandbox (a home directory of its own, a working directory holding ./app and
# ranks.txt), or — for the few that need what another file builds (the Slurm cluster,
# the Debian packages) — is found in the test file that runs it. A command the README shows and
# nothing runs fails, and so does one listed here that the README no longer shows. The sample
# report is the demo's real output (scripts/readme-sample compares them); the README stays
# within 200 lines.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ABS_BUILD=$(cd "$BUILD" && pwd)
README=$ROOT/README.md
COVERED="" # the README commands run (or found run), one a line

covered() { COVERED="$COVERED
$1"; }

lines=$(wc -l <"$README")
if [ "$lines" -le 200 ]; then ok; else fail "README.md has $lines lines (at most 200)"; fi

# The README's commands: the lines of its ```sh blocks, a trailing "# comment" cut.
awk '/^```sh$/ { on = 1; next } /^```/ { on = 0 } on && NF' "$README" |
	sed -e 's/[[:space:]]\{2,\}#.*$//' -e 's/[[:space:]]*$//' >"$TMP/commands"

# The sandbox: HOME, ./app (the demo's stencil, healthy: PS_ITERS=40 ends it after 40
# iterations), and mpirun allowed more ranks than cores (-np 8 on this machine).
export HOME=$TMP/home
mkdir -p "$HOME" "$TMP/work"
cp "$ABS_BUILD/tests/apps/stencil" "$TMP/work/app"
export OMPI_MCA_rmaps_base_oversubscribe=1
PATH=$ABS_BUILD:$PATH
export PATH

# --- Set-up ---------------------------------------------------------------------------------
# make demo: the same target, its build directory the suite's.
RUN_TIMEOUT=600 run sh -c "cd '$ROOT' && make --no-print-directory demo B='$BUILD' 2>&1"
expect_status "make demo" 0
printf '%s\n' "$OUT" >"$TMP/demo.out"
expect_grep "make demo: the hang found, rank 2" "faulty rank(s): 2" "$OUT"
RUN_TIMEOUT=60 run sh "$ROOT/scripts/readme-sample" --check --from "$TMP/demo.out" "$BUILD"
if [ "$RC" -eq 0 ]; then ok; else fail "README's sample report against make demo's: $ERR"; fi
# The check takes the demo's hang in either of its honest forms — confirmed on the model's
# suspicion, or (on a loaded machine, no model ready yet) on evidence alone — and no mix of
# the two: the demo's report rewritten into the other form passes, half-rewritten it fails.
by_model='moved in the \([0-9]*\) s after the suspicion'
by_evidence='moved for \1 s (the hang began before a model could judge it: no model verdict needed)'
if grep -q "moved in the [0-9]* s after the suspicion" "$TMP/demo.out"; then
	sed -e "s/$by_model/$by_evidence/" -e 's/(the last progress seen), suspected/(nothing has moved since), suspected/' \
		"$TMP/demo.out" >"$TMP/demo.other"
	sed -e "s/$by_model/$by_evidence/" "$TMP/demo.out" >"$TMP/demo.mixed"
else
	back='s/moved for \([0-9]*\) s (the hang began before a model could judge it: no model verdict needed)/moved in the \1 s after the suspicion/'
	sed -e "$back" -e 's/(nothing has moved since), suspected/(the last progress seen), suspected/' \
		"$TMP/demo.out" >"$TMP/demo.other"
	sed -e "$back" "$TMP/demo.out" >"$TMP/demo.mixed"
fi
RUN_TIMEOUT=60 run sh "$ROOT/scripts/readme-sample" --check --from "$TMP/demo.other" "$BUILD"
if [ "$RC" -eq 0 ]; then ok; else fail "the demo's report confirmed on evidence, against the README's: $ERR"; fi
RUN_TIMEOUT=60 run sh "$ROOT/scripts/readme-sample" --check --from "$TMP/demo.mixed" "$BUILD"
if [ "$RC" -eq 1 ]; then ok; else fail "a report mixing the two bases passed readme-sample --check (exit $RC)"; fi
covered "make demo"
# make check is this suite: .ci/run, CI's command, is it.
if grep -qx "make check" "$ROOT/.ci/run"; then ok; covered "make check"; else fail ".ci/run does not run make check"; fi

# --- Install --------------------------------------------------------------------------------
RUN_TIMEOUT=300 run sh -c "cd '$ROOT' && make -s --no-print-directory install B='$BUILD' PREFIX=\$HOME/parastack"
expect_status "make install PREFIX=\$HOME/parastack" 0
covered 'make install PREFIX=$HOME/parastack'
if [ -r /usr/share/lmod/lmod/init/sh ]; then
	cat >"$TMP/module.sh" <<'EOF'
. /usr/share/lmod/lmod/init/sh
module use $HOME/parastack/share/modulefiles
module load parastack
parastack --version
EOF
	PATH=${PATH#"$ABS_BUILD:"} run sh "$TMP/module.sh"
	expect_status "module use, module load parastack, parastack --version" 0
	expect_grep "the module's parastack: its layer" "recording layer: *$HOME/parastack/lib/parastack$" "$OUT"
	covered 'module use $HOME/parastack/share/modulefiles'
	covered "module load parastack"
	covered "parastack --version"
else
	skip "module load parastack (Debian's lmod is not installed: scripts/install-deps --test)"
fi
# The Debian packages: test-package builds and installs them.
for c in "dpkg-buildpackage -b -us -uc" "apt-get install"; do
	if grep -q -- "$c" "$ROOT/tests/cli/test-package.sh"; then ok; else fail "test-package does not run '$c'"; fi
done
covered "dpkg-buildpackage -b -us -uc"
covered "apt-get install ../parastack_0.1.0_amd64.deb"

# --- Your own job ---------------------------------------------------------------------------
cd "$TMP/work" || exit 1
RUN_TIMEOUT=180 run env PS_ITERS=40 parastack run -- mpirun -np 8 ./app
expect_status "parastack run -- mpirun -np 8 ./app (a healthy job)" 0
expect_grep "run: watched" "watching 8 ranks" "$ERR"
covered "parastack run -- mpirun -np 8 ./app"
RUN_TIMEOUT=180 run env PS_ITERS=40 parastack run --report hang.json --on-hang=report -- mpirun -np 8 ./app
expect_status "parastack run --report hang.json --on-hang=report" 0
covered "parastack run --report hang.json --on-hang=report -- mpirun -np 8 ./app"

# attach and stack: a job already running, its ranks in ranks.txt ("host pid rank").
start "$TMP/job.out" env PS_SECONDS=20 PS_PRINT_PIDS=1 mpirun -np 4 ./app
JOB=$BG
deadline=$(($(date +%s) + 60))
while [ "$(rank_lines "$TMP/job.out" | wc -l)" -lt 4 ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.1; done
host=$(hostname)
for r in 0 1 2 3; do echo "$host $(rank_pid "$TMP/job.out" "$r") $r"; done >ranks.txt
RUN_TIMEOUT=60 run parastack stack --tree --pids-file ranks.txt
expect_status "parastack stack --tree --pids-file ranks.txt" 0
expect_grep "stack --tree: every rank under main" "^ *main  *0-3$" "$OUT"
covered "parastack stack --tree --pids-file ranks.txt"
RUN_TIMEOUT=120 run parastack attach --pids-file ranks.txt
expect_status "parastack attach --pids-file ranks.txt (until the job ends)" 0
expect_grep "attach: watched" "watching 4 ranks" "$ERR"
covered "parastack attach --pids-file ranks.txt"
reap "$JOB" 60
cd "$ROOT" || exit 1

# Batch jobs: the files that start the Slurm cluster submit them.
for pair in "parastack-sbatch -N 4 --ntasks-per-node=32 --time=2:00:00 job.sh|slurm|^submit .* -N 4 --ntasks-per-node=2 --time=[0-9:]* solve.sh$" \
	"sbatch --parastack job.sh|spank|sbatch --parastack " \
	"parastack-qsub -l nodes=4:ppn=32,walltime=2:00:00 job.sh|torque|-l nodes=[0-9]*:ppn="; do
	cmd=${pair%%|*} rest=${pair#*|}
	file=${rest%%|*} pattern=${rest#*|}
	if grep -q -- "$pattern" "$ROOT/tests/cli/test-$file.sh"; then ok; else fail "test-$file does not submit /$pattern/ (README: $cmd)"; fi
	covered "$cmd"
done

# --- every README command run, every one here in the README -----------------------------------
printf '%s\n' "$COVERED" | sed '/^$/d' | sort -u >"$TMP/covered"
sort -u "$TMP/commands" >"$TMP/shown"
unrun=$(comm -23 "$TMP/shown" "$TMP/covered")
stale=$(comm -13 "$TMP/shown" "$TMP/covered")
if [ -z "$unrun" ]; then ok; else fail "README commands no test runs: $unrun"; fi
if [ -z "$stale" ]; then ok; else fail "commands run here that README.md no longer shows: $stale"; fi
finish
