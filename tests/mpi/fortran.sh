#!/bin/sh
# The Fortran bindings: boltfort's options; mpif.h and the mpi module hold
# every integer constant of mpi.h with C's value; libmpifort has a Fortran
# routine for every MPI function libmpi exports (but the C-only ones); the
# Fortran test programs (fort_*.f90 through `use mpi`, fort_legacy.f through
# mpif.h in fixed form), built with boltfort, pass at 1 to 4 ranks under
# boltrun; a Fortran PMPI tool intercepts calls; an invalid call ends the
# job with the face's message; then, where Open MPI is installed, the same
# sources built with its mpifort pass under its mpirun (a test is trusted
# only once they do there).
# Skipped (77) when configure found no Fortran compiler.
. "$TOP_SRCDIR/tests/integration/lib.sh"
if [ -z "${BOLT_TEST_FC:-}" ]; then
    echo "SKIP: no Fortran compiler (configure found no gfortran 9 or later): the Fortran bindings are not built"
    exit 77
fi
S="$TOP_SRCDIR/tests/mpi"
export BOLTFORT_INCDIR="$TOP_BUILDDIR/mpi/fortran" BOLTFORT_LIBDIR="$TOP_BUILDDIR/.libs"
FORT="$TOP_BUILDDIR/boltfort"
# A sanitizer build's libraries need programs built with the sanitizer too.
case "${BOLT_TEST_CFLAGS:-}" in
*-fsanitize=*)
    export BOLTFORT_FC="$BOLT_TEST_FC -fsanitize=address,undefined -fno-omit-frame-pointer"
    export BOLTCC_CC="${BOLT_TEST_CC:-cc} -fsanitize=address,undefined -fno-omit-frame-pointer" ;;
esac
export BOLTCC_INCDIR="$TOP_SRCDIR/mpi" BOLTCC_LIBDIR="$TOP_BUILDDIR/.libs"
W="$TOP_BUILDDIR/tests/mpi/fortran-work"
rm -rf "$W"
mkdir -p "$W/bolt" "$W/ompi"

check() { # WHAT COMMAND...
    what=$1; shift
    if out=$("$@" 2>&1); then
        echo "pass: $what"; passes=$((passes + 1))
    else
        echo "FAIL: $what: $out"; fails=$((fails + 1))
    fi
}

# ---- boltfort's options --------------------------------------------------------
check "boltfort --showme:compile names the folder of mpif.h and mpi.mod" \
    sh -c "'$FORT' --showme:compile | grep -q -- '-I$BOLTFORT_INCDIR'"
check "boltfort --showme:link links libmpifort and libmpi" \
    sh -c "'$FORT' --showme:link | grep -q -- '-lmpifort -lmpi'"
check "boltfort --showme -c omits link flags" sh -c "! '$FORT' --showme -c x.f90 | grep -q -- -lmpifort"
check "boltfort --version names the compiler" sh -c "'$FORT' --version | grep -q 'boltfort (Bolt'"
check "boltfort refuses 8-byte default INTEGERs" sh -c "! '$FORT' -fdefault-integer-8 -c x.f90 2>/dev/null"
# The rest of the family boltcc and boltc++ take (Open MPI's and MPICH's names).
for o in -showme:compile -compile-info; do
    check "boltfort $o" sh -c "'$FORT' $o | grep -q -- '-I$BOLTFORT_INCDIR'"
done
for o in -showme:link -link-info; do
    check "boltfort $o" sh -c "'$FORT' $o | grep -q -- '-L$BOLTFORT_LIBDIR .*-lmpifort -lmpi -lbolt'"
done
check "boltfort --showme:incdirs" sh -c "[ \"\$('$FORT' --showme:incdirs)\" = '$BOLTFORT_INCDIR' ]"
check "boltfort --showme:libdirs" sh -c "[ \"\$('$FORT' --showme:libdirs)\" = '$BOLTFORT_LIBDIR' ]"
check "boltfort --showme:libs" sh -c "[ \"\$('$FORT' --showme:libs)\" = 'mpifort mpi bolt' ]"
check "boltfort --showme:command" sh -c "[ \"\$(BOLTFORT_FC=my-fc '$FORT' --showme:command)\" = my-fc ]"
check "boltfort refuses an unknown --showme:" sh -c "! '$FORT' --showme:nonesuch 2>/dev/null"
check "boltfort -show links" sh -c "'$FORT' -show -o x x.o | grep -q -- '-o x x.o -L.*-lmpifort'"

