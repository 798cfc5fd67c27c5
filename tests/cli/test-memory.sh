# SPDX-License-Identifier: BSD-3-Clause
# The remembered model (issue 68 part 2, --memory DIR): a healthy run of a program leaves what
# its models learned in DIR, the next run of the same program starts from it (said in its
# output and its report), and what is not the same program, or not a file parastack wrote, is
# never taken: --no-memory reads and writes nothing, a binary whose build-id changed finds no
# model, a file that is not a prior is said in one line and replaced, a planted link is neither
# read nor written through. Real Open MPI jobs (the 4-rank stencil, two at a time). How much
# sooner an early fault is suspected is bench/early.sh's to measure, not this file's.
. "$(dirname "$0")/lib.sh"
APPS=$BUILD/tests/apps
MEM=$TMP/memory
mkdir -p "$MEM" "$TMP/changed"
cp "$APPS/stencil" "$TMP/app"
cp "$APPS/stencil" "$TMP/changed/app"
healthy() { # healthy NAME SECONDS BINARY [PARASTACK-RUN-OPTIONS...]
	name=$1 secs=$2 bin=$3
	shift 3
	psrun_later "$name" 240 -- --seed 11 --memory "$MEM" "$@" -- mpirun --oversubscribe -np 4 -x PS_SECONDS="$secs" "$bin"
}
prior_files() { ls "$MEM" | grep -c '\.prior$'; }

# A bad directory: one line, exit 2, nothing run.
run "$PARASTACK" run --memory "$TMP/none" -- true
expect_error "--memory: a missing directory" 2 "^parastack run: --memory $TMP/none: No such file or directory; create the directory first$"

# 1. Healthy runs leave their model: one file per program (the second, another binary's).
healthy first 35 "$TMP/app"
healthy other 35 "$TMP/changed/app"
psrun_collect first
expect_status "a healthy run" 0
jreport "it started afresh" '.verdict == "none" and .model.remembered_from == null'
psrun_collect other
expect_status "a healthy run of another binary" 0
if [ "$(prior_files)" -eq 2 ]; then ok; else fail "healthy runs: $(prior_files) model files in $MEM, want 2: $(ls "$MEM"); their models: $(jq -c '.model | [.samples, .model_size, .interval_ms]' "$TMP/first.json" "$TMP/other.json" | tr '\n' ' ')"; fi
for f in "$MEM"/*.prior; do
	if head -n 1 "$f" | grep -qx "parastack-model-prior 1" && grep -q "^share " "$f"; then ok; else fail "$f is no model: $(head -c 300 "$f")"; fi
done

# 2. The same program again, faulting 8 s in: its model starts from the remembered run. Beside
# it, --no-memory (after --memory, as a site's options would put it): nothing read, nothing kept.
FIRST_KEY=""
for f in "$MEM"/*.prior; do cp "$f" "$f.before"; done
psrun_later spin 240 -- --seed 5 --confirm 5 --memory "$MEM" -- mpirun --oversubscribe -np 4 -x PS_FAULT=spin \
	-x PS_FAULT_RANK=2 -x PS_FAULT_AFTER=8 "$TMP/app"
healthy forget 35 "$TMP/app" --no-memory
psrun_collect spin
expect_status "the remembered program's fault" 86
jreport "the faulty rank" '.faulty_ranks == [2]'
jreport "the report names the remembered run" '(.model.remembered_from | type) == "string" and (.model.remembered_from | startswith("'"$MEM"'/")) and (.model.remembered_from | endswith(".prior"))'
FIRST_KEY=$(jq -r '.model.remembered_from' "$REPORT" 2>/dev/null)
expect_grep "its output says so" "^parastack: the model starts from this program's last healthy run ($FIRST_KEY: interval [0-9]* ms; --no-memory to start afresh)$" "$ERR"
expect_grep "the text report says so" "the model started from this program's last healthy run: $FIRST_KEY" "$ERR"
expect_keys_documented "report keys" "$REPORT"
psrun_collect forget
expect_status "--no-memory: the job runs" 0
jreport "--no-memory: started afresh" '.model.remembered_from == null'
if printf '%s' "$ERR" | grep -q "starts from"; then fail "--no-memory read a model: $ERR"; else ok; fi
changed=""
for f in "$MEM"/*.prior; do cmp -s "$f" "$f.before" || changed="$changed $f"; done
if [ -z "$changed" ]; then ok; else fail "a hung run or --no-memory rewrote a model:$changed"; fi
rm -f "$MEM"/*.before

# 3. A rebuilt binary (another build-id at the same path) finds no model; a model file that is
# not one is said in one line and replaced by the next healthy run's.
objcopy --remove-section=.note.gnu.build-id "$TMP/changed/app" "$TMP/changed/app.new" && mv "$TMP/changed/app.new" "$TMP/changed/app"
psrun_later rebuilt 240 -- --seed 5 --confirm 5 --memory "$MEM" -- mpirun --oversubscribe -np 4 -x PS_FAULT=spin \
	-x PS_FAULT_RANK=1 -x PS_FAULT_AFTER=8 "$TMP/changed/app"
printf 'set_size 4\nrm -rf /\n' >"$FIRST_KEY"
healthy corrupt 35 "$TMP/app"
psrun_collect rebuilt
expect_status "a rebuilt binary's fault" 86
jreport "a rebuilt binary: no model of the old one" '.model.remembered_from == null and .faulty_ranks == [1]'
psrun_collect corrupt
expect_status "a corrupt model: the job runs" 0
expect_grep "a corrupt model: said in one line" "^parastack: the remembered model $FIRST_KEY is not one parastack wrote (not a parastack model prior (its first line)); the model starts afresh and replaces it when the job ends healthy$" "$ERR"
if head -n 1 "$FIRST_KEY" | grep -qx "parastack-model-prior 1"; then ok; else fail "the corrupt model was not replaced: $(head -c 200 "$FIRST_KEY")"; fi

# 4. A link planted as the model file (a monitor may run as root): not read, not written through.
echo keep >"$TMP/victim"
rm -f "$FIRST_KEY"
ln -s "$TMP/victim" "$FIRST_KEY"
healthy planted 35 "$TMP/app"
psrun_collect planted
expect_status "a planted link: the job runs" 0
expect_grep "a planted link: refused in one line" "^parastack: the remembered model: cannot read $FIRST_KEY: .*; the model starts afresh$" "$ERR"
if [ "$(cat "$TMP/victim")" = keep ]; then ok; else fail "written through a planted link: $(head -c 200 "$TMP/victim")"; fi
if [ -f "$FIRST_KEY" ] && [ ! -L "$FIRST_KEY" ]; then ok; else fail "the planted link was not replaced by a model file"; fi
finish
