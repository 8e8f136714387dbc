#!/bin/sh
# boltrun on a terminal: the ranks run in process groups of their own, so rank
# 0 must get boltrun's stdin through a pipe, not the terminal itself (it would
# be stopped by SIGTTIN and the job would hang); and boltrun in the background
# of its terminal leaves it unread instead of being stopped itself.
# Needs util-linux script(1) for a pseudo-terminal, and timeout(1).
. "$(dirname "$0")/lib.sh"

if ! command -v timeout >/dev/null 2>&1 || ! script -qec true /dev/null </dev/null >/dev/null 2>&1; then
    echo "SKIP: util-linux script or timeout is missing"
    exit 77
fi

# In the foreground of a terminal: "read x" in rank 0 gets the line typed.
printf 'hello\n' | timeout 30 script -qec "$BOLTRUN --timeout 20 -np 2 sh -c 'read x; echo got:\$x'" /dev/null \
    >"$T/out" 2>"$T/err"
rc=$?
tr -d '\r' <"$T/out" >"$T/out2" && mv "$T/out2" "$T/out"
[ "$rc" -ne 124 ] || fail "boltrun hung on a terminal (rank 0 stopped by SIGTTIN?)"
expect_rc 0 "interactive rank 0"
grep -qx 'got:hello' "$T/out" || fail "rank 0 did not read the terminal's line"
grep -qx 'got:' "$T/out" || fail "rank 1 did not see EOF"

# In the background (a job-control shell), boltrun must not read the terminal
# and must not be stopped; brought to the foreground, it forwards the line.
if command -v bash >/dev/null 2>&1 && command -v ps >/dev/null 2>&1; then
    cat >"$T/bg.sh" <<EOF
set -m
"$BOLTRUN" --timeout 20 -np 1 sh -c 'read x; echo got:\$x' &
sleep 1
echo "state: \$(ps -o stat= -p \$!)"
fg >/dev/null
echo "rc: \$?"
EOF
    (sleep 2; printf 'later\n'; sleep 1) | timeout 30 script -qec "bash $T/bg.sh" /dev/null >"$T/out" 2>"$T/err"
    rc=$?
    tr -d '\r' <"$T/out" >"$T/out2" && mv "$T/out2" "$T/out"
    expect_rc 0 "background job"
    grep -q '^state: *[SR]' "$T/out" || fail "boltrun in the background is not running (stopped by SIGTTIN?)"
    grep -qx 'got:later' "$T/out" || fail "after fg, rank 0 did not get the line"
    grep -qx 'rc: 0' "$T/out" || fail "after fg, boltrun's exit status"
fi
exit 0
