#!/bin/sh
# coll_links.sh — the collectives' per-link cost model on the namespace
# cluster (4 hosts, 2 ranks each), from a synthetic calibration whose cable
# h2-h3 is slow (rank order's ring would cross it):
#  - a job given that calibration makes the same choices on every rank as
#    bolt-info says, its all-gather and all-reduce (recursive doubling's
#    partners) and chain broadcast leave the h2-h3 cable idle (its byte
#    counters) while the other cables carry the data, and every result is
#    right (also the collectives
#    suites with ranks round-robin and every ring algorithm forced);
#  - without a calibration the choices are those of a job without one (as
#    bolt-info says) and a ring all-gather crosses h2-h3 in rank order;
#  - every link good: the mesh algorithms on (the mesh all-reduce at 4 MiB);
#    a ring wiring (two links missing) is noted; both as bolt-info says;
#  - a calibration beside the hostfile (bolt.calibration) is used (boltrun
#    says so), --calibration wins over it, a bad one is named; one that does
#    not know a host of the job is refused; a bad BOLT_COLL_LINKS stops the
#    job at start naming it.
. "$(dirname "$0")/lib.sh"

INFO="$TOP_BUILDDIR/bolt-info"
CR="$TOP_BUILDDIR/tests/collectives/coll_route"
. "$(dirname "$0")/../collectives/calib_lib.sh"
calib_write "$T"

# bolt-info's choices, which the jobs must make (tests/collectives/info_coll.sh
# checks bolt-info itself on these files).
for c in slow good ringwired; do
    "$INFO" --coll --calibration "$T/$c" --host "$HOSTS" >"$T/info.$c" 2>&1 || fail "bolt-info --coll: $(cat "$T/info.$c")"
done
"$INFO" --coll --host "$HOSTS" >"$T/info.none" 2>&1 || fail "bolt-info --coll without calibration"
grep -qx "model: ring h1 h2 h4 h3; mesh algorithms off (h2-h3 slow)" "$T/info.slow" ||
    fail "bolt-info, slow h2-h3: $(cat "$T/info.slow")"

choices() { sed -n 's/^choice //p' "$T/out" | sort -u; }
cable() { set -- $(cluster_bytes "$1" "$2"); echo $(($1 + $2)); }
snap() { for p in "1 2" "1 3" "1 4" "2 3" "2 4" "3 4"; do cable $p; done | paste -sd' ' -; }
delta() { # $1 before, $2 after (snap), $3 index 1..6
    b=$(echo "$1" | cut -d' ' -f"$3") a=$(echo "$2" | cut -d' ' -f"$3")
    echo $((a - b))
}

# With the slow calibration: same choices everywhere, as bolt-info says;
# the collectives leave h2-h3 out.
s0=$(snap)
run --host "$HOSTS" --calibration "$T/slow" -x BOLT_LOG_LEVEL=2 "$CR" 4
expect_rc 0 "a job with the slow calibration"
s1=$(snap)
grep -q "coll_route ok" "$T/out" || fail "coll_route did not finish"
[ "$(choices | wc -l)" -eq 9 ] || fail "the ranks chose differently: $(choices)"
[ "$(choices)" = "$(table "$T/info.slow" | sort -u)" ] ||
    fail "the job's choices differ from bolt-info's: $(choices) -- $(table "$T/info.slow")"
grep -qF "collectives on 8 ranks over 4 hosts (BOLT_COLL_LINKS): ring h1 h2 h4 h3; mesh algorithms off (h2-h3 slow)" \
    "$T/err" || fail "rank 0 did not log the plan"
h23=$(delta "$s0" "$s1" 4) h24=$(delta "$s0" "$s1" 5) h13=$(delta "$s0" "$s1" 2) h12=$(delta "$s0" "$s1" 1)
echo "slow h2-h3: bytes over h1-h2 $h12, h2-h4 $h24, h1-h3 $h13, h2-h3 $h23"
[ "$h24" -gt 30000000 ] && [ "$h13" -gt 30000000 ] && [ "$h12" -gt 30000000 ] ||
    fail "the other cables did not carry the data (h1-h2 $h12, h2-h4 $h24, h1-h3 $h13 bytes)"
[ "$h23" -lt 2000000 ] || fail "the slow cable h2-h3 carried $h23 bytes"

# Ranks placed round-robin (the ring then interleaves rank numbers): the
# collectives suites, every ring algorithm forced, against serial references
# (every root, in place, all-gatherv, nonblocking).
run --host "$HOSTS" --map-by node --calibration "$T/slow" -x BOLT_ALLREDUCE_ALGO=ring -x BOLT_BCAST_ALGO=chain \
    -x BOLT_ALLGATHER_ALGO=ring "$TOP_BUILDDIR/tests/collectives/coll_check" allreduce,data,nonblocking
expect_rc 0 "the collectives suites around the calibrated ring"
grep -q "checks ok" "$T/out" || fail "the collectives suites did not report success"

