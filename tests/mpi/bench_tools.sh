#!/bin/sh
# bench_tools.sh — the instruments of bench/compare and bench/osu-compare,
# through their own interfaces, on Bolt alone (the runs beside Open MPI and
# MPICH are benchmarks, not tests):
#   bench/mpi_coll in its quick mode prints every blocking collective in
#   both modes (loop, barrier) at every size, at 2 and 4 ranks, with times;
#   bench/mpi_window prints bw, bibw and the CPU costs of posting and
#   waiting at every size with n/2 pairs;
#   both refuse bad options with a message that names the mistake;
#   bench/compare_report.py computes each summary line (worst ratio of
#   medians, its size, the per-round ratios' range, the spread flag) from
#   raw rows whose answer is known, shows failed runs as such (cells and
#   summary lines), and names a malformed row;
#   bench/compare and bench/osu-compare refuse bad arguments before they
#   install or run anything.
. "$TOP_SRCDIR/tests/integration/lib.sh"
B="$TOP_BUILDDIR/bench"
W="$TOP_BUILDDIR/tests/mpi/bench-tools-work"
rm -rf "$W" && mkdir -p "$W"
ok() { echo "pass: $*"; passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
OPS="allreduce bcast reduce allgather allgatherv alltoall alltoallv gather gatherv scatter scatterv
     reduce_scatter reduce_scatter_v scan barrier"

# ---- mpi_coll: every operation, both modes, every size -------------------------
for np in 2 4; do
    out=$("$BOLTRUN" --timeout 120 -np $np "$B/mpi_coll" -q -f 32 -m 4096 2>&1)
    rc=$?
    missing=
    for op in $OPS; do
        for mode in loop barrier; do
            # sizes 4, 128, 4096; barrier at 4 only; reduce-scatter from 4 * n
            case $op in barrier) want=1 ;; reduce_scatter*) want=2 ;; *) want=3 ;; esac
            got=$(printf '%s\n' "$out" | grep -cE "^bench,$op,$mode,mpi,$np,[0-9]+,[0-9]+\.[0-9]+,[a-z_-]+$")
            [ "$got" = "$want" ] || missing="$missing $op/$mode($got of $want)"
        done
    done
    zero=$(printf '%s\n' "$out" | grep -E '^bench,' | awk -F, '$7 <= 0' | head -n 1)
    if [ $rc -ne 0 ] || [ -n "$missing" ] || [ -n "$zero" ]; then
        bad "mpi_coll -np $np -q: exit $rc; rows missing:${missing:- none}; ${zero:+non-positive time: $zero}"
        printf '%s\n' "$out" | tail -n 10
    else
        ok "mpi_coll -np $np -q: 15 operations x 2 modes at every size, times > 0"
    fi
done
out=$("$BOLTRUN" --timeout 60 -np 2 "$B/mpi_coll" -q -m 64 -o reduce,alltoall -t barrier 2>&1)
ops=$(printf '%s\n' "$out" | grep '^bench,' | cut -d, -f2,3 | sort -u | tr '\n' ' ')
if [ "$ops" = "alltoall,barrier reduce,barrier " ]; then ok "mpi_coll -o reduce,alltoall -t barrier runs those alone"
else bad "mpi_coll -o reduce,alltoall -t barrier ran: $ops"; fi

# ---- mpi_window: bw and bibw with n/2 pairs -------------------------------------
for np in 2 4; do
    out=$("$BOLTRUN" --timeout 120 -np $np "$B/mpi_window" -q -f 16 -m 4096 2>&1)
    rc=$?
    bw=$(printf '%s\n' "$out" | grep -cE "^bench,bw,window,mpi,$np,(1|16|256|4096),[0-9.]+,$((np / 2))$")
    bibw=$(printf '%s\n' "$out" | grep -cE "^bench,bibw,window,mpi,$np,(1|16|256|4096),[0-9.]+,$((np / 2))$")
    cpu=$(printf '%s\n' "$out" | grep -cE "^bench,cpu_(isend_post|isend_wait|irecv_post),window,mpi,$np,(1|16|256|4096),[0-9.]+,$((np / 2))$")
    if [ $rc -ne 0 ] || [ "$bw" != 4 ] || [ "$bibw" != 4 ] || [ "$cpu" != 12 ]; then
        bad "mpi_window -np $np -q: exit $rc, $bw of 4 bw rows, $bibw of 4 bibw rows, $cpu of 12 cpu rows"
        printf '%s\n' "$out" | tail -n 10
    else
        ok "mpi_window -np $np -q: bw, bibw and the 3 CPU costs at 1 B-4 KiB, $((np / 2)) pair(s)"
    fi
done

