# Unit tests of the runtime core (Check).
if HAVE_CHECK
RUNTIME_UNIT_TESTS = tests/runtime/test_match tests/runtime/test_config tests/runtime/test_proto \
	tests/runtime/test_memcopy
check_PROGRAMS += $(RUNTIME_UNIT_TESTS)
TESTS += $(RUNTIME_UNIT_TESTS)
tests_runtime_test_match_SOURCES = tests/runtime/test_match.c
tests_runtime_test_match_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_runtime_test_match_LDADD = libbolt.la $(CHECK_LIBS)
tests_runtime_test_config_SOURCES = tests/runtime/test_config.c
tests_runtime_test_config_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_runtime_test_config_LDADD = libbolt.la $(CHECK_LIBS)
tests_runtime_test_proto_SOURCES = tests/runtime/test_proto.c
tests_runtime_test_proto_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_runtime_test_proto_LDADD = libbolt.la $(CHECK_LIBS)
tests_runtime_test_memcopy_SOURCES = tests/runtime/test_memcopy.c
tests_runtime_test_memcopy_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_runtime_test_memcopy_LDADD = $(CHECK_LIBS)
endif