# Without a calibration: the choices of a job spanning hosts without one,
# and the ring in rank order crosses h2-h3.
s0=$(snap)
run --host "$HOSTS" -x BOLT_ALLGATHER_ALGO=ring "$CR" 4
expect_rc 0 "a job without calibration"
s1=$(snap)
grep -q "coll_route ok" "$T/out" || fail "coll_route did not finish without calibration"
[ "$(choices | awk '{ print $1, $2, $3, $4 }')" = "$(table "$T/info.none" | sort -u | awk '{ print $1, $2, $3, $4 }')" ] ||
    fail "without calibration the job chose $(choices), bolt-info says $(table "$T/info.none")"
h23=$(delta "$s0" "$s1" 4)
[ "$h23" -gt 20000000 ] || fail "without calibration the ring did not cross h2-h3 ($h23 bytes)"

# Every link good: the mesh algorithms on (the mesh all-reduce at 4 MiB).
run --host "$HOSTS" --calibration "$T/good" "$CR" 1
expect_rc 0 "a job with the good calibration"
choices | grep -q "^4 MiB  *mesh " || fail "good calibration: no mesh all-reduce: $(choices)"
[ "$(choices)" = "$(table "$T/info.good" | sort -u)" ] || fail "good calibration: the job's choices differ from bolt-info's"

# A ring wiring: boltrun notes the missing links; the job runs.
run --host "$HOSTS" --calibration "$T/ringwired" "$CR" 1
expect_rc 0 "a job with a ring wiring's calibration"
grep -qF "boltrun: note: the calibration $T/ringwired has no link between h1 and h3" "$T/err" ||
    fail "no note of the missing links: $(cat "$T/err")"
[ "$(choices)" = "$(table "$T/info.ringwired" | sort -u)" ] || fail "ring wiring: the job's choices differ from bolt-info's"

# A calibration that does not know a host of the job is refused, naming it.
grep -v h4 "$T/slow" >"$T/noh4"
run --host "$HOSTS" --calibration "$T/noh4" "$CR" 1
expect_rc 2 "a calibration without h4"
grep -qxF "boltrun: --calibration $T/noh4: the calibration does not know host h4 (it describes another cluster? run bolt-cluster check on these hosts again)" \
    "$T/err" || fail "calibration without h4: $(cat "$T/err")"

# A calibration beside the hostfile is used, and says so; --calibration
# wins over it; a bad one stops the job naming it.
mkdir -p "$T/site"
printf 'h1 slots=2\nh2 slots=2\nh3 slots=2\nh4 slots=2\n' >"$T/site/hosts"
cp "$T/slow" "$T/site/bolt.calibration"
run --hostfile "$T/site/hosts" -x BOLT_LOG_LEVEL=2 "$CR" 1
expect_rc 0 "a calibration beside the hostfile"
grep -qxF "boltrun: using the calibration $T/site/bolt.calibration found beside the hostfile (--calibration FILE to use another)" \
    "$T/err" || fail "boltrun did not say it used the calibration beside the hostfile: $(cat "$T/err")"
grep -qF "ring h1 h2 h4 h3; mesh algorithms off (h2-h3 slow)" "$T/err" || fail "the calibration beside the hostfile was not used"
run --hostfile "$T/site/hosts" --calibration "$T/good" -x BOLT_LOG_LEVEL=2 "$CR" 1
expect_rc 0 "--calibration over the one beside the hostfile"
grep -q "found beside the hostfile" "$T/err" && fail "--calibration given, yet the one beside the hostfile was named"
grep -qF "ring h1 h2 h3 h4; mesh algorithms on" "$T/err" || fail "--calibration did not win: $(cat "$T/err")"
printf 'bolt-calibration 1\nlink h1 h2 alpha_us=1\n' >"$T/site/bolt.calibration"
run --hostfile "$T/site/hosts" "$CR" 1
expect_rc 2 "a bad calibration beside the hostfile"
grep -qF "boltrun: $T/site/bolt.calibration:2: beta_ab_ns= is missing" "$T/err" ||
    fail "bad calibration beside the hostfile: $(cat "$T/err")"
rm "$T/site/bolt.calibration"
run --hostfile "$T/site/hosts" "$CR" 1
expect_rc 0 "a hostfile without a calibration"
grep -q "calibration" "$T/err" && fail "boltrun spoke of a calibration that is not there: $(cat "$T/err")"

# A bad BOLT_COLL_LINKS stops the job at start, naming it.
run --host "$HOSTS" -x "BOLT_COLL_LINKS=1 hosts=h1,h2 ranks=0*4,1*4 links=fast" "$CR" 1
[ "$rc" -ne 0 ] || fail "a bad BOLT_COLL_LINKS ran"
grep -qF "BOLT_COLL_LINKS: links= item 1 (hosts 0 and 1) is not ALPHA_US/BETA_NS[/slow] or none" "$T/err" ||
    fail "bad BOLT_COLL_LINKS message: $(cat "$T/err")"
run --host "$HOSTS" -x "BOLT_COLL_LINKS=1 hosts=h1,h2 ranks=0,1 links=1/1" "$CR" 1
[ "$rc" -ne 0 ] || fail "a BOLT_COLL_LINKS of another job ran"
grep -qF "BOLT_COLL_LINKS describes 2 ranks but the job has 8" "$T/err" || fail "other job's links: $(cat "$T/err")"
echo "coll_links: ring around the slow link, mesh fallback, same choices as bolt-info, results right OK"