# ---- constants: every integer constant of mpi.h, in mpif.h and the mpi module ---------------
# The names from mpi.h's text; a C program prints those with integer values
# (the others are pointers: Fortran has sentinels for them) as C sees them.
names=$(sed -n 's/^#define \(MPI_[A-Z0-9_]*\)[ 	].*/\1/p' "$TOP_SRCDIR/mpi/mpi.h" | sort -u)
{
    echo '#include <stdio.h>'
    echo '#include "mpi.h"'
    echo '#define ISINT(x) _Generic((x), char: 1, signed char: 1, unsigned char: 1, short: 1, unsigned short: 1, int: 1, unsigned: 1, long: 1, unsigned long: 1, long long: 1, unsigned long long: 1, default: 0)'
    printf '%s\n' '#define P(x) if (ISINT(x)) printf("%s %lld\n", #x, ISINT(x) ? (long long)(x) : 0LL);'
    echo 'int main(void) {'
    for n in $names; do echo "P($n)"; done
    echo 'return 0; }'
} >"$W/consts.c"
# shellcheck disable=SC2086
if ${BOLTCC_CC:-${BOLT_TEST_CC:-cc}} -std=c11 -w -I"$BOLTCC_INCDIR" -o "$W/consts_c" "$W/consts.c" >"$W/consts_c.log" 2>&1 &&
    "$W/consts_c" >"$W/consts.c.out"; then
    for form in mpif module; do
        {
            echo "program consts_$form"
            if [ $form = mpif ]; then echo "  implicit none"; echo "  include 'mpif.h'"; else echo "  use mpi"; echo "  implicit none"; fi
            awk '{printf "  write (*, '"'"'(A,1X,I0)'"'"') '"'"'%s'"'"', %s\n", $1, $1}' "$W/consts.c.out"
            echo "end program consts_$form"
        } >"$W/consts_$form.f90"
        if ! "$FORT" -o "$W/consts_$form" "$W/consts_$form.f90" >"$W/consts_$form.log" 2>&1; then
            echo "FAIL: constants: a program that prints them through $form does not build (a constant missing?):"
            grep -E 'Error|Symbol' "$W/consts_$form.log" | head -n 20
            fails=$((fails + 1))
        elif ! "$W/consts_$form" >"$W/consts.$form.out" 2>&1 || ! diff "$W/consts.c.out" "$W/consts.$form.out" >"$W/consts.$form.diff"; then
            echo "FAIL: constants: Fortran ($form) and C values differ (< C, > Fortran):"
            head -n 20 "$W/consts.$form.diff"
            fails=$((fails + 1))
        else
            echo "pass: constants: the $(wc -l <"$W/consts.c.out" | tr -d ' ') integer constants of mpi.h have C's values in $form"
            passes=$((passes + 1))
        fi
    done
else
    echo "FAIL: constants: the C program does not build or run:"; tail -n 20 "$W/consts_c.log"
    fails=$((fails + 1))
fi

# ---- bindings: a Fortran routine for every MPI function libmpi exports --------------------
lib=
for f in "$TOP_BUILDDIR/.libs/libmpi.so" "$TOP_BUILDDIR/.libs/libmpi.dylib"; do
    [ -f "$f" ] && lib=$f && break
done
if [ -n "$lib" ]; then
    syms() { # LIB: the defined dynamic symbols (macOS's nm prefixes C names with '_')
        case "$1" in
        *.dylib) nm -gU "$1" | awk '{print $3}' | sed 's/^_//' ;;
        *) nm -D --defined-only "$1" | awk '{print $3}' ;;
        esac | sed 's/@.*//'
    }
    # MPI_ functions (mixed case: the uppercase names are the predefined
    # callbacks), less the C-only ones: the tools interface and the handle
    # conversions.
    syms "$lib" | grep -E '^MPI_[A-Z][a-z0-9_]*$' | grep -Ev '^MPI_T_|_(c2f|f2c|c2f08|f082c)$' |
        tr 'A-Z' 'a-z' | sed 's/$/_/' | sort -u >"$W/want"
    syms "$(echo "$lib" | sed 's/libmpi\./libmpifort./')" | grep -E '^mpi_[a-z0-9_]*_$' | sort -u >"$W/have"
    comm -23 "$W/want" "$W/have" | sed 's/_$//' >"$W/missing"
    nmiss=$(wc -l <"$W/missing" | tr -d ' ')
    if [ "$nmiss" -eq 0 ]; then
        echo "pass: bindings: libmpifort has a Fortran routine for each of the $(wc -l <"$W/want" | tr -d ' ') MPI functions of libmpi (but MPI_T_ and the handle conversions)"
        passes=$((passes + 1))
    else
        echo "FAIL: bindings: $nmiss MPI functions of libmpi have no Fortran routine (see mpi/fortran/genbind.awk's mode=missing):"
        sed 's/^/  /' "$W/missing"
        fails=$((fails + 1))
    fi
