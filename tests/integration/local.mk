# Integration tests: programs on the native API, run through boltrun.
INTEGRATION_PROGS = tests/integration/p2p_pingpong tests/integration/p2p_anysource \
	tests/integration/p2p_order tests/integration/p2p_many tests/integration/comm_split \
	tests/integration/p2p_errors tests/integration/peer_exit tests/integration/abort \
	tests/integration/finalized_peer tests/integration/reset_in_send tests/integration/p2p_wakeups \
	tests/integration/stream_check tests/integration/silent_peer tests/integration/p2p_overlap \
	tests/integration/p2p_flood
check_PROGRAMS += $(INTEGRATION_PROGS)
# Each program is its .c file, linked with LDADD (libbolt.la, set at the top).
EXTRA_DIST += tests/integration/tutil.h

INTEGRATION_TESTS = tests/integration/pingpong.sh tests/integration/anysource.sh \
	tests/integration/order.sh tests/integration/many.sh tests/integration/split.sh \
	tests/integration/errors.sh tests/integration/variants.sh tests/integration/peer_exit.sh \
	tests/integration/oversub.sh tests/integration/flood.sh
TESTS += $(INTEGRATION_TESTS)
dist_check_SCRIPTS += $(INTEGRATION_TESTS) tests/integration/lib.sh
