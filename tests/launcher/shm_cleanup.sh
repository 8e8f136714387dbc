#!/bin/sh
# Shared memory leaves nothing behind: boltrun unlinks the segment's name the
# moment it creates it, so after kill -9 of a rank in the middle of a job, or
# of boltrun itself, /dev/shm has no new bolt.* entry and no process of the
# job survives.
. "$(dirname "$0")/lib.sh"

BUSY="$TOP_BUILDDIR/tests/launcher/shm_busy"
[ -d /dev/shm ] || { echo "SKIP: no /dev/shm to inspect"; exit 77; }
ls /dev/shm | grep '^bolt\.' | sort >"$T/before"

# Starts a 4-rank job in the background (pid in $job) and waits until every
# rank is wired and talking over shared memory.
start_job() {
    : >"$T/out"; : >"$T/err"   # the wait below must not count the last job's lines
    BOLT_TRANSPORTS=shm,tcp "$BOLTRUN" --timeout 60 -np 4 "$BUSY" "$MARK" >"$T/out" 2>"$T/err" </dev/null &
    job=$!
    n=0
    until [ "$(grep -c '^ready' "$T/out")" -eq 4 ]; do
        n=$((n + 1)); [ $n -lt 200 ] || fail "ranks did not start"; sleep 0.1
    done
    [ "$(grep -c '^ready [0-9]* [0-9]* 1$' "$T/out")" -eq 4 ] || fail "ranks got no shared segment"
    sleep 0.3 # traffic in flight
}

no_new_segments() {
    ls /dev/shm | grep '^bolt\.' | sort >"$T/after"
    new=$(comm -13 "$T/before" "$T/after")
    [ -z "$new" ] || fail "left in /dev/shm: $new"
}

# 1. kill -9 of a rank: the job ends with its status, nothing is left.
start_job
victim=$(awk '$2 == 2 { print $3 }' "$T/out")
kill -9 "$victim"
wait "$job"
rc=$?
expect_rc 137 "rank killed by SIGKILL"
grep -q "rank 2 on .* was killed by signal 9" "$T/err" || fail "no report of rank 2's death"
no_leftovers "$MARK" 50
no_new_segments
echo "pass: kill -9 of a rank leaves no process and nothing in /dev/shm"

# 2. kill -9 of boltrun: the guards see their lifeline break and end the job.
start_job
kill -9 "$job"
wait "$job" 2>/dev/null
no_leftovers "$MARK" 80
no_new_segments
echo "pass: kill -9 of boltrun leaves no process and nothing in /dev/shm"
exit 0
