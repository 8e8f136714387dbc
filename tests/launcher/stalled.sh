#!/bin/sh
# boltrun: a reader of its stdout that takes nothing does not freeze the job:
# --timeout and SIGTERM still end it on time; a slow reader loses nothing.
. "$(dirname "$0")/lib.sh"

# --timeout 1 with stdout into a pipe nobody reads.
start=$(date +%s)
( "$BOLTRUN" --timeout 1 -np 2 sh -c 'yes; sleep '"$MARK" "$MARK" 2>"$T/err" </dev/null
  echo $? >"$T/rc"; date +%s >"$T/end" ) | sleep 4
[ -s "$T/rc" ] || fail "boltrun did not end"
rc=$(cat "$T/rc")
expect_rc 124 "timeout with a stalled reader"
expect_err_line "boltrun: job timed out after 1 s; stopping its ranks"
[ $(($(cat "$T/end") - start)) -le 3 ] || fail "took $(($(cat "$T/end") - start)) s with a stalled reader"
no_leftovers "$MARK" 5

# SIGTERM while the reader is stalled.
rm -f "$T/rc" "$T/end" "$T/pid"
( "$BOLTRUN" -np 1 sh -c 'yes; sleep '"$MARK" "$MARK" 2>"$T/err" </dev/null &
  echo $! >"$T/pid"; wait $!; echo $? >"$T/rc"; date +%s >"$T/end" ) | sleep 4 &
n=0
until [ -s "$T/pid" ]; do n=$((n + 1)); [ $n -lt 50 ] || fail "no pid"; sleep 0.1; done
sleep 1
start=$(date +%s)
kill -TERM "$(cat "$T/pid")"
n=0
until [ -s "$T/end" ]; do n=$((n + 1)); [ $n -lt 40 ] || fail "SIGTERM did not end boltrun"; sleep 0.1; done
rc=$(cat "$T/rc")
expect_rc 143 "SIGTERM with a stalled reader"
grep -q '^boltrun: caught signal 15' "$T/err" || fail "no line about the signal"
no_leftovers "$MARK" 5
wait

# A slow reader gets every line of a job that ends normally.
run_out=$("$BOLTRUN" -np 2 seq 1 200000 2>"$T/err" </dev/null | (sleep 1; wc -l) | tr -d " ")
[ "$run_out" -eq 400000 ] || fail "slow reader got $run_out lines, not 400000"
exit 0
