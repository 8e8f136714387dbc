#!/bin/sh
# A rank killed in the middle of a run ends the job with the runtime's usual
# report (which rank, which host, which signal), exit status 137, and leaves
# no process and no shared-memory segment behind.
. "$(dirname "$0")/lib.sh"

[ -d /proc/self ] || { echo "SKIP: no /proc to find a rank by its BOLT_RANK"; exit 77; }
mark="4242$$"
ls /dev/shm 2>/dev/null | grep '^bolt\.' | sort >"$T/before"
(cd "$T" && exec "$BOLTRUN" --timeout 120 -np 2 "$HPL" -N 5000 --nb 64 -P 1 -Q 2 --progress=0.1 --seed "$mark" \
    >"$T/out" 2>"$T/err" </dev/null) &
job=$!
# the factorisation is under way once a progress line shows
n=0
until grep -q '^Column=' "$T/err" 2>/dev/null; do
    n=$((n + 1)); [ $n -lt 300 ] || { fail "no progress line"; kill $job; finish; }; sleep 0.1
done
victim=""
for pid in $(pgrep -f -- "--seed $mark"); do
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx 'BOLT_RANK=1' && victim=$pid
done
[ -n "$victim" ] || { fail "rank 1 not found"; kill $job; finish; }
kill -9 "$victim"
wait $job
rc=$?
host=$(hostname)
[ "$rc" -eq 137 ] || fail "exit status $rc, expected 137"
grep -q "^boltrun: rank 1 on $host was killed by signal 9 (Killed" "$T/err" || fail "no report naming rank 1"
n=0
while pgrep -f -- "--seed $mark" >/dev/null; do
    n=$((n + 1)); [ $n -lt 50 ] || { fail "processes left behind"; pkill -9 -f -- "--seed $mark"; break; }
    sleep 0.1
done
ls /dev/shm 2>/dev/null | grep '^bolt\.' | sort >"$T/after"
[ -z "$(comm -13 "$T/before" "$T/after")" ] || fail "shared-memory segments left: $(comm -13 "$T/before" "$T/after")"
[ "$fails" -eq 0 ] && echo "pass: $(grep '^boltrun:' "$T/err" | head -n 1), nothing left behind"
finish
