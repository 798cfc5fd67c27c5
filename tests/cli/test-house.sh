# SPDX-License-Identifier: BSD-3-Clause
# The house's rules (docs/design.md §11), checked by scripts/check-house: this checkout keeps
# them, and each kind of break is caught in a copy of it (an include up a floor, one up inside
# sample/, a front end reached from the monitor, one front end reaching another of its floor, a
# file on no floor, a .c file included, a circle of files).
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
	(cd "$ROOT" && tar cf - base monitor stats launcher inspect sched record) | (cd "$TMP/house" && tar xf -)
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
	"monitor/job/job.c includes monitor/daemon/output.h: monitor/job/ is below monitor/daemon/"
broken "sample/ up to hang/" monitor/sample/print/pstack.c '#include "../../hang/report.h"' \
	"monitor/sample/ is below monitor/hang/"
broken "base/ up to monitor/" base/pidlist.c '#include "../monitor/sample/safe/identity.h"' \
	"base/ is below monitor/sample/"
broken "inside sample/: addr/ up to stop/" monitor/sample/addr/symbolize.c '#include "../stop/target.h"' \
	"monitor/sample/addr/ is below monitor/sample/stop/"
broken "monitor/ reaching launcher/" monitor/hang/report.c '#include "../../launcher/commands.h"' \
	"monitor/hang/ is below launcher/"
broken "stats/ reaching base/" stats/detector.c '#include "../base/clock.h"' \
	"stats/ is below base/"
broken "one front end reaching another" sched/torque/parastack_qsub.c '#include "../slurm/spank_collect.h"' \
	"sched/torque/ and sched/slurm/ are one floor, neither reaches the other"
broken "the batch core up to a front end" sched/batch/batch_job.c '#include "../torque/../slurm/spank_collect.h"' \
	"sched/batch/ is below sched/slurm/"
broken "two places of one floor" launcher/cmd_run.c '#include "../sched/batch/batch_job.h"' \
	"launcher/ and sched/batch/ are one floor, neither reaches the other"
broken "inside sample/: stop/ up to record/" monitor/sample/stop/target.c '#include "../record/mpirecord.h"' \
	"monitor/sample/stop/ is below monitor/sample/record/"
copy
mkdir -p "$TMP/house/tools" && printf '/* a new folder */\n' >"$TMP/house/tools/x.c"
run python3 "$CHECK" "$TMP/house"
expect_status "a file on no floor: the check fails" 1
expect_grep "a file on no floor: named" "tools/x.c stands on no floor" "$OUT"
broken "a .c included" record/layer.c '#include "channels.c"' \
	"record/layer.c includes record/channels.c: a .c file is compiled on its own"
# Two files of one floor that include each other's headers: a circle, though no floor is crossed.
broken "a circle of files" monitor/hang/snapclass.c '#include "report.h"' \
	"a circle of files: .*monitor/hang/report -> .*monitor/hang/snapclass"

# One table of communication runtimes (issue 67): outside base/runtimes.c no string of
# the code (comments aside) names a runtime's library or frames; a copy that names one is caught.
# literals_matching ROOT REGEX EXCEPT [TOP...]: each string of the code (comments aside) under
# ROOT's TOP folders (default: every floor's) that matches REGEX, as "path: literal", except in
# the file whose path ends with EXCEPT.
literals_matching() {
	python3 - "$@" <<'PY'
import os, re, sys
root, pattern, except_path = sys.argv[1:4]
tops = sys.argv[4:] or ["base", "monitor", "launcher", "inspect", "sched", "stats"]
wanted = re.compile(pattern)
comment = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
literal = re.compile(r'"(?:[^"\\\n]|\\.)*"')
for top in tops:
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            path = os.path.join(d, f)
            if not f.endswith((".c", ".h")) or path.endswith(except_path):
                continue
            code = comment.sub(" ", open(path, errors="replace").read())
            for lit in literal.findall(code):
                if wanted.search(lit):
                    print("%s: %s" % (os.path.relpath(path, root), lit))
PY
}
RUNTIME_NAMES='libgloo|libnccl|libmpich|libmpi[._"]|libpmpi|libopen-pal|libopen-rte|libucp|libuct|libfabric|libpsm|libhcoll|ProcessGroupGloo|ProcessGroupNCCL|TCPStore|connectFullMesh|ncclComm|ncclProxy|opal_progress|ompi_|MPID_|MPIR_|ucp_worker|uct_worker|_ZN4c10d|_ZN4gloo'
runtime_names() {
	literals_matching "$1" "$RUNTIME_NAMES" base/runtimes.c
}
named=$(runtime_names "$ROOT")
if [ -n "$named" ]; then fail "a runtime named outside the runtimes table: $named"; else ok; fi
copy
printf 'static const char *const x[] = { "libgloo", 0 };\n' >>"$TMP/house/monitor/job/discover.c"
named=$(runtime_names "$TMP/house")
expect_grep "a runtime's library named in discover.c is caught" 'monitor/job/discover.c: "libgloo"' "$named"

# Each option described once (issue 71): no string of the code outside base/option_docs.c is a
# help's option line ("  --name ..."), and none states the report's 1,024-rank limit by hand;
# a copy with a hand-written option line is caught.
help_lines() {
	literals_matching "$1" '"  (--[a-z]|-[a-zA-Z], --)|1,024|1024 ranks' base/option_docs.c base monitor launcher inspect sched
}
written=$(help_lines "$ROOT")
if [ -n "$written" ]; then fail "an option's help written outside base/option_docs.c: $written"; else ok; fi
copy
printf 'static const char u[] = "  --alpha A  significance level (default 0.001)\\n";\n' >>"$TMP/house/sched/torque/parastack_qsub.c"
written=$(help_lines "$TMP/house")
expect_grep "a hand-written option line in parastack_qsub.c is caught" 'sched/torque/parastack_qsub.c: "  --alpha A' "$written"

finish
