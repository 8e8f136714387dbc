#!/bin/sh
# path_failover.sh — TCP path failover across 4 hosts wired by the mesh
# cables and, besides, a LAN (cluster_lan: every host on one switch,
# 169.254.200.i/24), so that each pair of hosts has two paths.
#  1. 8 ranks (2 per host; shm inside a host, TCP between) run verified
#     rounds (stream_check: a ring exchange and an all-reduce, every byte
#     checked on every rank) with BOLT_TIMEOUT=5; the h1-h2 cable goes down
#     mid-run. The connections between h1 and h2 must resume over the LAN:
#     exit status 0, every round verified (rounds after the pull too), a
#     resume line naming the peers, and h1's LAN port carrying the h1-h2
#     traffic after the pull (before it, the cables carry it).
#  2. The same with BOLT_TCP_FAILOVER=0: no resume, the job ends cleanly,
#     within BOLT_TIMEOUT and slack, with an error naming the broken peer.
#  3. Failover armed, but h1's LAN port goes down with the cable: no path is
#     left, so after BOLT_TIMEOUT of trying the peer fails, the message naming
#     it, its host and the paths tried; the job ends within twice
#     BOLT_TIMEOUT (detection, then the resume attempts) and slack.
# The links are brought back up after each case; nothing may be left behind.
. "$(dirname "$0")/lib.sh"
STREAM="$TOP_BUILDDIR/tests/integration/stream_check"
[ -x "$STREAM" ] || { echo "SKIP: $STREAM is not built"; exit 77; }
cluster_lan || fail "cannot add the LAN"
now_ms() { date +%s%3N; }
lan_h1() { set -- $(cluster_lan_bytes 1); echo $(($1 + $2)); }
cable_h1h2() { set -- $(cluster_bytes 1 2); echo $(($1 + $2)); }
rounds() { grep -c '^round .* ok' "$T/out"; }
# Waits until h1 reaches h2 over the cable again (a refused connect is an
# answer). Right after the link comes back up, a job's first connect could
# still fail there and take the LAN instead: case 2 once ran over the LAN
# from the start (710 bytes on the cable), and the pull broke nothing.
cable_ready() {
    k=0
    until ip netns exec "$(cluster_ns 1)" timeout 1 bash -c \
        "exec 3<>/dev/tcp/$(cluster_mesh_addr 2 1)/9" 2>&1 | grep -q refused; do
        k=$((k + 1))
        [ $k -lt 100 ] || fail "the h1-h2 cable does not carry traffic 10 s after it came back up"
        sleep 0.1
    done
}

# The LAN reaches every host (a refused connect is an answer), the
# management links still reach none.
for i in 2 3 4; do
    ip netns exec "$(cluster_ns 1)" bash -c "exec 3<>/dev/tcp/$(cluster_lan_addr "$i")/9" 2>/dev/null
    ip netns exec "$(cluster_ns 1)" ip route get "$(cluster_lan_addr "$i")" | grep -q "dev lan0" ||
        fail "h1 does not route h$i's LAN address over lan0"
    if ip netns exec "$(cluster_ns 1)" ip route get "$(cluster_mgmt_addr "$i")" >/dev/null 2>&1; then
        fail "h1 has a route to h$i's management address"
    fi
done

# pull NAME ROUNDS [BOLTRUN OPTIONS...]: starts the job, takes the h1-h2
# cable down after round 2, waits for the end; sets rc, t_end (ms from the
# pull to the end), t_resume and t_last (ms from the pull to the first and
# the last resume line),
# before/after (rounds verified), lan (h1's LAN bytes after the pull),
# cable and prelan (h1-h2 cable and h1's LAN bytes before the pull).
pull() {
    name=$1 n=$2
    shift 2
    MARK="pf$$.$name"
    l0=$(lan_h1) c0=$(cable_h1h2)
    # Emptied here, not by the job's redirection: that runs in the child,
    # and the wait below could read the last case's "round 2 ok" first.
    : >"$T/out"; : >"$T/err"
    "$BOLTRUN" --host h1:2,h2:2,h3:2,h4:2 -x BOLT_TIMEOUT=5 "$@" "$STREAM" "$n" 1048576 "$MARK" \
        >"$T/out" 2>"$T/err" </dev/null &
    brun=$!
    k=0
    until grep -q '^round 2 ok' "$T/out"; do
        k=$((k + 1))
        kill -0 "$brun" 2>/dev/null || { wait "$brun"; fail "$name: the job ended (status $?) before the pull"; }
        [ $k -lt 600 ] || { kill "$brun"; wait "$brun"; fail "$name: no 'round 2 ok' within 60 s"; }
        sleep 0.1
    done
    l1=$(lan_h1) c1=$(cable_h1h2)
    t0=$(now_ms)
    ip -n "$(cluster_ns 1)" link set tb2 down
    [ -z "${PULL_LAN:-}" ] || ip -n "$(cluster_ns 1)" link set lan0 down
    before=$(rounds)
    t_resume="" t_last="" seen=0
    while kill -0 "$brun" 2>/dev/null; do
        k=$(grep -c '^bolt: rank.*resumed' "$T/err")
        if [ "$k" -gt "$seen" ]; then
            seen=$k t_last=$(($(now_ms) - t0))
            [ -n "$t_resume" ] || t_resume=$t_last
        fi
        sleep 0.05
    done
    wait "$brun"
    rc=$?
    t_end=$(($(now_ms) - t0))
    ip -n "$(cluster_ns 1)" link set tb2 up
    ip -n "$(cluster_ns 1)" link set lan0 up
    cable_ready
    after=$(($(rounds) - before))
    lan=$(($(lan_h1) - l1))
    cable=$((c1 - c0))
    prelan=$((l1 - l0))
    echo "$name: status $rc, $t_end ms after the pull; rounds verified before/after it: $before/$after;" \
        "h1-h2 cable before: $cable bytes; h1's LAN before: $prelan, after: $lan bytes"
    no_leftovers "$MARK" 50
}

