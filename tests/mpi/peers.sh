#!/bin/sh
# peers.sh — real MPI programs nobody on the project wrote, unmodified, built
# with Bolt's wrappers exactly as their instructions say and run under boltrun
# with their own correctness checks:
#   OSU Micro-Benchmarks 7.4 (C): autoreconf -fi, ./configure CC=boltcc
#     CXX=boltc++, make; every benchmark that has -c runs with it (each size's
#     line must say Pass), the others must run to their end; one-sided ones
#     run in every synchronisation mode and window flavour
#     (osu_rma_validated); osu_latency_mt runs with several
#     threads per rank (MPI_THREAD_MULTIPLE, granted by default), and stops
#     on its need for it with BOLT_THREAD_MULTIPLE=0.
#   osu_bw_fan_in/out run on two hosts of tests/cluster where it can (root).
#   HPCG (C++): setup/Make.Bolt (tests/mpi/peers/) names boltc++, make
#     arch=Bolt; a short run must report "HPCG result is VALID".
# The sources come from ../shared/peers next to the source tree (BOLT_PEERS
# overrides; set but incomplete is a failure, absent a skip), copied into
# the build folder: never changed, never part of Bolt. Takes about 3 minutes
# on 2 cores, most of it building the programs.
. "$TOP_SRCDIR/tests/integration/lib.sh"
PEERS=${BOLT_PEERS:-$TOP_SRCDIR/../shared/peers}
OSU_SRC="$PEERS/osu-micro-benchmarks-7.4"
HPCG_SRC="$PEERS/hpcg"
if [ ! -f "$OSU_SRC/configure.ac" ] || [ ! -f "$HPCG_SRC/src/main.cpp" ]; then
    if [ -n "${BOLT_PEERS:-}" ]; then
        echo "FAIL: BOLT_PEERS=$BOLT_PEERS holds no osu-micro-benchmarks-7.4/ and hpcg/"
        exit 1
    fi
    echo "SKIP: no peer programs in $PEERS (OSU Micro-Benchmarks 7.4 and HPCG sources; set BOLT_PEERS)"
    exit 77
fi
for tool in autoreconf make; do
    command -v $tool >/dev/null || { echo "SKIP: $tool is needed to build the peer programs"; exit 77; }
done
W="$TOP_BUILDDIR/tests/mpi/peers-work"
[ -d "$W" ] && chmod -R u+w "$W"
rm -rf "$W"
mkdir -p "$W/bin"

# The build tree's wrappers under their installed names, on PATH.
ln -s "$TOP_BUILDDIR/boltcc" "$W/bin/boltcc"
ln -s "$TOP_BUILDDIR/boltc++" "$W/bin/boltc++"
PATH="$W/bin:$PATH"
export BOLTCC_INCDIR="$TOP_SRCDIR/mpi" BOLTCC_LIBDIR="$TOP_BUILDDIR/.libs" PATH
# A sanitizer build's libmpi needs programs built with the sanitizer too.
case "${BOLT_TEST_CFLAGS:-}" in
*-fsanitize=*)
    san="-fsanitize=address,undefined -fno-omit-frame-pointer"
    export BOLTCC_CC="${BOLT_TEST_CC:-cc} $san" BOLTCXX_CXX="${BOLT_TEST_CXX:-c++} $san"
    # The programs' own leaks at exit are theirs, not Bolt's.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" ;;
esac
# The programs' makes are not part of make check's.
unset MAKEFLAGS MFLAGS MAKELEVEL

ok() { echo "pass: $*"; passes=$((passes + 1)); }
t0=$(date +%s)
since() { echo "$(( $(date +%s) - $1 )) s"; } # since START: seconds elapsed
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# MPI functions a build log says are missing from libmpi.
missing() {
    grep -oE "undefined reference to .P?MPI_[A-Za-z0-9_]*|\"_P?MPI_[A-Za-z0-9_]*\", referenced" "$1" |
        grep -oE "P?MPI_[A-Za-z0-9_]*" | sort -u | tr '\n' ' '
}

# ---- OSU Micro-Benchmarks ------------------------------------------------------
# (The copies are made writable: the originals may be read-only.)
cp -R "$OSU_SRC" "$W/osu" && chmod -R u+w "$W/osu"
if (cd "$W/osu" && autoreconf -fi && ./configure CC=boltcc CXX=boltc++ && make -k) >"$W/osu-build.log" 2>&1; then
    ok "OSU Micro-Benchmarks 7.4 built with boltcc (autoreconf -fi, ./configure CC=boltcc CXX=boltc++, make) in $(since "$t0")"
