#!/bin/sh
# Every MPI test program with 1 to 4 ranks: built against Bolt and run under
# boltrun; then, where Open MPI is installed, the same source built with its
# mpicc and run under its mpirun (a test is only trusted if it passes there).
. "$TOP_SRCDIR/tests/integration/lib.sh"
M="$TOP_BUILDDIR/tests/mpi"
PROGS="${BOLT_MPI_TESTS:-mpi_env mpi_p2p mpi_dtype mpi_comm mpi_coll}"
for p in $PROGS; do
    for np in 1 2 3 4; do run "$np" "$M/$p"; done
done

if [ -z "${BOLT_TEST_OMPI_MPICC:-}" ] || ! command -v mpirun.openmpi >/dev/null 2>&1; then
    echo "SKIP: Open MPI is not installed here: the programs were not cross-checked on it"
    finish
    exit $?
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$M/ompi"
for p in $PROGS; do
    if ! "$BOLT_TEST_OMPI_MPICC" -std=gnu11 -O1 -o "$M/ompi/$p" "$TOP_SRCDIR/tests/mpi/$p.c" 2>"$M/ompi/$p.cc.log"; then
        echo "FAIL: Open MPI's mpicc cannot build $p.c:"; cat "$M/ompi/$p.cc.log"
        fails=$((fails + 1)); continue
    fi
    for np in 1 2 3 4; do
        out=$(timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np" \
              --mca btl self,vader,tcp --mca btl_tcp_if_include lo "$M/ompi/$p" 2>&1)
        rc=$?
        if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q ' ok'; then
            echo "FAIL: Open MPI: mpirun -np $np $p (exit $rc)"; printf '%s\n' "$out" | tail -n 20
            fails=$((fails + 1))
        else
            echo "pass: Open MPI: mpirun -np $np $p"; passes=$((passes + 1))
        fi
    done
done
finish
