#!/bin/sh
# relay_stranger.sh — a remote host's bolt-hostd relays the job's key-value
# store to its ranks on a port of its own; a process on that host that does
# not know the job secret is refused there (and the refusal reaches boltrun's
# stderr, naming the host), while the job's ranks carry on.
. "$(dirname "$0")/lib.sh"
client="$TOP_BUILDDIR/tests/launcher/kvs_client"
stranger="$TOP_BUILDDIR/tests/launcher/kvs_stranger"
[ -x "$client" ] && [ -x "$stranger" ] || { echo "SKIP: test programs not built"; exit 77; }

# Rank 2 (on h2) first plays the stranger against its own host's relay
# (BOLT_KVS_ADDR is the relay's address there), then does its part of the
# exchange like every other rank.
run --host h1:2,h2:2 sh -c 'case "$BOLT_KVS_ADDR" in 127.0.0.1:*|169.254.*) ;; *) echo "relay address $BOLT_KVS_ADDR"; exit 3;; esac
    if [ "$BOLT_RANK" = 2 ]; then "$1" || exit 1; fi; exec "$2"' sh "$stranger" "$client"
expect_rc 0 "job with a stranger at h2's relay"
grep -qx 'kvs_stranger: refused' "$T/out" || fail "the stranger was not refused by h2's relay"
[ "$(grep -c ' ok$' "$T/out")" -eq 4 ] || fail "the job did not carry on: $(cat "$T/out")"
grep -qE 'h2.*refused a bootstrap connection from [0-9.:]+: wrong job secret$' "$T/err" ||
    fail "the refusal at h2 was not reported: $(cat "$T/err")"
grep "refused a bootstrap" "$T/err"
echo "relay_stranger: refused at h2's bolt-hostd, job carried on"
