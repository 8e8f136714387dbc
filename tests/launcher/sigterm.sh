#!/bin/sh
# boltrun: SIGTERM to boltrun is forwarded and ends the whole job; kill -9 of
# boltrun itself leaves no rank running (the guards clean up); SIGHUP and
# SIGINT that boltrun was started with ignored stay ignored, for the ranks too.
. "$(dirname "$0")/lib.sh"

# Waits until $T/out holds $1 lines "up" (the file is created before boltrun
# starts, so that a missing file cannot pass for a short one).
wait_up() {
    n=0
    until [ "$(grep -c '^up$' "$T/out")" -eq "$1" ]; do
        n=$((n + 1)); [ $n -lt 100 ] || fail "ranks did not start"; sleep 0.1
    done
}

: >"$T/out"
"$BOLTRUN" --timeout 30 -np 4 sh -c 'echo up; sleep '"$MARK" "$MARK" >"$T/out" 2>"$T/err" </dev/null &
pid=$!
wait_up 4
kill -TERM "$pid"
wait "$pid"
rc=$?
expect_rc 143 "SIGTERM"
grep -q '^boltrun: caught signal 15' "$T/err" || fail "no line about the signal"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "expected one line on stderr"
[ "$(grep -c '^up$' "$T/out")" -eq 4 ] && [ "$(wc -l <"$T/out")" -eq 4 ] || fail "unexpected output"
no_leftovers "$MARK" 5

# kill -9 of boltrun: the guards see the lifeline close and stop their ranks.
: >"$T/out"
BOLT_KILL_GRACE=0.5 "$BOLTRUN" --timeout 30 -np 4 sh -c 'echo up; trap "" TERM; sleep '"$MARK"'; sleep '"$MARK" "$MARK" \
    >"$T/out" 2>"$T/err" </dev/null &
pid=$!
wait_up 4
kill -9 "$pid"
wait "$pid" 2>/dev/null
no_leftovers "$MARK" 30

# SIGHUP and SIGINT ignored from the start (nohup): boltrun does not stop the
# job for them, and the ranks have them ignored too.
: >"$T/out"
(trap '' HUP INT; exec "$BOLTRUN" --timeout 30 -np 2 sh -c \
    'kill -HUP $$; kill -INT $$; echo up; sleep 1; echo "rank $BOLT_RANK survived"' \
    >"$T/out" 2>"$T/err" </dev/null) &
pid=$!
wait_up 2
kill -HUP "$pid"
kill -INT "$pid"
wait "$pid"
rc=$?
expect_rc 0 "SIGHUP and SIGINT ignored"
[ "$(grep -c 'survived$' "$T/out")" -eq 2 ] || fail "ranks did not survive SIGHUP/SIGINT"
[ ! -s "$T/err" ] || fail "boltrun reacted to an ignored signal"
exit 0
