#!/bin/sh
# Bad roots, datatype/op combinations, buffers and count mismatches are
# refused with BOLT_ERR_ARG, and the ranks stay in step afterwards.
. "$(dirname "$0")/lib.sh"
for np in 1 2 3; do run "$np" "$T/coll_check" errors; done
run_tcp 2 "$T/coll_check" errors
out=$("$BOLTRUN" -np 2 -x BOLT_ALLREDUCE_ALGO=bogus "$T/coll_check" allreduce 2>&1)
if printf '%s\n' "$out" | grep -q 'BOLT_ALLREDUCE_ALGO=bogus is not an algorithm'; then
    echo "pass: a bad BOLT_ALLREDUCE_ALGO is reported"; passes=$((passes + 1))
else
    echo "FAIL: a bad BOLT_ALLREDUCE_ALGO is not reported"; printf '%s\n' "$out" | tail -5
    fails=$((fails + 1))
fi
finish
