# SPDX-License-Identifier: BSD-3-Clause
# The recording layer covers the MPI library (issue 25): scripts/layer-coverage finds every call
# of libmpi that can block or that starts or completes communication wrapped by the layer, or on
# record/omissions.txt, in C and (Open MPI) in every Fortran binding; for the MPICH build too.
# A doctored layer without one C wrapper, one Fortran symbol form or one f08 entry point fails,
# naming it. Also: the generator refuses a broken description.
. "$(dirname "$0")/lib.sh"
COV=$(dirname "$0")/../../scripts/layer-coverage
LIB=$BUILD/libparastack-mpi.so
LIBMPI=$(mpicc --showme:libdirs | awk '{ print $1 }')/libmpi.so

run sh "$COV" "$LIB" "$LIBMPI"
expect_status "Open MPI: covered" 0
expect_grep "Open MPI: what it counted" "libmpi.so: [0-9]* calls that block or communicate; [0-9]* wrapped, [0-9]* omitted on purpose" "$OUT"
if [ -f "$BUILD/mpich/libparastack-mpi.so" ]; then
	run sh "$COV" "$BUILD/mpich/libparastack-mpi.so" "$(cc -print-file-name=libmpich.so)"
	expect_status "MPICH: covered" 0
fi

# doctor SYMBOL: the layer's symbols without SYMBOL; the check must fail naming it.
doctor() {
	nm -D --defined-only "$LIB" | awk '{ print $3 }' | grep -vx "$1" >"$TMP/layer.txt"
	run sh "$COV" "$TMP/layer.txt" "$LIBMPI"
	expect_status "without $1: fails" 1
	expect_grep "without $1: named" " $1\( \|$\)" "$OUT"
}
doctor MPI_Ineighbor_alltoallw
doctor MPI_File_write_at_all_end
doctor mpi_alltoall__
doctor MPI_WAITANY
doctor mpi_allreduce_f08_

# Every Fortran form of the wrapped calls is in the layer: the four of mpif.h and `use mpi`,
# and `use mpi_f08`'s.
for s in mpi_alltoall_ mpi_alltoall__ mpi_alltoall MPI_ALLTOALL mpi_alltoall_f08_ mpi_waitany_ mpi_comm_split_type_f08_; do
	if nm -D --defined-only "$LIB" | awk '{ print $3 }' | grep -qx "$s"; then ok; else fail "the layer lacks $s"; fi
done

# The generator: a bad role and a missing BYTES parameter are refused with the line named.
printf 'Send | sned | count,datatype | const void *buf, int count\n' >"$TMP/bad.api"
run python3 "$(dirname "$0")/../../record/gen_wrappers.py" "$TMP/bad.api" "$TMP/gen"
expect_error "generator: unknown role" 1 "line 1: unknown role 'sned'"
printf 'Send | send | count,type | const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm\n' >"$TMP/bad.api"
run python3 "$(dirname "$0")/../../record/gen_wrappers.py" "$TMP/bad.api" "$TMP/gen"
expect_error "generator: a BYTES parameter that is not there" 1 "Send: no parameter 'type'"
finish