else
    bad "OSU Micro-Benchmarks 7.4 did not build with boltcc (see $W/osu-build.log); missing from libmpi: $(missing "$W/osu-build.log")"
    tail -n 5 "$W/osu-build.log"
fi
O="$W/osu/c/mpi"
# Small sizes (-m) and few iterations: correctness, not speed. -T all:
# MPI_CHAR, MPI_INT and MPI_FLOAT, where it does not take too long. TL set:
# the runs use BOLT_TRANSPORTS=$TL (TCP alone for some), else the default.
TL=

# built BENCH: whether it was built; those that were not are failures,
# listed once at the end.
notbuilt=
built() {
    [ -x "$O/$1" ] && return 0
    case " $notbuilt " in *" $(basename "$1") "*) ;; *) notbuilt="$notbuilt $(basename "$1")" ;; esac
    return 1
}
# osu NP BENCH ARGS...: the run succeeds and every size's line says Pass
# (3 iterations after 1 warm-up, 1 validation warm-up).
osu() {
    o_np=$1 o_b=$2; shift 2
    what="OSU $(basename "$o_b") -np $o_np $*${TL:+ (BOLT_TRANSPORTS=$TL)}"
    built "$o_b" || return
    out=$(env ${TL:+BOLT_TRANSPORTS=$TL} "$BOLTRUN" --timeout 60 -np "$o_np" "$O/$o_b" "$@" -i 3 -x 1 -u 1 2>&1)
    rc=$?
    sizes=$(printf '%s\n' "$out" | grep -c '^[0-9]')
    passed=$(printf '%s\n' "$out" | grep -c '^[0-9].* Pass$')
    if [ $rc -ne 0 ] || [ "$sizes" -eq 0 ] || [ "$passed" -ne "$sizes" ]; then
        bad "$what: exit $rc, $passed of $sizes sizes validated"
        printf '%s\n' "$out" | grep -v ' Pass$' | tail -n 15
    else
        ok "$what: $passed sizes validated"
    fi
}
# osu_runs NP BENCH PATTERN ARGS...: a benchmark without validation runs to
# its end and prints PATTERN.
osu_runs() {
    o_np=$1 o_b=$2 o_pat=$3; shift 3
    what="OSU $(basename "$o_b") -np $o_np $*${TL:+ (BOLT_TRANSPORTS=$TL)}"
    built "$o_b" || return
    out=$(env ${TL:+BOLT_TRANSPORTS=$TL} "$BOLTRUN" --timeout 60 -np "$o_np" "$O/$o_b" "$@" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -Eq "$o_pat"; then
        bad "$what: exit $rc, wanted /$o_pat/"; printf '%s\n' "$out" | tail -n 15
    else
        ok "$what: $(printf '%s\n' "$out" | grep -E "$o_pat" | head -n 1)"
    fi
}
# osu_refused NP BENCH WHY PATTERN ARGS...: the job ends with PATTERN (what
# Bolt does not provide yet); one that now runs must be validated instead.
osu_refused() {
    o_np=$1 o_b=$2 o_why=$3 o_pat=$4; shift 4
    what="OSU $(basename "$o_b") -np $o_np $*${TL:+ (BOLT_TRANSPORTS=$TL)}"
    built "$o_b" || return
    out=$(env ${TL:+BOLT_TRANSPORTS=$TL} "$BOLTRUN" --timeout 60 -np "$o_np" "$O/$o_b" "$@" -i 3 -x 1 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
        bad "$what: runs now ($o_why was expected to stop it): check its results instead"
    elif ! printf '%s\n' "$out" | grep -Eq "$o_pat"; then
        bad "$what: exit $rc without /$o_pat/"; printf '%s\n' "$out" | tail -n 15
    else
        ok "$what: stopped as expected ($o_why): $(printf '%s\n' "$out" | grep -E "$o_pat" | head -n 1)"
    fi
}

# osu_sizes NP BENCH MAX ARGS...: a benchmark without validation (-c) runs
# to its end and prints one line for every size from 1 to MAX (a power of 2).
osu_sizes() {
    o_np=$1 o_b=$2 o_max=$3; shift 3
    what="OSU $(basename "$o_b") -np $o_np -m 1:$o_max $*${TL:+ (BOLT_TRANSPORTS=$TL)}"
    built "$o_b" || return
    out=$(env ${TL:+BOLT_TRANSPORTS=$TL} "$BOLTRUN" --timeout 60 -np "$o_np" "$O/$o_b" -m "1:$o_max" "$@" -i 3 -x 1 2>&1)
    rc=$?
    want=1 n=1
    while [ "$n" -lt "$o_max" ]; do n=$((n * 2)) want=$((want + 1)); done
    sizes=$(printf '%s\n' "$out" | grep -cE '^[0-9]+ +[0-9.]+$')
    if [ $rc -ne 0 ] || [ "$sizes" -ne "$want" ] || ! printf '%s\n' "$out" | grep -qE "^$o_max +[0-9.]+$"; then
        bad "$what: exit $rc, $sizes of $want sizes measured"
        printf '%s\n' "$out" | tail -n 15
    else
        ok "$what: every size from 1 to $o_max measured"
    fi
}
# osu_rma_checked NP BENCH ARGS...: a one-sided benchmark with validation
# (-c; these take no -u) succeeds, every size's line says "passed", and no
# rank's summary says FAILED.
osu_rma_checked() {
    o_np=$1 o_b=$2; shift 2
    what="OSU $(basename "$o_b") -np $o_np $*${TL:+ (BOLT_TRANSPORTS=$TL)}"
    built "$o_b" || return
    out=$(env ${TL:+BOLT_TRANSPORTS=$TL} "$BOLTRUN" --timeout 60 -np "$o_np" "$O/$o_b" -c "$@" -i 3 -x 1 2>&1)
    rc=$?
    sizes=$(printf '%s\n' "$out" | grep -c '^[0-9]')
    passed=$(printf '%s\n' "$out" | grep -c '^[0-9].* passed$')
    if [ $rc -ne 0 ] || [ "$sizes" -eq 0 ] || [ "$passed" -ne "$sizes" ] || printf '%s\n' "$out" | grep -q FAILED; then
        bad "$what: exit $rc, $passed of $sizes sizes validated"
        printf '%s\n' "$out" | grep -v ' passed$' | tail -n 15
    else
        ok "$what: $passed sizes validated"
    fi
}
# osu_fop NP SYNC ARGS...: osu_fop_latency with -c where its validation is
# sound. In passive-target modes (lock, flush, flush_local, lock_all) OSU
# 7.4's check is racy: after the first Fetch_and_op the target reads its
# window behind a barrier while the origin goes on adding, so a target that
# progresses on its own (Bolt, Open MPI's osc/sm) sees 2 to 4 additions
# ("Observed Final Value: addr=50, Expected 30") and MPICH passes only for
# applying them when the target next calls MPI. There it must run to its end.
osu_fop() {
    f_np=$1 f_s=$2; shift 2
    case $f_s in
    fence|pscw) osu_rma_checked "$f_np" one-sided/osu_fop_latency -s "$f_s" "$@" ;;
    *) osu_runs "$f_np" one-sided/osu_fop_latency '^[0-9]+ +[0-9.]+$' -s "$f_s" "$@" -i 3 -x 1 ;;
    esac
}
# osu_rma_validated: OSU's one-sided benchmarks at 2 ranks in each
# synchronisation mode they support (-s; osu_put_bibw: fence and pscw) with
# each window flavour (-w create, allocate, dynamic). The three with
# validation (acc, cas, fop latency) run with -c (fop in active-target modes
# only: see osu_fop): every line must say passed;
# the others must measure every size. Over TCP alone too, in their default
# mode with each flavour.
osu_rma_validated() {
    for w in create allocate dynamic; do
        for s in lock flush flush_local lock_all fence pscw; do
            for ob in osu_acc_latency osu_cas_latency; do
                osu_rma_checked 2 "one-sided/$ob" -m 1:65536 -s "$s" -w "$w"
            done
            osu_fop 2 "$s" -w "$w"
            for ob in osu_get_acc_latency osu_get_bw osu_get_latency osu_put_bw osu_put_latency; do
                osu_sizes 2 "one-sided/$ob" 65536 -s "$s" -w "$w"
            done
            case $s in fence|pscw) osu_sizes 2 one-sided/osu_put_bibw 65536 -s "$s" -w "$w" ;; esac
        done
    done
    TL=tcp
    for w in create allocate dynamic; do
        for ob in osu_acc_latency osu_cas_latency; do
            osu_rma_checked 2 "one-sided/$ob" -m 1:65536 -w "$w"
        done
        osu_fop 2 flush -w "$w"
        for ob in osu_get_acc_latency osu_get_bw osu_get_latency osu_put_bw osu_put_latency osu_put_bibw; do
            osu_sizes 2 "one-sided/$ob" 65536 -w "$w"
        done
    done
    TL=
}

