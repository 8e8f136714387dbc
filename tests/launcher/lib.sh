# lib.sh — helpers for boltrun's integration tests (sourced).
# Needs BOLTRUN and TOP_BUILDDIR (set by AM_TESTS_ENVIRONMENT).
if [ -z "${BOLTRUN:-}" ] || [ ! -x "$BOLTRUN" ]; then
    echo "SKIP: BOLTRUN is not set to a built boltrun"
    exit 77
fi
TOP_BUILDDIR=${TOP_BUILDDIR:-$(dirname "$BOLTRUN")}
T=$(mktemp -d "${TMPDIR:-/tmp}/boltrun-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
# Kill grace kept short so the tests stay quick.
BOLT_KILL_GRACE=${BOLT_KILL_GRACE:-1}
export BOLT_KILL_GRACE

fail() {
    echo "FAIL: $*" >&2
    for f in "$T"/out "$T"/err; do
        [ -f "$f" ] && { echo "--- $f" >&2; head -c 2000 "$f" >&2; }
    done
    exit 1
}

# A number unique to this test run, usable as a sleep duration and found by
# pgrep -f in every process of a job that uses it.
MARK="29.$$$(date +%S)7"

# Waits up to $2 tenths of a second for no process to carry marker $1; on
# failure lists and kills them (by pid) and fails.
no_leftovers() {
    n=0
    while pgrep -f "$1" >/dev/null 2>&1; do
        n=$((n + 1))
        if [ "$n" -gt "${2:-30}" ]; then
            ps -o pid,ppid,pgid,args -p "$(pgrep -f "$1" | tr '\n' ',' | sed 's/,$//')" >&2 || true
            for p in $(pgrep -f "$1"); do kill -9 "$p" 2>/dev/null; done
            fail "processes with marker $1 were left behind"
        fi
        sleep 0.1
    done
}

# Runs boltrun with stdout/stderr to $T/out and $T/err; sets $rc.
run() {
    "$BOLTRUN" "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
}

expect_rc() {
    [ "$rc" -eq "$1" ] || fail "expected exit status $1, got $rc ($2)"
}

expect_err_line() {
    grep -qxF -- "$1" "$T/err" || fail "stderr lacks the line: $1"
}
