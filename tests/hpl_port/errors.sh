#!/bin/sh
# A malformed HPL.dat, or a bad option, gets one error naming the file, the
# line and what was expected, before any work starts (no test is run), and
# bolt-hpl exits non-zero on every rank.
. "$(dirname "$0")/lib.sh"

# bad NAME NP EXPECTED-LINE [ARGS...]: HPL.dat in $T as it is, then the check
bad() {
    name=$1 np=$2 want=$3; shift 3
    hpl "$np" "$@"
    if [ "$rc" -eq 0 ] || ! grep -qxF -- "bolt-hpl: $want" "$T/err" || grep -q '^T/V' "$T/out"; then
        fail "$name: exit $rc, expected the line 'bolt-hpl: $want' on stderr and no test"
    elif [ "$(grep '^bolt-hpl: ' "$T/err" | grep -vc '^bolt-hpl: note: ')" -ne 1 ]; then
        fail "$name: the error was printed more than once"
    else
        echo "pass: $name: $want"
    fi
}

# set_line N TEXT: line N of a fresh HPL.dat replaced
set_line() {
    dat "$T/HPL.dat"
    awk -v n="$1" -v t="$2" 'NR == n { print t; next } { print }' "$T/HPL.dat" >"$T/x" && mv "$T/x" "$T/HPL.dat"
}

rm -f "$T/HPL.dat"
bad "no HPL.dat" 1 "HPL.dat: cannot open it: No such file or directory (HPL's input; or give -N, --nb, -P, -Q, or --auto)"
: >"$T/HPL.dat"
bad "empty file" 1 "HPL.dat: the file ends after 0 lines; line 1 should hold a title (HPL.dat has 31 lines)"
dat "$T/HPL.dat"; head -n 20 "$T/HPL.dat" >"$T/x"; mv "$T/x" "$T/HPL.dat"
bad "missing lines" 2 "HPL.dat: the file ends after 20 lines; line 21 should hold the RFACTs (0 left, 1 Crout, 2 right) (HPL.dat has 31 lines)"
set_line 6 "abc       Ns"
bad "a non-number" 1 "HPL.dat:6: expected problem sizes (N), found 'abc' (not an integer)"
set_line 6 "100x      Ns"
bad "a number with a tail" 1 "HPL.dat:6: expected problem sizes (N), found '100x' (not an integer)"
dat "$T/HPL.dat" n="100 200"; awk 'NR == 5 { print "3   # of problems sizes (N)"; next } { print }' "$T/HPL.dat" >"$T/x"; mv "$T/x" "$T/HPL.dat"
bad "a count larger than its list" 1 "HPL.dat:6: expected 3 problem sizes (N) (line 5 says 3), found 2, then 'Ns'"
set_line 5 "25   # of problems sizes (N)"
bad "a count beyond 20" 1 "HPL.dat:5: expected the number of problem sizes (N) from 1 to 20, found 25"
set_line 7 "0    # of NBs"
bad "a count of 0" 1 "HPL.dat:7: expected the number of block sizes (NB) from 1 to 20, found 0"
dat "$T/HPL.dat" p=2 q=4
bad "a grid larger than the job" 2 "HPL.dat:11: grid 1 is 2 x 4 (lines 11-12): it needs 8 ranks, the job has 2 (run with more ranks or a smaller grid)"
dat "$T/HPL.dat" p="1 2" q="2"
bad "fewer Qs than grids" 2 "HPL.dat:12: expected 2 process columns (Q) (line 10 says 2), found 1, then 'Qs'"
set_line 13 "x16.0      threshold"
bad "a bad threshold" 1 "HPL.dat:13: expected the residual threshold, found 'x16.0' (not a number)"
dat "$T/HPL.dat" pfact="0 3"
bad "PFACT out of range" 1 "HPL.dat:15: expected panel factorisations (PFACT) from 0 to 2, found 3"
dat "$T/HPL.dat" ndiv=1
bad "NDIV below 2" 1 "HPL.dat:19: expected panels in recursion (NDIV) of at least 2, found 1"
dat "$T/HPL.dat" bcast=9
bad "an unknown BCAST" 1 "HPL.dat:23: expected broadcasts (BCAST) from 0 to 6, found 9"
dat "$T/HPL.dat" swap=3
bad "an unknown SWAP" 1 "HPL.dat:26: expected the swap algorithm (SWAP: 0 bin-exch, 1 long, 2 mix) from 0 to 2, found 3"
dat "$T/HPL.dat" align=0
bad "alignment 0" 1 "HPL.dat:31: expected the memory alignment in doubles from 1 to 1048576, found 0"
set_line 8 "$(printf '8\001\002 NBs')"
bad "control bytes" 1 "HPL.dat:8: expected block sizes (NB), found '8\\x01\\x02' (not an integer)"
dat "$T/HPL.dat" out=no/such/dir/HPL.out dev=8
bad "an output file that cannot be made" 1 "cannot create the output file no/such/dir/HPL.out (HPL.dat line 3)"

# options
dat "$T/HPL.dat"
hpl 1 -N abc
{ [ "$rc" -eq 2 ] && grep -qxF "bolt-hpl: -N expects a problem size of at least 1, got 'abc'" "$T/err"; } ||
    fail "-N abc: exit $rc"
hpl 1 --frobnicate
{ [ "$rc" -eq 2 ] && grep -qxF "bolt-hpl: unknown option '--frobnicate' (see --help)" "$T/err"; } ||
    fail "an unknown option: exit $rc"
bad "-P x -Q larger than the job" 2 "grid 2 x 2 needs 4 ranks, the job has 2 (boltrun -np 4, or a smaller -P/-Q)" -N 100 -P 2 -Q 2
hpl 1 --auto=2
{ [ "$rc" -eq 2 ] && grep -qF "bolt-hpl: --auto=F expects a fraction of memory above 0 and at most 0.95, got '2'" "$T/err"; } ||
    fail "--auto=2: exit $rc"
echo "pass: bad options are named"
finish
