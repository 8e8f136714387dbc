#!/bin/sh
# boltrun: SIGTERM to boltrun is forwarded and ends the whole job; kill -9 of
# boltrun itself leaves no rank running (the guards clean up).
. "$(dirname "$0")/lib.sh"

"$BOLTRUN" --timeout 30 -np 4 sh -c 'echo up; sleep '"$MARK" "$MARK" >"$T/out" 2>"$T/err" </dev/null &
pid=$!
n=0
until [ "$(wc -l <"$T/out")" -eq 4 ]; do
    n=$((n + 1)); [ $n -lt 100 ] || fail "ranks did not start"; sleep 0.1
done
kill -TERM "$pid"
wait "$pid"
rc=$?
expect_rc 143 "SIGTERM"
grep -q '^boltrun: caught signal 15' "$T/err" || fail "no line about the signal"
no_leftovers "$MARK" 5

# kill -9 of boltrun: the guards see the lifeline close and stop their ranks.
BOLT_KILL_GRACE=0.5 "$BOLTRUN" --timeout 30 -np 4 sh -c 'echo up; trap "" TERM; sleep '"$MARK"'; sleep '"$MARK" "$MARK" \
    >"$T/out" 2>"$T/err" </dev/null &
pid=$!
n=0
until [ "$(wc -l <"$T/out")" -eq 4 ]; do
    n=$((n + 1)); [ $n -lt 100 ] || fail "ranks did not start"; sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
no_leftovers "$MARK" 30
exit 0
