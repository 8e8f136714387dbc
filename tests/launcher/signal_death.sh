#!/bin/sh
# boltrun: a rank killed by signal 9 mid-run ends the job within a few seconds,
# with one line, exit status 137, and no process of the job left behind.
. "$(dirname "$0")/lib.sh"

host=$(hostname)
start=$(date +%s)
run --timeout 30 -np 4 sh -c 'if [ "$BOLT_RANK" = 2 ]; then sleep 0.5; kill -9 $$; fi; sleep '"$MARK" "$MARK"
end=$(date +%s)
expect_rc 137 "rank killed by SIGKILL"
# strsignal(9) is "Killed" on glibc, "Killed: 9" on macOS.
grep -q "^boltrun: rank 2 on $host was killed by signal 9 (Killed.*)\$" "$T/err" || fail "message"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "expected one line on stderr"
[ $((end - start)) -le 4 ] || fail "took $((end - start)) s"
no_leftovers "$MARK" 5

# A rank that exits with an error because a peer died is often reported
# before the peer's own death (a remote host's report travels further): a
# signal death reported within a second of it, and not sent by boltrun, is
# named as the root cause and gives the job its status.
run --timeout 30 -np 2 sh -c 'if [ "$BOLT_RANK" = 0 ]; then sleep 0.3; exit 3; fi; trap "" TERM; sleep 0.6; kill -9 $$' "$MARK"
expect_rc 137 "exit 3, then a SIGKILL of another rank"
grep -q "^boltrun: rank 0 on $host exited with status 3\$" "$T/err" || fail "message about rank 0's exit"
grep -q "^boltrun: rank 1 on $host was killed by signal 9 (Killed.*)\$" "$T/err" || fail "message naming the kill"
no_leftovers "$MARK" 5

# Stray children of a rank that exits are cleaned up too.
run --timeout 30 -np 2 sh -c 'sleep '"$MARK"' & echo started' "$MARK"
expect_rc 0 "rank leaving a child behind"
no_leftovers "$MARK" 10

# kill -9 of a rank's guard: boltrun reports the rank as killed and clears its
# process group itself (the rank's children would otherwise be left running).
# The output is emptied first: the wait below must not count the last run's lines.
: >"$T/out"; : >"$T/err"
"$BOLTRUN" --timeout 30 -np 2 sh -c 'echo "$BOLT_RANK $(ps -o pgid= -p $$)"; sleep '"$MARK"' & sleep '"$MARK" "$MARK" \
    >"$T/out" 2>"$T/err" </dev/null &
pid=$!
n=0
until [ "$(grep -c . "$T/out")" -eq 2 ]; do
    n=$((n + 1)); [ $n -lt 100 ] || fail "ranks did not start"; sleep 0.1
done
guard=$(awk '$1 == 0 { print $2 }' "$T/out")
[ -n "$guard" ] || fail "no process group for rank 0"
kill -9 "$guard"
wait "$pid"
rc=$?
expect_rc 137 "guard killed by SIGKILL"
grep -q "^boltrun: rank 0 on $host was killed by signal 9" "$T/err" || fail "message about the guard's death"
no_leftovers "$MARK" 10
exit 0
