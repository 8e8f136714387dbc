#!/bin/sh
# tests/limit.sh — make check runs every test through this (LOG_COMPILER): a
# test still running after BOLT_TEST_LIMIT seconds (default 900; scripts/test
# gives the sanitizers' suite more) is stopped with everything it started and
# counts as an ERROR that names it. A hang then costs one test's limit, not
# the whole CI run. 0, or no timeout(1) (macOS without coreutils), runs it
# unbounded.
limit=${BOLT_TEST_LIMIT:-900}
if [ "$limit" = 0 ] || ! command -v timeout >/dev/null 2>&1; then
    exec "$@"
fi
start=$(date +%s)
# timeout(1) runs the test in a process group of its own and signals the
# whole group: boltrun, its ranks and daemons go with it.
timeout -k 20 "$limit" "$@"
rc=$?
took=$(( $(date +%s) - start ))
if { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } && [ "$took" -ge "$limit" ]; then
    echo "ERROR: $1 still ran after $limit s (BOLT_TEST_LIMIT): stopped; its log above shows how far it got"
    exit 99
fi
exit $rc
