# SPDX-License-Identifier: BSD-3-Clause
# `parastack view` (issue 70): a real hang's report (a 4-rank stencil whose rank 2 skips a
# collective) drawn as a page that headless Chromium renders with no network at all (a network
# namespace of its own when run as root), its DOM holding the verdict, the faulty rank, its
# innermost frame and the wait-for edges, a screenshot of it a real PNG; the stack tree as
# Graphviz that dot draws; a report's hostile strings escaped; bad input one line and exit 2.
. "$(dirname "$0")/lib.sh"
STENCIL=$BUILD/tests/apps/stencil
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

CHROMIUM=$(command -v chromium || true)
# chromium_run ARGS...: headless Chromium on a file:// page, as root in a namespace with no
# network; its own profile under $TMP (no user's profile touched), a hard timeout.
chromium_run() {
	net=""
	[ "$(id -u)" = 0 ] && command -v unshare >/dev/null && net="unshare --net"
	# shellcheck disable=SC2086
	timeout 120 $net "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP/chromium-profile" --window-size=1100,1600 "$@" 2>"$TMP/chromium.err"
}

psrun comm 240 PS_FAULT=skip PS_FAULT_RANK=2 PS_FAULT_AFTER=8 -- --confirm 5 --seed 3 \
	-- mpirun --oversubscribe --bind-to none -np 4 "$STENCIL"
expect_status "the hang found" 86
jreport "rank 2 faulty" '.faulty_ranks == [2]'
cp "$REPORT" "$TMP/r.json"

run "$PARASTACK" view "$TMP/r.json" -o "$TMP/r.html"
expect_status "view r.json -o r.html" 0
expect_grep "view names the page" "parastack view: $TMP/r.html" "$ERR"
page=$(cat "$TMP/r.html" 2>/dev/null)
if printf '%s' "$page" | grep -qiE '(src|href)="(https?:)?//|@import|url\(http'; then
	fail "the page fetches something: $(printf '%s' "$page" | grep -oiE '(src|href)="[^"]*"' | head -3)"
else ok; fi
cp "$TMP/r.json" "$TMP/beside.json"
run "$PARASTACK" view "$TMP/beside.json"
expect_status "view r.json: the page beside the report" 0
if cmp -s "$TMP/r.html" "$TMP/beside.html"; then ok; else fail "view beside.json: no beside.html the same as r.html"; fi

frame=$(jq -r '.ranks[] | select(.rank == 2) | .frames[0].func' "$TMP/r.json")
if [ -z "$CHROMIUM" ]; then
	skip "the page in a browser (Debian's chromium is not installed: scripts/install-deps --test)"
else
	dom=$(chromium_run --dump-dom "file://$TMP/r.html")
	expect_grep "Chromium: the verdict" 'id="verdict">HANG DETECTED — communication error' "$dom"
	expect_grep "Chromium: the faulty rank's culprit line" 'class="culprit" data-rank="2">rank 2, ' "$dom"
	expect_grep "Chromium: rank 2's frames" 'id="frames-2"' "$dom"
	expect_grep "Chromium: its innermost frame ($frame)" "<td class=\"frame\">$frame</td>" "$dom"
	expect_grep "Chromium: the tree marks where the culprit is" 'faulty"><summary><span class="frame">' "$dom"
	expect_grep "Chromium: the wait-for edges" '<line x1=' "$dom"
	chromium_run --screenshot="$TMP/r.png" "file://$TMP/r.html" >/dev/null
	size=$(stat -c %s "$TMP/r.png" 2>/dev/null || echo 0)
	magic=$(dd if="$TMP/r.png" bs=1 skip=1 count=3 2>/dev/null)
	if [ "$magic" = PNG ] && [ "$size" -gt 20000 ]; then ok; else fail "the screenshot: $size bytes, magic '$magic': $(tail -3 "$TMP/chromium.err")"; fi
fi

run sh -c "'$PARASTACK' view --dot '$TMP/r.json' | dot -Tsvg"
if command -v dot >/dev/null; then
	expect_status "view --dot | dot -Tsvg" 0
	expect_grep "dot drew the tree" "<svg" "$OUT"
	expect_grep "with rank 2's frame" "MPI_Sendrecv" "$OUT"
else
	skip "view --dot | dot (Debian's graphviz is not installed: scripts/install-deps --test)"
fi
run "$PARASTACK" view --dot "$TMP/r.json"
expect_grep "the faulty frame's node in red" '\\n2 (1)", color="#bb0000"' "$OUT"

# What a rank controls (its frames' names, its command line) is escaped, never markup.
jq '.tree[0].frame = "<img src=x onerror=alert(1)> \"q\"" | .job.command = "a</td><script>x()</script>"' \
	"$TMP/r.json" >"$TMP/hostile.json"
run "$PARASTACK" view "$TMP/hostile.json" -o "$TMP/hostile.html"
expect_status "a hostile report drawn" 0
expect_grep "a frame's markup escaped" "&lt;img src=x onerror=alert(1)&gt;" "$(cat "$TMP/hostile.html")"
if grep -q '<script>x()\|<img src=x' "$TMP/hostile.html"; then fail "the report's markup is in the page"; else ok; fi
run "$PARASTACK" view --dot "$TMP/hostile.json"
expect_grep "dot: a frame's quotes escaped" '> \\"q\\"' "$OUT"
if command -v dot >/dev/null; then
	run sh -c "'$PARASTACK' view --dot '$TMP/hostile.json' | dot -Tsvg"
	expect_status "dot reads the hostile tree" 0
fi

# Bad input: one line, exit 2; a link as the output is never followed.
printf 'not json' >"$TMP/bad.json"
run "$PARASTACK" view "$TMP/bad.json"
expect_status "not JSON: exit 2" 2
expect_grep "not JSON: the line says so" "^parastack view: $TMP/bad.json: not a JSON report" "$ERR"
echo '{"a": 1}' >"$TMP/other.json"
run "$PARASTACK" view "$TMP/other.json"
expect_status "not a report: exit 2" 2
expect_grep "not a report: the line says so" 'not a parastack report (no "verdict")' "$ERR"
run "$PARASTACK" view "$TMP/missing.json"
expect_status "no such file: exit 2" 2
ln -s "$TMP/target" "$TMP/link.html"
run "$PARASTACK" view "$TMP/r.json" -o "$TMP/link.html"
expect_status "-o onto a symbolic link: refused" 1
expect_grep "-o onto a link: the line says so" "a symbolic link" "$ERR"
if [ ! -e "$TMP/target" ]; then ok; else fail "the link was followed"; fi
run "$PARASTACK" view
expect_status "no report named: exit 2" 2
run "$PARASTACK" view --help
expect_grep "--help: usage" "^usage: parastack view" "$OUT"
finish