# ---- bad options: a message that names the mistake, no hang ---------------------
# refused WHAT PATTERN COMMAND...: exits non-zero and says PATTERN
refused() {
    r_what=$1 r_pat=$2; shift 2
    out=$("$@" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q -- "$r_pat"; then ok "$r_what: refused: $(printf '%s\n' "$out" | grep -- "$r_pat" | head -n 1)"
    else bad "$r_what: exit $rc, wanted /$r_pat/"; printf '%s\n' "$out" | tail -n 5; fi
}
refused "mpi_coll -o reduce,foo" "'foo' is not an operation" "$BOLTRUN" --timeout 30 -np 2 "$B/mpi_coll" -o reduce,foo
refused "mpi_coll -t sometimes" "-t wants loop, barrier or both" "$BOLTRUN" --timeout 30 -np 2 "$B/mpi_coll" -t sometimes
refused "mpi_coll -m 2" "-m wants a byte count" "$BOLTRUN" --timeout 30 -np 2 "$B/mpi_coll" -m 2
refused "mpi_window at 3 ranks" "even number of ranks" "$BOLTRUN" --timeout 30 -np 3 "$B/mpi_window" -q
refused "mpi_window -o rate" "-o wants bw, bibw, cpu or all" "$BOLTRUN" --timeout 30 -np 2 "$B/mpi_window" -o rate
refused "bench/compare with a kind it lacks" "'latency' is not p2p, window, coll or all" \
    "$TOP_SRCDIR/bench/compare" "$TOP_BUILDDIR" latency
refused "bench/compare RANKS=1" "each must be a count of 2 or more" env RANKS=1 "$TOP_SRCDIR/bench/compare" "$TOP_BUILDDIR"
refused "bench/compare MODES=x" "MODES='x' is not loop, barrier or both" env MODES=x "$TOP_SRCDIR/bench/compare" "$TOP_BUILDDIR"
refused "bench/osu-compare without the sources" "no OSU Micro-Benchmarks 7.4 in $W/none" \
    env BOLT_PEERS="$W/none" "$TOP_SRCDIR/bench/osu-compare" "$TOP_BUILDDIR"
mkdir -p "$W/peers/osu-micro-benchmarks-7.4/c/mpi/pt2pt/standard" && : >"$W/peers/osu-micro-benchmarks-7.4/configure.ac"
refused "bench/osu-compare osu_nonsense" "'osu_nonsense' is not an OSU benchmark" \
    env BOLT_PEERS="$W/peers" "$TOP_SRCDIR/bench/osu-compare" "$TOP_BUILDDIR" osu_nonsense
mkdir -p "$W/peers/osu-micro-benchmarks-7.4/c/mpi/one-sided" && : >"$W/peers/osu-micro-benchmarks-7.4/c/mpi/one-sided/osu_put_latency.c"
refused "bench/osu-compare SYNCS=flash" "SYNCS='flash': 'flash' is not one of lock flush" \
    env BOLT_PEERS="$W/peers" SYNCS=flash "$TOP_SRCDIR/bench/osu-compare" "$TOP_BUILDDIR" osu_put_latency
refused "bench/osu-compare WINDOWS=shared" "WINDOWS='shared': 'shared' is not one of create allocate dynamic" \
    env BOLT_PEERS="$W/peers" WINDOWS=shared "$TOP_SRCDIR/bench/osu-compare" "$TOP_BUILDDIR" osu_put_latency

# ---- compare_report.py: summary lines from rows whose answer is known -----------
if ! command -v python3 >/dev/null; then
    echo "skip: compare_report.py needs python3"
else
    # reduce/barrier, shm, 2 ranks; Open MPI 2.0 us everywhere; Bolt at 4 B
    # 1.0, 1.2, 1.1 (ratio 0.55) and at 64 B 3.0, 6.0, 4.0 (per round 1.5, 3.0,
    # 2.0: median ratio 4.0 / 2.0 = 2.0, range 1.50..3.00, spread). MPICH
    # 1.0 at 4 B only: its worst is 1.10 at 4 B, rounds 1.00..1.20.
    cat >"$W/raw.csv" <<'EOF'
1,bolt,coll,reduce,barrier,shm,2,4,1.0,binomial
2,bolt,coll,reduce,barrier,shm,2,4,1.2,binomial
3,bolt,coll,reduce,barrier,shm,2,4,1.1,binomial
1,bolt,coll,reduce,barrier,shm,2,64,3.0,binomial
2,bolt,coll,reduce,barrier,shm,2,64,6.0,binomial
3,bolt,coll,reduce,barrier,shm,2,64,4.0,binomial
1,openmpi,coll,reduce,barrier,shm,2,4,2.0,-
2,openmpi,coll,reduce,barrier,shm,2,4,2.0,-
3,openmpi,coll,reduce,barrier,shm,2,4,2.0,-
1,openmpi,coll,reduce,barrier,shm,2,64,2.0,-
2,openmpi,coll,reduce,barrier,shm,2,64,2.0,-
3,openmpi,coll,reduce,barrier,shm,2,64,2.0,-
1,mpich,coll,reduce,barrier,shm,2,4,1.0,-
2,mpich,coll,reduce,barrier,shm,2,4,1.0,-
3,mpich,coll,reduce,barrier,shm,2,4,1.0,-
EOF
    out=$(python3 "$TOP_SRCDIR/bench/compare_report.py" "$W/raw.csv" 2>&1)
    o=$(printf '%s\n' "$out" | grep '^summary shm 2r coll *reduce/barrier *vs openmpi')
    m=$(printf '%s\n' "$out" | grep '^summary shm 2r coll *reduce/barrier *vs mpich')
    case $o in
    *"worst  2.00 at     64 B  rounds 1.50..3.00  bolt 3.00..6.00 us  spread") ok "report: worst ratio, size, rounds range, spread: $o" ;;
    *) bad "report against Open MPI: got '$o'"; printf '%s\n' "$out" | tail -n 12 ;;
    esac
    case $m in
    *"worst  1.10 at      4 B  rounds 1.00..1.20  bolt 1.00..1.20 us") ok "report: a peer with one size, no spread: $m" ;;
    *) bad "report against MPICH: got '$m'" ;;
    esac
    if printf '%s\n' "$out" | grep -q '^bench,coll,reduce,barrier,shm,2,64,4.000,2.000,$'; then ok "report: CSV line of medians"
    else bad "report: no CSV line bench,coll,reduce,barrier,shm,2,64,4.000,2.000,"; fi
    # Failed runs: Bolt failed every run of put_latency/lock/create (a
    # "failed" cell, a "bolt failed (every run)" line per peer with times);
    # get_bw/flush/allocate failed once after measuring 1 B (its ratio, then
    # "bolt failed in some runs"; 8 B a "failed" cell); MPICH not built.
    cat >"$W/fail.csv" <<'EOF'