# Point-to-point: pairs of ranks (the multi-pair ones with 2 pairs too).
for pb in osu_latency osu_bw osu_bibw osu_latency_mp osu_mbw_mr osu_multi_lat; do
    osu 2 "pt2pt/standard/$pb" -c -m 1:262144 -T all
done
for pb in osu_latency_persistent osu_bw_persistent osu_bibw_persistent; do
    osu 2 "pt2pt/persistent/$pb" -c -m 1:262144 -T all
done
osu 4 pt2pt/standard/osu_mbw_mr -c -m 1:65536
osu 4 pt2pt/standard/osu_multi_lat -c -m 1:65536
# osu_latency_mt: MPI_THREAD_MULTIPLE (granted by default), several threads
# per rank sending and receiving at once (2 and 4 per side); with
# BOLT_THREAD_MULTIPLE=0 it stops on its need for MULTIPLE (both ranks return
# 1 without MPI_Finalize, so rank 1's exit may end the job before rank 0 says why).
osu 2 pt2pt/standard/osu_latency_mt -c -m 1:65536 -t 2:2
osu 2 pt2pt/standard/osu_latency_mt -c -m 1:16384 -t 4:4
export BOLT_THREAD_MULTIPLE=0
osu_refused 2 pt2pt/standard/osu_latency_mt "no MPI_THREAD_MULTIPLE with BOLT_THREAD_MULTIPLE=0" \
    "MPI_Init_thread must return MPI_THREAD_MULTIPLE|rank [01] on .* exited with status 1" -c -m 1:1024 -t 2:2