# 1. Failover: everything resumes over the LAN.
pull resume 60   # the default, BOLT_TCP_FAILOVER=auto
grep '^bolt: rank' "$T/err" | sed 's/^/  /'
expect_rc 0 "the job must survive the pull (failover)"
grep -q '^stream: 8 ranks, 60 rounds of 1048576 bytes: ok' "$T/out" || fail "no successful end of stream_check"
[ "$(rounds)" -eq 60 ] || fail "$(rounds) rounds verified, not 60"
[ "$after" -ge 3 ] || fail "only $after rounds after the pull: failover not exercised"
# Round 1 (verified before the pull) sent 1 MiB from rank 1 (h1) to rank 2
# (h2); the cable, being the first path, carried at least that. (A fixed
# 10 MB failed in CI: the pull can come right after round 2, about 9 MB in.)
[ "$cable" -ge 1048576 ] || fail "the h1-h2 cable carried only $cable bytes before the pull: not the first path"
[ "$prelan" -lt $((cable / 20)) ] || fail "h1's LAN port carried $prelan bytes before the pull: the cable should be preferred"
[ "$lan" -gt 10000000 ] || fail "h1's LAN port carried only $lan bytes after the pull"
grep -Eq '^bolt: rank [0-3] \((h1|h2)\): link to rank [0-3] on (h1|h2) via 169\.254\.[0-9.]+ broke \(.*\); resumed over 169\.254\.200\.[12] in [0-9.]+ s, [0-9]+ bytes resent' "$T/err" ||
    fail "no resume line naming the peers and the LAN"
# Every rank pair across the cable resumed (ranks 0,1 on h1; 2,3 on h2),
# each reported by at least one end.
for a in 0 1; do
    for b in 2 3; do
        grep -Eq "^bolt: rank ($a \(h1\): link to rank $b on h2|$b \(h2\): link to rank $a on h1) " "$T/err" ||
            fail "no resume reported between rank $a and rank $b"
    done
done
grep -v '^bolt: rank' "$T/err" | grep -q . && { echo "unexpected stderr:" >&2; grep -v '^bolt: rank' "$T/err" >&2; fail "stderr beyond the resume lines"; }
secs=$(sed -n 's/.* in \([0-9.]*\) s, .*/\1/p' "$T/err" | sort -n | tail -1)
bytes=$(sed -n 's/.* s, \([0-9]*\) bytes resent.*/\1/p' "$T/err" | awk '{s += $1} END {print s + 0}')
echo "resume: $(grep -c '^bolt: rank' "$T/err") connection ends resumed, ${t_resume:-?} to ${t_last:-?} ms after the pull;" \
    "slowest resume $secs s after its break was noticed; $bytes bytes resent in all; the job ended $t_end ms after the pull"

# 2. No failover: a clean end with the broken peer named.
pull nofailover 60 -x BOLT_TCP_FAILOVER=0
[ "$cable" -ge 1048576 ] || fail "the h1-h2 cable carried only $cable bytes before the pull: not the first path"
[ "$rc" -ne 0 ] || fail "the job survived the pull with BOLT_TCP_FAILOVER=0"
grep -q '^bolt: rank.*resumed' "$T/err" && fail "a connection resumed with BOLT_TCP_FAILOVER=0"
grep -Eq "rank [0-3].*(h1|h2)" "$T/err" || fail "no message naming the broken peer"
[ "$t_end" -le 15000 ] || fail "the job took $t_end ms to end (BOLT_TIMEOUT=5)"
sed 's/^/  /' "$T/err" | head -n 8

# 3. Armed, but no path left.
PULL_LAN=1 pull nopath 60
[ "$rc" -ne 0 ] || fail "the job survived with no path left between h1 and h2"
grep -q '^bolt: rank.*resumed' "$T/err" && fail "a connection resumed with no path left"
grep -Eq "link to rank [0-3] on (h1|h2) via 169\.254\.[0-9.]+ broke \(.*\) and could not be resumed: .*paths tried: 169\.254\." "$T/err" ||
    fail "no message naming the peer, its host and the paths tried"
[ "$t_end" -le 25000 ] || fail "the job took $t_end ms to end (BOLT_TIMEOUT=5: detection, then 5 s of resume attempts)"
grep -m1 "could not be resumed" "$T/err" | sed 's/^/  /'
echo "path failover: resumed over the LAN with every round verified; without it, or with no path left, a clean error"
