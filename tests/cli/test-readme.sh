# README.md's sample report is the program's real output for the demo: scripts/readme-sample
# runs the demo's job and compares the report lines that do not depend on timing (digits and
# host names masked) with the README's, both ways.
. "$(dirname "$0")/lib.sh"

RUN_TIMEOUT=400 run sh scripts/readme-sample --check "$BUILD"
if [ "$RC" -eq 0 ]; then ok; else fail "README's sample report: $ERR"; fi
finish