unset BOLT_THREAD_MULTIPLE
# Collectives, blocking and nonblocking: 2, 3 and 8 ranks (OSU's need 2).
COLL="allgather allgatherv allreduce alltoall alltoallv alltoallw bcast gather gatherv reduce
      reduce_scatter reduce_scatter_block scatter scatterv"
for c in $COLL; do
    osu 2 "collective/blocking/osu_$c" -c -m 1:65536 -T all
    osu 3 "collective/blocking/osu_$c" -c -m 1:65536 -T all
    osu 8 "collective/blocking/osu_$c" -c -m 1:16384
    osu 2 "collective/non_blocking/osu_i$c" -c -m 1:65536 -T all
    osu 3 "collective/non_blocking/osu_i$c" -c -m 1:65536 -T all
    osu 8 "collective/non_blocking/osu_i$c" -c -m 1:16384
done
# Over TCP alone too: point-to-point and the blocking collectives.
TL=tcp
for pb in osu_latency osu_bw osu_bibw; do
    osu 2 "pt2pt/standard/$pb" -c -m 1:262144
done
for c in $COLL; do
    osu 3 "collective/blocking/osu_$c" -c -m 1:65536
done
TL=
for np in 2 3 8; do
    osu_runs "$np" collective/blocking/osu_barrier '^ *[0-9.][0-9.]*$' -i 3 -x 1
    osu_runs "$np" collective/non_blocking/osu_ibarrier '^ *[0-9.][0-9.]*  *[0-9.]' -i 3 -x 1
done
# Neighbourhood collectives: OSU's periodic ring of radius 1 (3 and 8 ranks)
# and a distributed graph of our own (5 ranks).
for c in allgather allgatherv alltoall alltoallv alltoallw; do
    for nb in "osu_neighbor_$c" "osu_ineighbor_$c"; do
        osu 3 "collective/neighborhood/$nb" -c -m 1:16384 -T all
        osu 8 "collective/neighborhood/$nb" -c -m 1:4096
        osu 5 "collective/neighborhood/$nb" -c -m 1:4096 \
            -N "graph:$TOP_SRCDIR/tests/mpi/peers/osu_graph.txt"
    done
