#!/bin/sh
# boltcc builds an unchanged MPI program (from this build tree), the result
# runs under boltrun, --showme prints what it would run, and a profiling
# tool linked in front intercepts MPI_ calls through the PMPI_ names.
. "$TOP_SRCDIR/tests/integration/lib.sh"
export BOLTCC_INCDIR="$TOP_SRCDIR/mpi" BOLTCC_LIBDIR="$TOP_BUILDDIR/.libs"
CC_BOLT="$TOP_BUILDDIR/boltcc"
# A sanitizer build's libmpi needs programs built with the sanitizer too.
case "${BOLT_TEST_CFLAGS:-}" in
*-fsanitize=*) export BOLTCC_CC="${BOLT_TEST_CC:-cc} -fsanitize=address,undefined -fno-omit-frame-pointer" ;;
esac
W="$TOP_BUILDDIR/tests/mpi/boltcc-work"
mkdir -p "$W"

check() { # WHAT COMMAND...
    what=$1; shift
    if out=$("$@" 2>&1); then
        echo "pass: $what"; passes=$((passes + 1))
    else
        echo "FAIL: $what: $out"; fails=$((fails + 1))
    fi
}
check "boltcc --showme:compile names mpi.h's folder" sh -c "'$CC_BOLT' --showme:compile | grep -q -- '-I$BOLTCC_INCDIR'"
check "boltcc --showme:link links libmpi" sh -c "'$CC_BOLT' --showme:link | grep -q -- '-lmpi'"
check "boltcc --showme -c omits link flags" sh -c "! '$CC_BOLT' --showme -c x.c | grep -q -- -lmpi"
check "boltcc builds mpi_p2p.c unchanged" "$CC_BOLT" -std=gnu11 -O1 -o "$W/mpi_p2p" "$TOP_SRCDIR/tests/mpi/mpi_p2p.c"
run 3 "$W/mpi_p2p"
check "boltcc builds a PMPI tool with a program" "$CC_BOLT" -std=gnu11 -O1 -o "$W/mpi_p2p_tool" \
    "$TOP_SRCDIR/tests/mpi/mpi_p2p.c" "$TOP_SRCDIR/tests/mpi/pmpi_tool.c"
out=$("$BOLTRUN" --timeout 120 -np 2 "$W/mpi_p2p_tool" 2>&1)
if printf '%s\n' "$out" | grep -q "mpi_p2p: ok" && printf '%s\n' "$out" | grep -Eq "rank 0 intercepted [1-9][0-9]* MPI_Send"; then
    echo "pass: the PMPI tool intercepted MPI_Send"; passes=$((passes + 1))
else
    echo "FAIL: PMPI interposition: $out"; fails=$((fails + 1))
fi
finish