1,openmpi,osu,osu_put_latency,lock/create,shm,2,1,1.5,
1,mpich,osu,osu_put_latency,lock/create,shm,2,1,2.0,
1,bolt,osu,osu_put_latency,lock/create,shm,2,0,,failed
1,bolt,osu,osu_get_bw,flush/allocate,shm,2,1,3.0,
1,openmpi,osu,osu_get_bw,flush/allocate,shm,2,1,1.5,
1,openmpi,osu,osu_get_bw,flush/allocate,shm,2,8,1.5,
1,bolt,osu,osu_get_bw,flush/allocate,shm,2,0,,failed
1,mpich,osu,osu_get_bw,flush/allocate,shm,2,0,,not built
EOF
    out=$(python3 "$TOP_SRCDIR/bench/compare_report.py" "$W/fail.csv" 2>&1)
    n=$(printf '%s\n' "$out" | grep -Ec '^summary shm 2r osu +osu_put_latency/lock/create +vs (openmpi|mpich) +bolt failed \(every run\)$')
    if [ "$n" = 2 ]; then ok "report: a benchmark Bolt failed every time has a 'bolt failed' line per peer"
    else bad "report: $n 'bolt failed (every run)' lines for put_latency/lock/create, expected 2"; printf '%s\n' "$out"; fi
    case $(printf '%s\n' "$out" | grep '^summary shm 2r osu *osu_get_bw/flush/allocate *vs openmpi') in
    *"worst  2.00 at      1 B"*"bolt failed in some runs") ok "report: a partial failure keeps its ratio and says so" ;;
    *) bad "report: osu_get_bw/flush/allocate's summary"; printf '%s\n' "$out" ;;
    esac
    if printf '%s\n' "$out" | grep -Eq '^  osu_get_bw/flush/allocate +8 +failed +1.50 +not built'; then
        ok "report: cells say failed and not built"
    else bad "report: no 'failed' and 'not built' cells for osu_get_bw at 8 B"; printf '%s\n' "$out"; fi
    echo "1,bolt,coll,reduce,barrier,shm,2,4,1.0" >"$W/short.csv"
    refused "compare_report.py on a 9-field row" "expected 10 fields" python3 "$TOP_SRCDIR/bench/compare_report.py" "$W/short.csv"
    : >"$W/empty.csv"
    refused "compare_report.py on no rows" "no measurements" python3 "$TOP_SRCDIR/bench/compare_report.py" "$W/empty.csv"
fi
finish
