# lib.sh — helpers for the cluster tests (sourced): brings up a cluster of
# CLUSTER_HOSTS (default 4) hosts for the test and tears it down at exit.
# Needs BOLTRUN and TOP_BUILDDIR (set by AM_TESTS_ENVIRONMENT).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster.sh"
cluster_require
if [ -z "${BOLTRUN:-}" ] || [ ! -x "$BOLTRUN" ]; then
    echo "SKIP: BOLTRUN is not set to a built boltrun"
    exit 77
fi
TOP_BUILDDIR=${TOP_BUILDDIR:-$(dirname "$BOLTRUN")}
BOLT_KILL_GRACE=${BOLT_KILL_GRACE:-1}
BOLT_TIMEOUT=${BOLT_TIMEOUT:-20}
export BOLT_KILL_GRACE BOLT_TIMEOUT
# The hosts share this machine's cores, each believing it has them all:
# bound to "its" cores, the ranks of several hosts pile onto one core, each
# spinning as if alone there, and the scheduler let some starve for seconds
# (6 ranks on 3 hosts x 2, a passive-target spin lock over TCP: 4-120 s
# bound, 0.2-0.6 s unbound). A test that wants binding sets it.
BOLT_BIND_TO=${BOLT_BIND_TO:-none}
export BOLT_BIND_TO
cluster_up "${CLUSTER_HOSTS:-4}" || { echo "FAIL: cannot bring the cluster up" >&2; exit 1; }
T=$CL

fail() {
    echo "FAIL: $*" >&2
    for f in "$T"/out "$T"/err; do
        [ -f "$f" ] && { echo "--- $f" >&2; head -c 3000 "$f" >&2; }
    done
    exit 1
}

# Runs boltrun with stdout/stderr to $T/out and $T/err; sets $rc.
run() {
    "$BOLTRUN" "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
}

expect_rc() {
    [ "$rc" -eq "$1" ] || fail "expected exit status $1, got $rc ($2)"
}

# Waits up to $2 tenths of a second until no process in any host (nor in the
# root namespace) carries $1 in its command line.
no_leftovers() {
    n=0
    while [ -n "$(cluster_procs_matching "$1")" ] || pgrep -f "$1" >/dev/null 2>&1; do
        n=$((n + 1))
        if [ "$n" -gt "${2:-30}" ]; then
            for p in $(cluster_procs_matching "$1") $(pgrep -f "$1"); do
                ps -o pid,ppid,args -p "$p" >&2
                kill -9 "$p" 2>/dev/null
            done
            fail "processes with marker $1 were left behind"
        fi
        sleep 0.1
    done
}
