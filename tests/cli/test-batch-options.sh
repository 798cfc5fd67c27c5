# SPDX-License-Identifier: BSD-3-Clause
# The batch front ends split the command line as the schedulers document their options: every
# option of sbatch(1) (read from its man page, Slurm 22.05) and of Torque's qsub(1) takes the
# words it should, so the job script is the word after them (checked by naming a script that is
# not there: the error must name that script); an option neither parastack's nor the
# scheduler's gets one line; --wrap and -I are refused. No scheduler is contacted.
. "$(dirname "$0")/lib.sh"
SBATCH=$BUILD/parastack-sbatch
QSUB=$BUILD/parastack-qsub
MISSING=$TMP/missing.sh

# takes_words NAME PROG OPTION-WORDS...: PROG OPTION-WORDS MISSING fails on MISSING itself.
takes_words() {
	name=$1 prog=$2
	shift 2
	run "$prog" "$@" "$MISSING"
	expect_error "$name" 1 "cannot read the job script $MISSING"
}

if MANWIDTH=200 man sbatch >"$TMP/sbatch.man" 2>/dev/null && [ -s "$TMP/sbatch.man" ]; then
	col -b <"$TMP/sbatch.man" | sed -n 's/^ \{7\}\(-[A-Za-z], \)\{0,1\}--\([a-z][a-z-]*\)\(.\{0,2\}\).*/\2 \3/p' |
		sort -u >"$TMP/sbatch.opts"
	n=$(wc -l <"$TMP/sbatch.opts")
	if [ "$n" -gt 80 ]; then ok; else fail "sbatch(1) lists only $n long options"; fi
	while read -r opt rest; do
		case $opt in help | version | wrap) continue ;; esac
		case $rest in
		'=<'* | '={'* | '=['*) takes_words "sbatch --$opt VALUE" "$SBATCH" "--$opt" value
			takes_words "sbatch --$opt=VALUE" "$SBATCH" "--$opt=value" ;;
		*) takes_words "sbatch --$opt (no value)" "$SBATCH" "--$opt" ;;
		esac
	done <"$TMP/sbatch.opts"
	# Short options: those with a value take the next word.
	col -b <"$TMP/sbatch.man" | sed -n 's/^ \{7\}-\([A-Za-z]\), --[a-z-]*\(.\).*/\1 \2/p' | sort -u >"$TMP/sbatch.short"
	while read -r letter next; do
		case $letter in h | V) continue ;; esac
		if [ "$next" = "=" ]; then
			takes_words "sbatch -$letter VALUE" "$SBATCH" "-$letter" value
		else
			takes_words "sbatch -$letter" "$SBATCH" "-$letter"
		fi
	done <"$TMP/sbatch.short"
else
	echo "test-batch-options: sbatch(1) is not installed; its table is not checked" >&2
fi
run "$SBATCH" --bogus job.sh
expect_error "an option of nobody's" 2 "'--bogus' is neither a parastack option nor one of sbatch's"
run "$SBATCH" --wrap hostname
expect_error "--wrap is refused" 2 "--wrap cannot be watched; put the command in a script and submit that"
run "$SBATCH" --wrap=hostname
expect_error "--wrap= is refused" 2 "--wrap cannot be watched"

# Torque's qsub(1) (version 6): the options with a value, and the flags.
for letter in a A b c C d D e F j J k K l L m M N o p P q r S t T u v W w; do
	takes_words "qsub -$letter VALUE" "$QSUB" "-$letter" value
done
for letter in f h n V x X z; do
	takes_words "qsub -$letter" "$QSUB" "-$letter"
done
run "$QSUB" -I
expect_error "qsub -I is refused" 2 "-I (an interactive job) cannot be watched from here"
run "$QSUB" -hI job.sh
expect_error "qsub -I in a cluster of flags is refused" 2 "-I (an interactive job) cannot be watched"
run "$QSUB" --bogus job.sh
expect_error "qsub: an option of nobody's" 2 "'--bogus' is neither a parastack option nor one of qsub's"

# An option the installed sbatch knows and the 22.05 table lacks (a newer Slurm's) is read from
# its --help and passed on: a wrapper sbatch forges two, one with a value and one without, and
# records what it was given.
mkdir -p "$TMP/newslurm"
cat >"$TMP/newslurm/sbatch" <<EOF
#!/bin/sh
if [ "\$1" = --help ]; then
	printf 'Usage: sbatch [OPTIONS(0)...] script(0) [args(0)...]\n\nParallel run options:\n'
	printf '  -A, --account=name          charge job to specified account\n'
	printf '  -Y, --frobnicate=level      a newer Slurm option with a value\n'
	printf '      --frob-flag             a newer Slurm flag\n'
	exit 0
fi
printf '%s\n' "\$@" >"$TMP/newslurm/argv"
echo "Submitted batch job 4242"
EOF
chmod +x "$TMP/newslurm/sbatch"
printf '#!/bin/sh\necho hi\n' >"$TMP/newjob.sh"
run env PATH="$TMP/newslurm:$PATH" "$SBATCH" --frobnicate 3 --frob-flag -Y 4 "$TMP/newjob.sh"
expect_status "a newer sbatch's options: submitted" 0
expect_grep "a newer sbatch's options: its output passed on" "Submitted batch job 4242" "$OUT"
got=$(tr '\n' ' ' <"$TMP/newslurm/argv" 2>/dev/null)
expect_grep "a newer sbatch's options: --frobnicate VALUE passed to sbatch" "--frobnicate 3 " "$got"
expect_grep "a newer sbatch's options: --frob-flag passed, not taken for the script" "--frob-flag -Y 4 " "$got"
run env PATH="$TMP/newslurm:$PATH" "$SBATCH" --frobnicatex 3 "$TMP/newjob.sh"
expect_error "a newer sbatch's table: still no option of nobody's" 2 "'--frobnicatex' is neither a parastack option nor one of sbatch's"

# Job arrays: --report and --trace take sbatch -o's patterns, from the job's variables.
run env SLURM_JOB_ID=77 SLURM_ARRAY_JOB_ID=70 SLURM_ARRAY_TASK_ID=7 SLURM_JOB_NAME=solve \
	"$PARASTACK" run --local --report "$TMP/r-%A_%a-%j-%x-%u-%%.json" -- true
if [ -s "$TMP/r-70_7-77-solve-$(id -un)-%.json" ]; then ok; else fail "Slurm patterns: $(ls "$TMP")"; fi
run env PBS_JOBID='12[3].srv' PBS_ARRAYID=3 PBS_JOBNAME=solve "$PARASTACK" run --local \
	--report "$TMP/p-%A-%a-%j.json" -- true
if [ -s "$TMP/p-12.srv-3-12[3].srv.json" ]; then ok; else fail "Torque patterns: $(ls "$TMP")"; fi
run "$PARASTACK" run --local --report "$TMP/plain-%a.json" -- true
if [ -s "$TMP/plain-%a.json" ]; then ok; else fail "outside a job a pattern stays as written: $(ls "$TMP")"; fi
finish
