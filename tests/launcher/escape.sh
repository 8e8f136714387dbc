#!/bin/sh
# Processes a rank starts in a session of their own (setsid: daemons) do not
# outlive the job: the guard is their subreaper and kills them when the rank
# ends, and when boltrun itself is killed. Linux only (PR_SET_CHILD_SUBREAPER);
# elsewhere cleanup rests on the rank's process group.
. "$(dirname "$0")/lib.sh"
[ "$(uname -s)" = Linux ] || { echo "SKIP: no subreaper on $(uname -s)"; exit 77; }
command -v setsid >/dev/null || { echo "SKIP: no setsid"; exit 77; }

# 1. The ranks exit normally, leaving a daemon and a double-forked daemon.
"$BOLTRUN" --timeout 30 -np 2 sh -c "setsid sleep $MARK & (setsid sh -c 'sleep $MARK & sleep $MARK' &); sleep 0.3" \
    >"$T/out" 2>"$T/err" || fail "job failed: $(cat "$T/err")"
no_leftovers "$MARK" 30
echo "pass: daemons of ranks that exited are gone"

# 2. boltrun is killed with SIGKILL while its ranks and their daemons run.
"$BOLTRUN" --timeout 60 -np 2 sh -c "setsid sleep $MARK & sleep $MARK" >"$T/out" 2>"$T/err" &
pid=$!
n=0
while [ "$(pgrep -fc "$MARK")" -lt 5 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
kill -9 "$pid"
wait "$pid" 2>/dev/null
no_leftovers "$MARK" 50
echo "pass: daemons are gone after kill -9 of boltrun"
echo "2 passed, 0 failed"
