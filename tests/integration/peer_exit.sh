#!/bin/sh
# A rank that leaves without bolt_finalize: the others get an error naming it
# (never a hang). A rank killed by SIGKILL: boltrun ends the job, says which
# rank died and how, and leaves no process behind.
. "$(dirname "$0")/lib.sh"
# The whole script once per transport set (lib.sh's TRANSPORTS_UNDER_TEST).
if [ -z "${PEER_EXIT_TL:-}" ]; then
    st=0
    for tl in $TRANSPORTS_UNDER_TEST; do
        echo "== BOLT_TRANSPORTS=$tl"
        PEER_EXIT_TL=$tl BOLT_TRANSPORTS=$tl BOLT_TEST_TRANSPORTS=$tl sh "$0" || st=1
    done
    exit $st
fi
for np in 2 4; do
    out=$("$BOLTRUN" --timeout 60 -np $np "$T/peer_exit" exit 2>&1); rc=$?
    victim=$((np - 1))
    seen=$(printf '%s\n' "$out" | grep -c "saw: .*peer rank $victim on ")
    if [ $rc -eq 0 ] && [ "$seen" -eq $((np - 1)) ]; then
        echo "pass: -np $np peer exits: $seen survivors named rank $victim"; passes=$((passes+1))
    else
        echo "FAIL: -np $np peer exits (exit $rc, $seen survivors saw it)"; printf '%s\n' "$out"; fails=$((fails+1))
    fi
done
out=$("$BOLTRUN" --timeout 60 -np 4 "$T/peer_exit" split 2>&1); rc=$?
seen=$(printf '%s\n' "$out" | grep -c "saw: .*rank 3")
if [ $rc -eq 0 ] && [ "$seen" -eq 3 ]; then
    echo "pass: split with a dead member fails on all 3 survivors, naming rank 3"; passes=$((passes+1))
else
    echo "FAIL: split with a dead member (exit $rc, $seen survivors named it)"; printf '%s\n' "$out"; fails=$((fails+1))
fi
BOLT_SPIN_COUNT=0 run 2 "$T/reset_in_send"
marker="peer_exit_kill_$$"
start=$(date +%s)
out=$("$BOLTRUN" --timeout 60 -np 4 "$T/peer_exit" kill "$marker" 2>&1); rc=$?
took=$(( $(date +%s) - start ))
if [ $rc -eq 137 ] && printf '%s\n' "$out" | grep -q "boltrun: rank 3 on .* was killed by signal 9" && [ $took -le 20 ]; then
    echo "pass: killed rank ends the job in ${took}s with exit $rc"; passes=$((passes+1))
else
    echo "FAIL: killed rank (exit $rc after ${took}s)"; printf '%s\n' "$out"; fails=$((fails+1))
fi
sleep 0.2
if pgrep -f "$marker" >/dev/null; then
    echo "FAIL: processes left behind:"; pgrep -af "$marker"; fails=$((fails+1))
else
    echo "pass: nothing left running"; passes=$((passes+1))
fi
out=$("$BOLTRUN" --timeout 60 -np 3 "$T/abort" "$marker" 2>&1); rc=$?
if [ $rc -eq 5 ] && printf '%s\n' "$out" | grep -q "boltrun: rank 2 on .* called bolt_abort (code 5): input file x.dat:12 is malformed"; then
    echo "pass: bolt_abort ends the job with its code and message"; passes=$((passes+1))
else
    echo "FAIL: bolt_abort (exit $rc)"; printf '%s\n' "$out"; fails=$((fails+1))
fi
finish
