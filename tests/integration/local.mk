# Integration tests: programs on the native API, run through boltrun.
INTEGRATION_PROGS = tests/integration/p2p_pingpong tests/integration/p2p_anysource \
	tests/integration/p2p_order tests/integration/p2p_many tests/integration/comm_split \
	tests/integration/p2p_errors tests/integration/peer_exit tests/integration/abort \
	tests/integration/finalized_peer tests/integration/reset_in_send
check_PROGRAMS += $(INTEGRATION_PROGS)
tests_integration_p2p_pingpong_SOURCES = tests/integration/p2p_pingpong.c tests/integration/tutil.h
tests_integration_p2p_pingpong_LDADD = libbolt.la
tests_integration_p2p_anysource_SOURCES = tests/integration/p2p_anysource.c tests/integration/tutil.h
tests_integration_p2p_anysource_LDADD = libbolt.la
tests_integration_p2p_order_SOURCES = tests/integration/p2p_order.c tests/integration/tutil.h
tests_integration_p2p_order_LDADD = libbolt.la
tests_integration_p2p_many_SOURCES = tests/integration/p2p_many.c tests/integration/tutil.h
tests_integration_p2p_many_LDADD = libbolt.la
tests_integration_comm_split_SOURCES = tests/integration/comm_split.c tests/integration/tutil.h
tests_integration_comm_split_LDADD = libbolt.la
tests_integration_p2p_errors_SOURCES = tests/integration/p2p_errors.c tests/integration/tutil.h
tests_integration_p2p_errors_LDADD = libbolt.la
tests_integration_peer_exit_SOURCES = tests/integration/peer_exit.c tests/integration/tutil.h
tests_integration_peer_exit_LDADD = libbolt.la
tests_integration_abort_SOURCES = tests/integration/abort.c tests/integration/tutil.h
tests_integration_abort_LDADD = libbolt.la
tests_integration_finalized_peer_SOURCES = tests/integration/finalized_peer.c tests/integration/tutil.h
tests_integration_finalized_peer_LDADD = libbolt.la
tests_integration_reset_in_send_SOURCES = tests/integration/reset_in_send.c tests/integration/tutil.h
tests_integration_reset_in_send_LDADD = libbolt.la

INTEGRATION_TESTS = tests/integration/pingpong.sh tests/integration/anysource.sh \
	tests/integration/order.sh tests/integration/many.sh tests/integration/split.sh \
	tests/integration/errors.sh tests/integration/variants.sh tests/integration/peer_exit.sh
TESTS += $(INTEGRATION_TESTS)
dist_check_SCRIPTS += $(INTEGRATION_TESTS) tests/integration/lib.sh