done
# One-sided: every synchronisation mode and window flavour.
osu_rma_validated
# Start-up.
osu_runs 1 startup/osu_hello "This is a test with 1 processes"
osu_runs 8 startup/osu_hello "This is a test with 8 processes"
osu_runs 8 startup/osu_init "nprocs: 8, min: "
# Fan-in and fan-out want ranks on several hosts: two of tests/cluster's
# network-namespace hosts (root only), 2 ranks each. A subshell: the
# cluster goes down when it ends; its pass/FAIL lines are counted here.
if built pt2pt/congestion/osu_bw_fan_in && built pt2pt/congestion/osu_bw_fan_out; then
    out=$(
        . "$TOP_SRCDIR/tests/cluster/cluster.sh"
        cluster_require
        cluster_up 2 >/dev/null 2>&1 || { echo "FAIL: cannot bring a 2-host cluster up"; exit 1; }
        for fb in osu_bw_fan_in osu_bw_fan_out; do
            o=$("$BOLTRUN" --timeout 60 --host h1:2,h2:2 -np 4 -x BOLT_TRANSPORTS=shm,tcp \
                ${ASAN_OPTIONS:+-x ASAN_OPTIONS="$ASAN_OPTIONS"} "$O/pt2pt/congestion/$fb" -m 1:65536 -i 3 -x 1 2>&1)
            rc=$?
            if [ $rc -eq 0 ] && printf '%s\n' "$o" | grep -q '^65536 '; then
                echo "pass: OSU $fb -np 4 on 2 hosts -m 1:65536: ran every size"
            else
                echo "FAIL: OSU $fb -np 4 on 2 hosts: exit $rc"; printf '%s\n' "$o" | tail -n 15
            fi
        done
    )
    case $? in
    77) echo "skip: OSU osu_bw_fan_in and osu_bw_fan_out need 2 hosts: ${out#SKIP: }" ;;
    *) printf '%s\n' "$out"
       passes=$((passes + $(printf '%s\n' "$out" | grep -c '^pass:')))
       fails=$((fails + $(printf '%s\n' "$out" | grep -c '^FAIL:'))) ;;
    esac
fi
for nb in $notbuilt; do bad "OSU $nb was not built: not run"; done

echo "OSU: built and run in $(since "$t0")"

# ---- HPCG -----------------------------------------------------------------------
t0=$(date +%s)
cp -R "$HPCG_SRC" "$W/hpcg" && chmod -R u+w "$W/hpcg"
cp "$TOP_SRCDIR/tests/mpi/peers/Make.Bolt" "$W/hpcg/setup/Make.Bolt"
# -O1: built in seconds; HPCG's own checks do not depend on it.
if (cd "$W/hpcg" && make arch=Bolt BOLT_HPCG_OPT=-O1) >"$W/hpcg-build.log" 2>&1; then
    ok "HPCG built with boltc++ (setup/Make.Bolt, make arch=Bolt) in $(since "$t0")"
else
    bad "HPCG did not build with boltc++ (see $W/hpcg-build.log); missing from libmpi: $(missing "$W/hpcg-build.log")"
    tail -n 5 "$W/hpcg-build.log"
fi
# Each run in its own folder: HPCG writes its report (with the verdict) there.
for run in 1: 2: 3: 8: 3:tcp; do
    np=${run%%:*} TL=${run#*:}
    what="HPCG -np $np --nx=16 --ny=16 --nz=16 --rt=1${TL:+ (BOLT_TRANSPORTS=$TL)}"
    d="$W/hpcg/run-$np-${TL:-default}"
    mkdir -p "$d"
    if [ ! -x "$W/hpcg/bin/xhpcg" ]; then bad "$what: not built"; continue; fi
    out=$(cd "$d" && env ${TL:+BOLT_TRANSPORTS=$TL} "$BOLTRUN" --timeout 120 -np "$np" "$W/hpcg/bin/xhpcg" \
          --nx=16 --ny=16 --nz=16 --rt=1 2>&1)
    rc=$?
    res=$(cat "$d"/HPCG-Benchmark*.txt 2>/dev/null | grep "HPCG result is")
    case "$res" in
    *"HPCG result is VALID"*)
        if [ $rc -eq 0 ]; then ok "$what: $res"; else bad "$what: exit $rc after $res"; fi ;;
    *) bad "$what: exit $rc, ${res:-no result file}"; printf '%s\n' "$out" | tail -n 15 ;;
    esac
done
echo "HPCG: built and run in $(since "$t0")"
finish
