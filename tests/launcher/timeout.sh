#!/bin/sh
# boltrun --timeout: the job is stopped after SEC seconds, exit status 124.
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
run --timeout 1 -np 3 sh -c 'sleep '"$MARK" "$MARK"
end=$(date +%s)
expect_rc 124 "timeout"
expect_err_line "boltrun: job timed out after 1 s; stopping its ranks"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "expected one line on stderr"
[ $((end - start)) -le 10 ] || fail "took $((end - start)) s (a loaded machine may add a few seconds; a hang would not end)"
no_leftovers "$MARK" 5

# Ranks that ignore SIGTERM get SIGKILL after BOLT_KILL_GRACE.
start=$(date +%s)
BOLT_KILL_GRACE=0.5 run --timeout 0.5 -np 2 sh -c 'trap "" TERM; sleep '"$MARK"'; sleep '"$MARK" "$MARK"
end=$(date +%s)
expect_rc 124 "timeout with TERM ignored"
[ $((end - start)) -le 10 ] || fail "took $((end - start)) s (a loaded machine may add a few seconds; a hang would not end)"
no_leftovers "$MARK" 5
exit 0
