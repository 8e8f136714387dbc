#!/bin/sh
# Every variant of every HPL.dat line, on 1 to 4 ranks in the shapes 1x1,
# 1x2, 2x1, 2x2, 1x3, 3x1 and 1x4, with N not a multiple of NB (67 over 8
# or 5): each grid runs combinations of PFACT, NBMIN, NDIV, RFACT, BCAST and
# DEPTH (HPL's loops), and the grids between them cover SWAP (bin-exch, long,
# mix), the swap threshold, the L1 and U forms, equilibration and both
# process maps.
# Every test must pass its residual check, and the report must count them.
. "$(dirname "$0")/lib.sh"

# PFACT x RFACT x NBMIN x DEPTH everywhere; BCAST's seven where there is a
# row to broadcast along (Q > 1); NB and NDIV alternate between the grids.
one() { # NP P Q TRANSPORTS NB NDIV LINE-26..31 SETTINGS...
    np=$1 P=$2 Q=$3 tl=$4 nb=$5 ndiv=$6; shift 6
    bc=0
    [ "$Q" -gt 1 ] && bc="0 1 2 3 4 5 6"
    set -- n=67 "nb=$nb" "ndiv=$ndiv" "pfact=0 1 2" "rfact=0 1 2" "nbmin=1 3" "depth=0 1 2" "bcast=$bc" "p=$P" "q=$Q" "$@"
    dat "$T/HPL.dat" "$@"
    tests=$((3 * 3 * 2 * 3 * $(echo $bc | wc -w) * $(echo $ndiv | wc -w)))
    BOLT_TRANSPORTS=$tl hpl "$np" --dat HPL.dat
    got=$(counts)
    shift 10
    if [ "$rc" -ne 0 ] || [ "$got" != "$tests 0 0" ]; then
        fail "BOLT_TRANSPORTS=$tl $P x $Q NB=$nb ($*): exit $rc, passed/failed/skipped $got, expected $tests 0 0"
    else
        echo "pass: BOLT_TRANSPORTS=$tl $P x $Q NB=$nb NDIV $ndiv ($*): $tests tests PASSED"
    fi
}
one 1 1 1 shm,tcp 8 "2 3" swap=2 swthr=16 l1=0 u=0 equil=1 pmap=0
one 2 1 2 shm,tcp 5 2 swap=0 l1=1 u=1 equil=0 pmap=1
one 2 2 1 shm,tcp 8 "2 3" swap=1 l1=0 u=1 equil=1 pmap=0
one 4 2 2 shm,tcp 8 3 swap=2 swthr=8 l1=1 u=0 equil=0 pmap=1
one 3 1 3 shm,tcp 8 2 swap=1 l1=1 u=1 equil=1 pmap=0
one 3 3 1 shm,tcp 5 "2 3" swap=0 l1=0 u=0 equil=1 pmap=1
one 3 3 1 shm,tcp 8 2 swap=1 l1=1 u=0 equil=1 pmap=0
one 4 1 4 shm,tcp 5 3 swap=2 swthr=4 l1=0 u=1 equil=1 pmap=0
# TCP alone: the panels and swaps move only when their sender is in the library
one 4 2 2 tcp 5 2 swap=1 l1=0 u=0 equil=1 pmap=0
one 3 3 1 tcp 8 2 swap=2 swthr=16 l1=1 u=1 equil=0 pmap=1
# Wide enough that the swaps across process rows go in several windows of
# columns (NB 192: 512 a window with a 1 MiB L2) and the updates poll in
# widening chunks while panels fly: 2 x 1, 2 x 2 and 3 x 1 at N = 1300, both
# exchanges, U in both forms, depths 0 to 2, the ring and Bolt's broadcasts.
wide() { # NP P Q SETTINGS...
    np=$1 P=$2 Q=$3; shift 3
    dat "$T/HPL.dat" n=1300 nb=192 "depth=0 1 2" "p=$P" "q=$Q" "$@"
    tests=$((3 * $(echo "$*" | sed -n 's/.*bcast=\([0-9 ]*\).*/\1/p' | wc -w)))
    [ "$tests" -gt 0 ] || tests=3
    hpl "$np" --dat HPL.dat
    got=$(counts)
    if [ "$rc" -ne 0 ] || [ "$got" != "$tests 0 0" ]; then
        fail "wide $P x $Q ($*): exit $rc, passed/failed/skipped $got, expected $tests 0 0"
    else
        echo "pass: wide $P x $Q N=1300 NB=192 ($*): $tests tests PASSED"
    fi
}
wide 2 2 1 swap=1 u=0
wide 2 2 1 swap=0 u=1
wide 3 3 1 swap=1 u=1 equil=1
wide 4 2 2 swap=2 swthr=64 u=0 "bcast=1 6"
# bolt-hpl's own threads (one process row, --threads 2): the workers update
# while the main thread factors the next panel. Every PFACT x RFACT x DEPTH
# with U and L1 in both forms, small and wide enough for many work items.
threads() { # NP P Q N NB SETTINGS...
    np=$1 P=$2 Q=$3 n=$4 nb=$5; shift 5
    dat "$T/HPL.dat" "n=$n" "nb=$nb" "pfact=0 1 2" "rfact=0 1 2" "depth=0 1 2" "p=$P" "q=$Q" "$@"
    hpl "$np" --dat HPL.dat --threads 2
    got=$(counts)
    if [ "$rc" -ne 0 ] || [ "$got" != "27 0 0" ] || ! grep -q "2 threads a rank" "$T/out"; then
        fail "threads $P x $Q N=$n ($*): exit $rc, passed/failed/skipped $got, expected 27 0 0"
    else
        echo "pass: --threads 2, $P x $Q N=$n NB=$nb ($*): 27 tests PASSED"
    fi
}
threads 1 1 1 67 8 l1=0 u=0
threads 1 1 1 700 64 l1=1 u=1
threads 2 1 2 900 64 l1=0 u=1 bcast=6
threads 1 1 1 1300 96 l1=1 u=0
finish
