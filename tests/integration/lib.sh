# lib.sh — shared by the integration tests: run a program under boltrun and
# fail loudly (with its output) when it does not succeed.
set -u
: "${BOLTRUN:?BOLTRUN must point at the boltrun binary (make check sets it)}"
: "${TOP_BUILDDIR:?TOP_BUILDDIR must be set (make check sets it)}"
T="$TOP_BUILDDIR/tests/integration"
NPS="${BOLT_TEST_NPS:-1 2 3 4 7}"
# Every run() happens once per transport set: shared memory (with TCP for
# what it does not reach) and TCP alone.
TRANSPORTS_UNDER_TEST="${BOLT_TEST_TRANSPORTS:-shm,tcp tcp}"
fails=0
passes=0

# run NP PROGRAM [ARGS...]: the program must exit 0 and print "ok", under
# each of TRANSPORTS_UNDER_TEST.
run() {
    np=$1; shift
    for tl in $TRANSPORTS_UNDER_TEST; do
        t0=$(date +%s)
        out=$(BOLT_TRANSPORTS=$tl "$BOLTRUN" --timeout 180 -np "$np" "$@" 2>&1)
        rc=$?
        took="$(( $(date +%s) - t0 )) s"
        if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q ' ok'; then
            echo "FAIL: BOLT_TRANSPORTS=$tl boltrun -np $np $* (exit $rc, $took)"
            printf '%s\n' "$out" | tail -n 30
            fails=$((fails + 1))
        else
            echo "pass: BOLT_TRANSPORTS=$tl boltrun -np $np $*: $(printf '%s\n' "$out" | grep ' ok' | head -n 1) ($took)"
            passes=$((passes + 1))
        fi
    done
}

finish() {
    echo "$passes passed, $fails failed"
    [ "$fails" -eq 0 ]
}
