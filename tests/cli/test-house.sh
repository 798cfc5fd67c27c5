# SPDX-License-Identifier: BSD-3-Clause
# The house's rules (docs/design.md §11), checked by scripts/check-house: this checkout keeps
# them, and each kind of break is caught in a copy of it (an include up a floor, one up inside
# sample/, a front end reached from the monitor, a .c file included, a circle of files).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHECK=$ROOT/scripts/check-house

run python3 "$CHECK" "$ROOT"
expect_status "this checkout keeps the rules" 0
expect_grep "the summary line" "every include within the floors, no circle" "$OUT"

# copy: a fresh copy of the sources the rules read (no build directory, no tests).
copy() {
	rm -rf "$TMP/house"
	mkdir -p "$TMP/house"
	(cd "$ROOT" && tar cf - monitor stats launcher sched record) | (cd "$TMP/house" && tar xf -)
}
# broken NAME FILE LINE PATTERN: FILE (of the copy) given LINE after its first line; the check
# fails, naming the rule.
broken() {
	copy
	f=$TMP/house/$2
	{ head -n 1 "$f"; printf '%s\n' "$3"; tail -n +2 "$f"; } >"$f.new" && mv "$f.new" "$f"
	run python3 "$CHECK" "$TMP/house"
	expect_status "$1: the check fails" 1
	expect_grep "$1: the broken rule named" "$4" "$OUT"
}
broken "job/ up to daemon/" monitor/job/job.c '#include "../daemon/output.h"' \
	"monitor/job/job.c includes monitor/daemon/output.h: job/ is below daemon/"
broken "sample/ up to hang/" monitor/sample/print/pstack.c '#include "../../hang/report.h"' \
	"sample/ is below hang/"
broken "base/ up to sample/" monitor/base/pidlist.c '#include "../sample/safe/identity.h"' \
	"base/ is below sample/"
broken "inside sample/: addr/ up to stop/" monitor/sample/addr/symbolize.c '#include "../stop/target.h"' \
	"sample/addr/ is below sample/stop/"
broken "monitor/ reaching launcher/" monitor/hang/report.c '#include "../../launcher/commands.h"' \
	"monitor/ stands below launcher/"
broken "stats/ reaching monitor/" stats/detector.c '#include "../monitor/base/clock.h"' \
	"stats/ stands below monitor/"
broken "a .c included" record/layer.c '#include "channels.c"' \
	"record/layer.c includes record/channels.c: a .c file is compiled on its own"
# Two files of one floor that include each other's headers: a circle, though no floor is crossed.
broken "a circle of files" monitor/hang/ranges.c '#include "report.h"' \
	"a circle of files: .*monitor/hang/ranges -> monitor/hang/report"
finish
