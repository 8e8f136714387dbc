#!/bin/sh
# hpl.sh — bolt-hpl across the four hosts over TCP (the mesh cables): one
# rank a host on a 2 x 2 grid and two a host on 2 x 4 (shared memory inside a
# host), ring, spread-roll and Bolt's broadcasts, both swap algorithms:
# every residual PASSED.
. "$(dirname "$0")/lib.sh"

HPL="$TOP_BUILDDIR/bolt-hpl"
[ -x "$HPL" ] || { echo "SKIP: bolt-hpl is not built (configure found no BLAS)"; exit 77; }
dat() { # FILE P Q SWAP
    cat >"$1" <<DAT
HPLinpack benchmark input file
bolt-hpl on the cluster
HPL.out      output file name (if any)
6            device out (6=stdout,7=stderr,file)
2            # of problems sizes (N)
400 517      Ns
1            # of NBs
32           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$2           Ps
$3           Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
3            # of broadcast
1 4 6        BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM,6=Bolt)
2            # of lookahead depth
0 1          DEPTHs (>=0)
$4           SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
1            L1 in (0=transposed,1=no-transposed) form
1            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
DAT
}
check() { # WHAT
    expect_rc 0 "$1"
    n=$(grep -c 'PASSED$' "$T/out")
    [ "$n" -eq 12 ] || fail "$1: $n of 12 tests PASSED"
    grep -q '^ *12 tests completed and passed residual checks,$' "$T/out" || fail "$1: the summary"
    echo "hpl: $1: 12 tests PASSED"
}
dat "$T/HPL.dat" 2 2 1
run --host "$CL_HOSTS" -np 4 -x BOLT_TRANSPORTS=shm,tcp -x OPENBLAS_NUM_THREADS=1 "$HPL" --dat "$T/HPL.dat"
check "2 x 2, a rank a host, long swaps"
dat "$T/HPL.dat" 2 4 0
run --host h1:2,h2:2,h3:2,h4:2 -np 8 -x BOLT_TRANSPORTS=shm,tcp -x OPENBLAS_NUM_THREADS=1 "$HPL" --dat "$T/HPL.dat"
check "2 x 4, two ranks a host, bin-exch swaps"
