# Unit tests of the runtime core (Check).
if HAVE_CHECK
check_PROGRAMS += tests/runtime/test_match tests/runtime/test_config
TESTS += tests/runtime/test_match tests/runtime/test_config
tests_runtime_test_match_SOURCES = tests/runtime/test_match.c
tests_runtime_test_match_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_runtime_test_match_LDADD = libbolt.la $(CHECK_LIBS)
tests_runtime_test_config_SOURCES = tests/runtime/test_config.c
tests_runtime_test_config_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_runtime_test_config_LDADD = libbolt.la $(CHECK_LIBS)
endif
