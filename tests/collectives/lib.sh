# lib.sh — shared by the collectives tests: the integration runner, with
# programs from this folder. NPS: rank counts (BOLT_TEST_NPS overrides).
# run() uses the default transports (the first set the integration tests
# cover, shm,tcp); run_tcp() the same over TCP alone, for a subset, so the
# whole matrix does not run twice.
. "$(dirname "$0")/../integration/lib.sh"
T="$TOP_BUILDDIR/tests/collectives"
NPS="${BOLT_TEST_NPS:-1 2 3 4 5 7 8}"
TL_MAIN=${TRANSPORTS_UNDER_TEST%% *}
TRANSPORTS_UNDER_TEST=$TL_MAIN
run_tcp() {
    [ "$TL_MAIN" = tcp ] && return 0
    over_tcp "$@"
}
# over_tcp: over TCP alone whatever the main transports (checks that are
# about TCP, such as the algorithms it makes the model choose)
over_tcp() {
    TRANSPORTS_UNDER_TEST=tcp
    run "$@"
    TRANSPORTS_UNDER_TEST=$TL_MAIN
}
