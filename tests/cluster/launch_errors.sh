#!/bin/sh
# launch_errors.sh — a host that cannot be used ends the job with one line
# naming the host and the cause, within a bounded time: unknown host,
# unreachable host, refused key, missing program, missing bolt-hostd.
. "$(dirname "$0")/lib.sh"

# Runs boltrun, expects exit status $1 and, on stderr, a line matching $2
# (grep -E), within $3 seconds.
expect_fail() {
    want_rc=$1 pattern=$2 limit=$3
    shift 3
    t0=$(date +%s)
    run "$@"
    t1=$(date +%s)
    [ "$rc" -ne 0 ] || fail "boltrun $* succeeded"
    [ -z "$want_rc" ] || expect_rc "$want_rc" "$*"
    grep -Eq -- "$pattern" "$T/err" || fail "stderr lacks a line matching: $pattern"
    [ $((t1 - t0)) -le "$limit" ] || fail "took $((t1 - t0)) s (limit $limit s)"
    n=$(grep -c "^boltrun: " "$T/err")
    [ "$n" -eq 1 ] || fail "expected one line from boltrun, got $n"
}

expect_fail 1 "^boltrun: cannot start bolt-hostd on nosuchhost\.invalid: .*(resolve|not known).*" 15 \
    --host h1,nosuchhost.invalid true

# An address nobody answers on: its /30 goes to a namespace where no one
# has it (nothing leaves the machine; the teardown removes both).
ip netns add "bc${CL_SLOT}hdead" || fail "cannot create a namespace"
ip link add "bc${CL_SLOT}md" type veth peer name dead0 netns "bc${CL_SLOT}hdead" || fail "cannot create a veth"
ip addr add "$(cluster_mgmt_net).249/30" dev "bc${CL_SLOT}md"
ip link set "bc${CL_SLOT}md" up
ip -n "bc${CL_SLOT}hdead" link set dead0 up
printf 'Host deadhost\n  HostName %s.250\n' "$(cluster_mgmt_net)" >"$T/dead_config"
cat "$CL/ssh_config" >>"$T/dead_config"
BOLT_RSH="ssh -F $T/dead_config -o ConnectTimeout=3" expect_fail 1 \
    "^boltrun: cannot start bolt-hostd on deadhost: .*(timed out|unreachable|No route).*" 15 --host deadhost true

# A key the host does not accept.
ssh-keygen -q -t ed25519 -N "" -f "$T/otherkey"
sed "s|IdentityFile .*|IdentityFile $T/otherkey|" "$CL/ssh_config" >"$T/nokey_config"
BOLT_RSH="ssh -F $T/nokey_config" expect_fail 1 "^boltrun: cannot start bolt-hostd on h2: .*Permission denied.*" 15 \
    --host h2 true

expect_fail 127 "^boltrun: cannot start the ranks on h3: cannot find program '/no/such/prog'" 15 \
    --host h3 /no/such/prog

BOLT_HOSTD=/no/such/bolt-hostd expect_fail 1 "^boltrun: cannot start bolt-hostd on h4: .*bolt-hostd.*" 15 --host h4 true
echo "launch errors: unknown, unreachable, refused key, missing program, missing bolt-hostd OK"
