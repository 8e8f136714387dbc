# lib.sh — shared by the collectives tests: the integration runner, with
# programs from this folder. NPS: rank counts (BOLT_TEST_NPS overrides).
. "$(dirname "$0")/../integration/lib.sh"
T="$TOP_BUILDDIR/tests/collectives"
NPS="${BOLT_TEST_NPS:-1 2 3 4 5 7 8}"
