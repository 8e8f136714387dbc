#!/bin/sh
# traffic.sh — ranks on four hosts talk over the cables: ping-pong and ring
# (content checked, 0 B to 64 MiB) and collectives (content checked against
# serial references), then the links' byte counters show that the bytes went
# over the mesh cables, not over the management links to the launcher.
. "$(dirname "$0")/lib.sh"

cables_total() {
    t=0
    for i in $(seq 1 "$CL_K"); do
        for j in $(seq $((i + 1)) "$CL_K"); do
            set -- $(cluster_bytes "$i" "$j")
            t=$((t + $1 + $2))
        done
    done
    echo $t
}
mgmt_total() {
    t=0
    for i in $(seq 1 "$CL_K"); do
        tx=$(cat "/sys/class/net/bc${CL_SLOT}m$i/statistics/tx_bytes") rx=$(cat "/sys/class/net/bc${CL_SLOT}m$i/statistics/rx_bytes")
        t=$((t + tx + rx))
    done
    echo $t
}

c0=$(cables_total) m0=$(mgmt_total)
set -- $(cluster_bytes 1 2)
h12=$(($1 + $2))
# By node: ranks 0 and 1 on h1 and h2, the ring goes h1 h2 h3 h4 h1 ...
run --host "$CL_HOSTS" --map-by node -np 4 -x BOLT_TRANSPORTS=shm,tcp "$TOP_BUILDDIR/tests/integration/p2p_pingpong"
expect_rc 0 "ping-pong across hosts"
grep -q "ok" "$T/out" || fail "ping-pong did not report success"
set -- $(cluster_bytes 1 2)
[ $(($1 + $2 - h12)) -gt 200000000 ] || fail "the ping-pong between h1 and h2 did not cross their cable ($(($1 + $2 - h12)) bytes)"

# Collectives, two ranks per host (shm inside a host, tcp between hosts).
run --host h1:2,h2:2,h3:2,h4:2 "$TOP_BUILDDIR/tests/collectives/coll_check" allreduce,data
expect_rc 0 "collectives across hosts"
grep -q "checks ok" "$T/out" || fail "collectives did not report success"

c1=$(cables_total) m1=$(mgmt_total)
cab=$((c1 - c0)) mg=$((m1 - m0))
echo "bytes over the cables: $cab; over the management links (ssh): $mg"
[ "$cab" -gt 300000000 ] || fail "only $cab bytes crossed the cables"
[ "$mg" -lt $((cab / 20)) ] || fail "$mg bytes went over the management links: rank traffic must use the cables"
echo "traffic: ping-pong and collectives across 4 hosts over the mesh cables OK"
