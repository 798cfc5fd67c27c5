# SPDX-License-Identifier: BSD-3-Clause
# Command-line tests of `parastack replay`: verdicts on generated traces, JSON fields,
# determinism, and a one-line error with a non-zero status for every kind of bad input.
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/tests/tracegen

$GEN short --minutes 12 --seed 3 >"$TMP/healthy.trace"
$GEN short --minutes 12 --seed 4 --hang-at 600 >"$TMP/hang.trace"
$GEN long --minutes 30 --seed 5 --hang-at 1500 --step-ms 50 >"$TMP/long-hang.trace"

run "$PARASTACK" replay --json "$TMP/healthy.trace"
expect_status "healthy json" 0
printf '%s' "$OUT" >"$TMP/replay.json"
expect_keys_documented "replay --json keys" "$TMP/replay.json"
expect_json "healthy verdict" '.verdict == "none" and .detected_at_ms == null'
expect_json "healthy fields" '(.interval_ms > 0) and (.samples > 100) and (.model | has("p_hat") and has("e") and has("q") and has("threshold"))'

run "$PARASTACK" replay --json "$TMP/hang.trace"
expect_status "hang json" 0
expect_json "hang within 10 s" '.verdict == "hang" and .detected_at_ms >= 600000 and .detected_at_ms <= 610000'
expect_json "hang model" '.model.usable and ((.model.q - .model.p_hat - .model.e) | fabs) < 1e-9 and .model.alpha == 0.001'

run "$PARASTACK" replay --json "$TMP/long-hang.trace"
expect_json "long-phase hang within 60 s" '.verdict == "hang" and .detected_at_ms >= 1500000 and .detected_at_ms <= 1560000'
expect_json "long phases doubled the interval" '.interval_ms > 400 and .randomness.doublings > 0'

run "$PARASTACK" replay "$TMP/hang.trace"
expect_status "summary" 0
expect_grep "summary verdict" "verdict: hang" "$OUT"
expect_grep "summary model" "suspicion when S <=" "$OUT"

# Options change the evaluation, and the same seed repeats exactly.
run "$PARASTACK" replay --json --seed 9 "$TMP/hang.trace"
first=$OUT
run "$PARASTACK" replay --json --seed 9 "$TMP/hang.trace"
if [ "$first" = "$OUT" ]; then ok; else fail "same seed, different result"; fi
run "$PARASTACK" replay --json --alpha 1e-9 "$TMP/hang.trace"
strict=$(printf '%s' "$OUT" | jq .detected_at_ms)
run "$PARASTACK" replay --json --alpha 0.01 "$TMP/hang.trace"
loose=$(printf '%s' "$OUT" | jq .detected_at_ms)
if [ "$(echo "$strict > $loose" | bc 2>/dev/null || awk "BEGIN{print ($strict > $loose)}")" = 1 ]; then ok; else fail "smaller alpha should decide later ($strict vs $loose)"; fi
run "$PARASTACK" replay --json --interval 1000 --max-interval 1000 "$TMP/healthy.trace"
expect_json "interval option" '.interval_ms == 1000'
run "$PARASTACK" replay --json --set-size 10 "$TMP/healthy.trace"
expect_status "matching set size" 0

# Standard input.
run sh -c "'$PARASTACK' replay --json - <'$TMP/hang.trace'"
expect_json "stdin" '.verdict == "hang"'

# Bad input: one line naming the problem, non-zero exit.
printf '0 1 10\n400 3 10\n800 x 10\n' >"$TMP/bad.trace"
run "$PARASTACK" replay "$TMP/bad.trace"
expect_error "malformed line" 1 "bad.trace: line 3: expected S"
printf '0 1 10\n400 11 10\n' >"$TMP/bad2.trace"
run "$PARASTACK" replay "$TMP/bad2.trace"
expect_error "S above C" 1 "line 2: S = 11 is outside 0..C"
: >"$TMP/empty.trace"
run "$PARASTACK" replay "$TMP/empty.trace"
expect_error "empty file" 1 "no samples"
head -c 3000 /dev/urandom >"$TMP/binary.trace"
run "$PARASTACK" replay "$TMP/binary.trace"
expect_error "binary file" 1 "line"
run "$PARASTACK" replay "$TMP/does-not-exist"
expect_error "missing file" 1 "does-not-exist: cannot open"
run "$PARASTACK" replay "$TMP"
expect_error "a directory" 1 "parastack replay"

for bad in "--alpha abc" "--alpha 0" "--alpha 1" "--alpha -0.1" "--alpha nan" "--interval -5" \
	"--interval 0" "--interval 1e400" "--seed -1" "--seed x" "--set-size 0" "--set-size 2.5" \
	"--max-interval 100"; do
	# shellcheck disable=SC2086
	run "$PARASTACK" replay $bad "$TMP/healthy.trace"
	expect_error "option $bad" 2 "parastack replay: --"
done
# What a file or an option may ask for is bounded: no 8 MB histogram from a trace's C, no
# monitor stopping ranks continuously.
printf '0 1 1000000\n' >"$TMP/huge-c.trace"
run "$PARASTACK" replay "$TMP/huge-c.trace"
expect_error "C = 10^6 in a trace" 1 "set size C = 1000000 is out of range (1..4096)"
run "$PARASTACK" replay --interval 1e-9 "$TMP/healthy.trace"
expect_error "--interval 1e-9" 2 "below 10 ms"
run "$PARASTACK" run --interval 1e-9 -- true
expect_error "run --interval 1e-9" 2 "below 10 ms"
run "$PARASTACK" replay --set-size 5000 "$TMP/healthy.trace"
expect_error "--set-size 5000" 2 "set-size"
run "$PARASTACK" replay --set-size 12 "$TMP/healthy.trace"
expect_error "set size mismatch" 2 "set size is C = 10 but --set-size is 12"
run "$PARASTACK" replay --frobnicate "$TMP/healthy.trace"
expect_error "unknown option" 2 "unknown"
run "$PARASTACK" replay --alpha
expect_error "missing value" 2 "option .--alpha. needs a value"
run "$PARASTACK" replay
expect_error "no file" 2 "expected exactly one trace FILE"
run "$PARASTACK" replay "$TMP/healthy.trace" "$TMP/hang.trace"
expect_error "two files" 2 "expected exactly one trace FILE"
run "$PARASTACK" frobnicate
expect_error "unknown command" 2 "'frobnicate' is not a command"
run "$PARASTACK"
expect_status "no command" 2

run "$PARASTACK" --version
expect_status "version" 0
expect_grep "version text" "^parastack [0-9]" "$OUT"
finish
