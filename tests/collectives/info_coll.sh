#!/bin/sh
# info_coll.sh — bolt-info --coll on synthetic calibrations (no cluster
# needed; tests/cluster/coll_links.sh runs jobs on them): with a slow h2-h3
# the ring goes h1 h2 h4 h3 and no mesh algorithm is chosen; with every link
# good the ring is rank order and the mesh is on; a ring wiring's missing
# links are noted and named; without a calibration it says so; bad input is
# refused with the reason (exit status 2). Also a job on one host with a
# BOLT_COLL_LINKS of another job stops at start naming it.
. "$(dirname "$0")/lib.sh"
INFO="$TOP_BUILDDIR/bolt-info"
D=$(mktemp -d /tmp/bolt-info-coll.XXXXXX)
trap 'rm -rf "$D"' EXIT
. "$(dirname "$0")/calib_lib.sh"
calib_write "$D"
check() { # $1: what; then a command that must succeed
    what=$1
    shift
    if "$@"; then
        echo "pass: $what"; passes=$((passes + 1))
    else
        echo "FAIL: $what"; sed 's/^/  | /' "$D/out" | head -30
        fails=$((fails + 1))
    fi
}
info() { "$INFO" --coll "$@" >"$D/out" 2>&1; }
has() { grep -qxF -- "$1" "$D/out"; }

info --calibration "$D/slow" --host "$HOSTS"
check "slow h2-h3: the ring avoids it, the mesh is off" has "model: ring h1 h2 h4 h3; mesh algorithms off (h2-h3 slow)"
check "slow h2-h3: the ranks' ring order" has "ring order (ranks): 0 1 2 3 6 7 4 5"
check "slow h2-h3: no mesh algorithm at any size" sh -c "! grep -Eq '^[0-9]+ (B|KiB|MiB) .* (oneshot|mesh|flat)( |\$)' '$D/out'"
check "slow h2-h3: recursive doubling's partners never cross it" sh -c "grep -q \"between recursive doubling's partners alpha 30.00 us, beta 0.8000 ns/B; between any two hosts alpha 90.00 us\" '$D/out'"
check "slow h2-h3: small all-reduces and all-gathers by recursive doubling" sh -c "grep -Eq '^8 B +rd +chain +rd$' '$D/out'"
check "slow h2-h3: 16 MiB all-reduce by Rabenseifner's (the same partners)" sh -c "grep -Eq '^16 MiB +rabenseifner ' '$D/out'"
info --calibration "$D/slow"
check "hosts from the calibration (2 slots each)" has "model: ring h1 h2 h4 h3; mesh algorithms off (h2-h3 slow)"
info --calibration "$D/good" --host "$HOSTS"
check "every link good: rank order, mesh on" has "model: ring h1 h2 h3 h4; mesh algorithms on"
check "every link good: recursive doubling and the binomial tree for small messages (a further message costs its share of the measured step)" sh -c "grep -Eq '^8 B +rd +binomial +rd$' '$D/out'"
check "every link good: the mesh all-reduce and the flat broadcast for large ones" sh -c "grep -Eq '^16 MiB +mesh +flat ' '$D/out'"
info --calibration "$D/ringwired" --host "$HOSTS"
check "ring wiring: the missing links named" has "model: ring h1 h2 h3 h4; mesh algorithms off (h1-h3 missing) (h2-h4 missing)"
check "ring wiring: noted" sh -c "grep -q '^note: the calibration $D/ringwired has no link between h1 and h3' '$D/out'"
info --np 8
check "without a calibration: said" sh -c "grep -q 'without a calibration' '$D/out' && grep -qx 'model: ring in rank order; mesh algorithms on' '$D/out'"
info --calibration "$D/nothere"
check "a missing calibration: named" sh -c "grep -qxF 'bolt-info: cannot read the calibration file $D/nothere: No such file or directory' '$D/out'"
printf 'h1 slots=2\nh9\n' >"$D/hosts"
info --calibration "$D/slow" --hostfile "$D/hosts"
check "a host the calibration does not know: named" sh -c "grep -qF 'the calibration does not know host h9' '$D/out'"
for bad in "" "--np x" "--bogus" "--np 20 --calibration $D/slow"; do
    # shellcheck disable=SC2086
    "$INFO" --coll $bad >"$D/out" 2>&1
    check "bolt-info --coll $bad: exit status 2 with the reason" sh -c "[ $? -eq 2 ] && grep -q '^bolt-info: ' '$D/out'"
done

# A job given another job's links stops at bolt_init naming the variable.
"$BOLTRUN" -np 2 -x "BOLT_COLL_LINKS=1 hosts=a,b,c ranks=0,1,2 links=1/1,1/1,1/1" "$T/coll_route" 1 >"$D/out" 2>&1
check "another job's BOLT_COLL_LINKS: refused at start" sh -c "grep -qF 'BOLT_COLL_LINKS describes 3 ranks but the job has 2' '$D/out'"
finish