else
    echo "(no shared libmpi: the comparison of exported routines is skipped)"
fi

# ---- programs -------------------------------------------------------------------------
PROGS="fort_p2p fort_coll fort_types fort_comm fort_legacy"
srcs() { # PROG: its sources
    case $1 in
    *_legacy) echo "$S/$1.f" ;;
    *) echo "$S/ftest.f90 $S/$1.f90" ;;
    esac
}
for p in ${BOLT_FORTRAN_TESTS:-$PROGS}; do
    # (cd: gfortran writes the ftest module where it runs)
    # shellcheck disable=SC2046
    if ! (cd "$W/bolt" && "$FORT" -O1 -o "$p" $(srcs "$p")) >"$W/bolt/$p.log" 2>&1; then
        echo "FAIL: boltfort cannot build $p:"; tail -n 20 "$W/bolt/$p.log"
        fails=$((fails + 1)); continue
    fi
    for np in 1 2 3 4; do run "$np" "$W/bolt/$p"; done
done

# Bolt only: a Fortran profiling tool (its MPI_SEND in front of libmpifort's,
# calling PMPI_SEND) sees the program's sends; an invalid call from Fortran
# ends the job with the face's message.
# shellcheck disable=SC2046
if (cd "$W/bolt" && "$FORT" -o fort_tool "$S/fort_legacy.f" "$S/fort_pmpi_tool.f") >"$W/bolt/fort_tool.log" 2>&1; then
    out=$("$BOLTRUN" --timeout 120 -np 2 "$W/bolt/fort_tool" 2>&1)
    if printf '%s\n' "$out" | grep -q "fort_legacy: ok" && printf '%s\n' "$out" | grep -Eq "rank 0 intercepted [1-9][0-9]* MPI_SEND"; then
        echo "pass: a Fortran PMPI tool intercepted MPI_SEND"; passes=$((passes + 1))
    else
        echo "FAIL: Fortran PMPI interposition: $out"; fails=$((fails + 1))
    fi
else
    echo "FAIL: boltfort cannot build fort_legacy with fort_pmpi_tool:"; tail -n 20 "$W/bolt/fort_tool.log"
    fails=$((fails + 1))
fi
if (cd "$W/bolt" && "$FORT" -o fort_fatal "$S/fort_fatal.f90") >"$W/bolt/fort_fatal.log" 2>&1; then
    out=$("$BOLTRUN" --timeout 60 -np 3 "$W/bolt/fort_fatal" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q "rank 2 on .*MPI_Send: rank 6 is out of range.*MPI_ERR_RANK" &&
        ! printf '%s\n' "$out" | grep -q survived; then
        echo "pass: an invalid MPI_Send from Fortran ended the job: $(printf '%s\n' "$out" | grep MPI_ERR_RANK | head -n 1)"
        passes=$((passes + 1))
    else
        echo "FAIL: an invalid MPI_Send from Fortran (exit $rc):"; printf '%s\n' "$out" | tail -n 15
        fails=$((fails + 1))
    fi
else
    echo "FAIL: boltfort cannot build fort_fatal:"; tail -n 20 "$W/bolt/fort_fatal.log"
    fails=$((fails + 1))
fi

if [ "${BOLT_TEST_CROSSCHECK:-1}" = 0 ]; then
    echo "SKIP: the cross-check on Open MPI runs in the normal build's suite (BOLT_TEST_CROSSCHECK=0)"
    finish
    exit $?
fi
if [ -z "${BOLT_TEST_OMPI_MPIFORT:-}" ] || ! command -v mpirun.openmpi >/dev/null 2>&1; then
    echo "SKIP: Open MPI's mpifort is not installed here: the Fortran programs were not cross-checked on it"
    finish
    exit $?
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's wrapper does not add it: mpif.h codes need it with gfortran 10+.
mismatch=$(cd "$W/ompi" && echo 'end' >t.f90 && "$BOLT_TEST_FC" -fallow-argument-mismatch -c t.f90 >/dev/null 2>&1 &&
    echo -fallow-argument-mismatch)
for p in ${BOLT_FORTRAN_TESTS:-$PROGS}; do
    # shellcheck disable=SC2046,SC2086
    if ! (cd "$W/ompi" && "$BOLT_TEST_OMPI_MPIFORT" -O1 $mismatch -o "$p" $(srcs "$p")) >"$W/ompi/$p.log" 2>&1; then
        echo "FAIL: Open MPI's mpifort cannot build $p:"; tail -n 20 "$W/ompi/$p.log"
        fails=$((fails + 1)); continue
    fi
    for np in 1 2 3 4; do
        out=$(timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np" \
              --mca btl self,vader,tcp --mca btl_tcp_if_include lo "$W/ompi/$p" 2>&1)
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
