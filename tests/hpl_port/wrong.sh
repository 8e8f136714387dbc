#!/bin/sh
# A wrong result must fail: one element of U corrupted after the
# factorisation (the --inject-fault test hook) makes the residual check FAIL,
# the report print the norms and count the failure, and bolt-hpl exit 1;
# the same run without the fault passes.
. "$(dirname "$0")/lib.sh"

for g in "1 1 1" "2 1 2" "4 2 2"; do
    set -- $g
    np=$1 P=$2 Q=$3
    dat "$T/HPL.dat" n=120 nb=16 p=$P q=$Q
    hpl "$np" --dat HPL.dat
    [ "$rc" -eq 0 ] && [ "$(counts)" = "1 0 0" ] || fail "$P x $Q without a fault: exit $rc, counts $(counts)"
    hpl "$np" --dat HPL.dat --inject-fault 5,90
    if [ "$rc" -ne 1 ] || [ "$(counts)" != "0 1 0" ] || ! grep -q '\.\.\.\.\.\. FAILED$' "$T/out" ||
        ! grep -q '^||Ax-b||_oo  \. \. ' "$T/out"; then
        fail "$P x $Q with U(5,90) corrupted: exit $rc, counts $(counts) (expected exit 1, 0 1 0, FAILED)"
    else
        echo "pass: $P x $Q: a corrupted U(5,90) fails the residual check: $(grep FAILED "$T/out")"
    fi
done
finish
