#!/bin/sh
# boltcc and boltc++ build unchanged MPI programs (from this build tree), the
# results run under boltrun, the --showme family (and MPICH's -show,
# -compile-info, -link-info) prints what they would run, mpi.h compiles
# warning-free under -pedantic in every C and C++ standard, and a profiling
# tool linked in front intercepts MPI_ calls through the PMPI_ names.
. "$TOP_SRCDIR/tests/integration/lib.sh"
export BOLTCC_INCDIR="$TOP_SRCDIR/mpi" BOLTCC_LIBDIR="$TOP_BUILDDIR/.libs"
CC_BOLT="$TOP_BUILDDIR/boltcc"
CXX_BOLT="$TOP_BUILDDIR/boltc++"
# A sanitizer build's libmpi needs programs built with the sanitizer too.
case "${BOLT_TEST_CFLAGS:-}" in
*-fsanitize=*)
    san="-fsanitize=address,undefined -fno-omit-frame-pointer"
    export BOLTCC_CC="${BOLT_TEST_CC:-cc} $san" BOLTCXX_CXX="${BOLT_TEST_CXX:-c++} $san" ;;
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
# Both wrappers answer the same questions, Open MPI's way and MPICH's.
for w in "$CC_BOLT" "$CXX_BOLT"; do
    n=$(basename "$w")
    for o in --showme:compile -showme:compile -compile-info; do
        check "$n $o names mpi.h's folder" sh -c "[ \"\$('$w' $o)\" = '-I$BOLTCC_INCDIR' ]"
    done
    for o in --showme:link -showme:link -link-info; do
        check "$n $o links libmpi" sh -c "'$w' $o | grep -q -- '-L$BOLTCC_LIBDIR .*-lmpi -lbolt'"
    done
    check "$n --showme:incdirs" sh -c "[ \"\$('$w' --showme:incdirs)\" = '$BOLTCC_INCDIR' ]"
    check "$n --showme:libdirs" sh -c "[ \"\$('$w' --showme:libdirs)\" = '$BOLTCC_LIBDIR' ]"
    check "$n --showme:libs" sh -c "[ \"\$('$w' --showme:libs)\" = 'mpi bolt' ]"
    check "$n --showme:version names Bolt" sh -c "'$w' --showme:version | grep -q '^$n (Bolt '"
    check "$n refuses an unknown --showme:" sh -c "! '$w' --showme:nonesuch 2>/dev/null"
    check "$n --showme -c omits link flags" sh -c "out=\$('$w' --showme -c x.c) && ! echo \"\$out\" | grep -q -- -lmpi && echo \"\$out\" | grep -q -- '-I$BOLTCC_INCDIR -c x.c'"
    check "$n -show links" sh -c "'$w' -show -o x x.o | grep -q -- '-o x x.o -L.*-lmpi'"
done
# Each uses its language's compiler, and its own variable overrides it.
check "boltcc compiles with the C compiler" sh -c "[ \"\$(BOLTCC_CC=my-cc '$CC_BOLT' --showme:command)\" = my-cc ]"
check "boltc++ compiles with the C++ compiler" sh -c "[ \"\$(BOLTCXX_CXX=my-cxx '$CXX_BOLT' --showme:command)\" = my-cxx ]"
check "boltc++ defaults to configure's C++ compiler" sh -c "'$CXX_BOLT' --showme:command | grep -q '^${BOLT_TEST_CXX:-c++}'"
# mpi.h alone, warning-free under -pedantic -Werror in every standard.
for std in c89 c99 c11 c17; do
    check "mpi.h under boltcc -std=$std -pedantic" sh -c "echo '#include <mpi.h>' | '$CC_BOLT' -std=$std -Wall -Wextra -pedantic -Werror -fsyntax-only -x c -"
done
for std in c++98 c++11 c++17 c++20; do
    check "mpi.h under boltc++ -std=$std -pedantic" sh -c "echo '#include <mpi.h>' | '$CXX_BOLT' -std=$std -Wall -Wextra -pedantic -Werror -fsyntax-only -x c++ -"
done
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
check "boltc++ builds mpi_cxx.cc unchanged (-Wall -Wextra -pedantic -Werror)" "$CXX_BOLT" -std=c++11 -O1 \
    -Wall -Wextra -pedantic -Werror -o "$W/mpi_cxx" "$TOP_SRCDIR/tests/mpi/mpi_cxx.cc"
run 3 "$W/mpi_cxx"
finish
