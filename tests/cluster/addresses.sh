#!/bin/sh
# addresses.sh — which address a rank uses to reach a peer: two cables
# between h1 and h2; BOLT_IF_INCLUDE by subnet keeps traffic on one; a
# silent first address (SYNs to a MAC nobody has) makes the connector move
# on to the next after BOLT_TCP_CONNECT_TIMEOUT; a bad BOLT_IF_INCLUDE is an
# error naming the value.
CLUSTER_HOSTS=2
. "$(dirname "$0")/lib.sh"

# A second cable h1 <-> h2: tbb in both, 169.254.<mesh>.128/30.
net=$(cluster_mesh_net)
ip link add tbb netns "$(cluster_ns 1)" type veth peer name tbb netns "$(cluster_ns 2)" || fail "second cable"
ip -n "$(cluster_ns 1)" addr add "$net.129/30" dev tbb
ip -n "$(cluster_ns 2)" addr add "$net.130/30" dev tbb
ip -n "$(cluster_ns 1)" link set tbb up
ip -n "$(cluster_ns 2)" link set tbb up
bytes_b() { ip netns exec "$(cluster_ns 1)" sh -c 'echo $(( $(cat /sys/class/net/tbb/statistics/tx_bytes) + $(cat /sys/class/net/tbb/statistics/rx_bytes) ))'; }
bytes_a() { set -- $(cluster_bytes 1 2); echo $(($1 + $2)); }
PP="$TOP_BUILDDIR/tests/integration/p2p_pingpong"

# Only the second cable's subnet.
a0=$(bytes_a) b0=$(bytes_b)
run --host h1,h2 -x BOLT_IF_INCLUDE="$net.128/30" "$PP"
expect_rc 0 "BOLT_IF_INCLUDE by subnet"
a1=$(bytes_a) b1=$(bytes_b)
[ $((b1 - b0)) -gt 100000000 ] || fail "the included cable carried only $((b1 - b0)) bytes"
[ $((a1 - a0)) -lt 1000000 ] || fail "the excluded cable carried $((a1 - a0)) bytes"

# Rank 1 (h2) connects to rank 0 (h1): h1's first cable address is made
# silent for h2, so its connects there time out and the second cable is used.
h1a=$(cluster_mesh_addr 1 2)
ip -n "$(cluster_ns 2)" neigh replace "$h1a" lladdr 02:00:00:00:00:01 dev tb1 nud permanent
b0=$(bytes_b)
t0=$(date +%s)
run --host h1,h2 -x BOLT_TCP_CONNECT_TIMEOUT=1 -x BOLT_LOG_LEVEL=2 "$PP"
t1=$(date +%s)
expect_rc 0 "fallback to the second address"
grep -q "trying its next address" "$T/err" || fail "no sign of moving to the next address"
[ $(($(bytes_b) - b0)) -gt 100000000 ] || fail "the second cable was not used"
[ $((t1 - t0)) -lt 60 ] || fail "the fallback took $((t1 - t0)) s"
ip -n "$(cluster_ns 2)" neigh del "$h1a" dev tb1

run --host h1,h2 -x BOLT_IF_INCLUDE=nosuchif0 "$PP"
[ "$rc" -ne 0 ] || fail "BOLT_IF_INCLUDE matching nothing should fail"
grep -q "BOLT_IF_INCLUDE=nosuchif0 matches no interface" "$T/err" || fail "no clear message for a bad BOLT_IF_INCLUDE"
echo "addresses: BOLT_IF_INCLUDE, fallback to a peer's next address OK"
