#!/bin/sh
# boltrun's key-value store through the bootstrap client: exchange with 1, 2,
# 4 and 7 ranks; bolt_bootstrap_abort; strangers with a wrong secret or none.
. "$(dirname "$0")/lib.sh"
client="$TOP_BUILDDIR/tests/launcher/kvs_client"
stranger="$TOP_BUILDDIR/tests/launcher/kvs_stranger"
[ -x "$client" ] && [ -x "$stranger" ] || { echo "SKIP: test programs not built"; exit 77; }
host=$(hostname)

for np in 1 2 4 7; do
    run --timeout 30 -np "$np" "$client"
    expect_rc 0 "exchange with $np ranks"
    [ "$(grep -c ' ok$' "$T/out")" -eq "$np" ] || fail "$np ranks: not all ok"
done

run --timeout 30 -np 3 "$client" abort
expect_rc 7 "abort"
expect_err_line "boltrun: rank 1 on $host called bolt_abort (code 7): test abort with a newline"
[ "$(grep -c '^boltrun:' "$T/err")" -eq 1 ] || fail "abort: more than one boltrun line"

# bolt_abort with code 0 still fails the job; control characters are blanked.
run --timeout 30 -np 2 "$client" abort0
expect_rc 1 "abort with code 0"
expect_err_line "$(printf 'boltrun: rank 1 on %s called bolt_abort (code 0): zero [2J  code\tend ' "$host")"

# A fence counts ranks, not connections: rank 0 on two connections does not
# complete it without rank 1.
run --timeout 30 -np 2 "$client" dupfence
expect_rc 0 "fence with two connections of one rank"
grep -qx 'rank 0 fenced twice, after rank 1' "$T/out" || fail "dupfence"

# A rank that ends without entering the fence makes the others' fences fail
# at once (before and after it ended), not after BOLT_TIMEOUT.
BOLT_TIMEOUT=60 run --timeout 20 -np 2 "$client" earlyexit
expect_rc 0 "fence with a rank that ended"
[ "$(grep -cx "fence [01]: fence failed: rank 1 on $host ended before entering the fence" "$T/out")" -eq 2 ] ||
    fail "fences did not fail with the right message"

# Wrong secret through the bootstrap client: BOLT_ERR_AUTH, boltrun logs it,
# and the job still succeeds.
run --timeout 30 -np 2 "$client" badsecret
expect_rc 0 "bad secret"
[ "$(grep -c 'refused as expected' "$T/out")" -eq 2 ] || fail "client not refused"
[ "$(grep -cE '^boltrun: refused a bootstrap connection from 127\.0\.0\.1:[0-9]+: wrong job secret$' "$T/err")" -eq 2 ] ||
    fail "refusal not logged"

# A stranger with a wrong secret, while the ranks of the job use the store.
run --timeout 30 -np 4 sh -c 'if [ "$BOLT_RANK" = 0 ]; then "$1" || exit 1; fi; exec "$2"' sh "$stranger" "$client"
expect_rc 0 "job with a stranger"
grep -qx 'kvs_stranger: refused' "$T/out" || fail "stranger not refused"
[ "$(grep -c ' ok$' "$T/out")" -eq 4 ] || fail "job did not carry on"
grep -qE '^boltrun: refused a bootstrap connection from 127\.0\.0\.1:[0-9]+: wrong job secret$' "$T/err" || fail "log line"

# A silent stranger is dropped after BOLT_TIMEOUT.
BOLT_TIMEOUT=1 run --timeout 30 -np 1 "$stranger" silent
expect_rc 0 "silent stranger"
grep -qE '^boltrun: refused a bootstrap connection from 127\.0\.0\.1:[0-9]+: no answer to the challenge within 1 s$' "$T/err" ||
    fail "silent stranger not dropped"

# 200 idle connections from a stranger neither kill the job nor flood stderr.
run --timeout 30 -np 2 sh -c 'if [ "$BOLT_RANK" = 0 ]; then "$1" flood 200 || exit 1; fi; exec "$2"' sh "$stranger" "$client"
expect_rc 0 "job with 200 idle strangers"
grep -qx 'kvs_stranger: opened 200 connections' "$T/out" || fail "flood did not happen"
[ "$(grep -c ' ok$' "$T/out")" -eq 2 ] || fail "job with idle strangers did not carry on"
[ "$(wc -l <"$T/err")" -le 12 ] || fail "idle strangers: $(wc -l <"$T/err") lines on stderr"
grep -q '^boltrun: more than 20 bootstrap connections have not authenticated; closing the oldest ones' "$T/err" ||
    fail "the cap on pending connections was not logged"

# Without boltrun, the client says what is wrong.
BOLT_RANK=0 BOLT_SIZE=1 BOLT_KVS_ADDR=127.0.0.1:1 BOLT_JOB_SECRET=$(printf '%064d' 0) "$client" >"$T/out" 2>"$T/err"
grep -q "cannot reach boltrun's key-value store at 127.0.0.1:1 (Connection refused); was this program started by boltrun?" "$T/err" ||
    fail "message without boltrun: $(cat "$T/err")"
exit 0
