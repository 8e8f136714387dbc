# tests/launcher/: boltrun — unit tests (Check) and integration scripts.
# The scripts find boltrun and the build tree through these two variables;
# this is their only definition (other test fragments rely on it).
AM_TESTS_ENVIRONMENT = BOLTRUN=$(abs_top_builddir)/boltrun; TOP_BUILDDIR=$(abs_top_builddir); export BOLTRUN TOP_BUILDDIR;

if HAVE_CHECK
LAUNCHER_CHECKS = tests/launcher/check_args tests/launcher/check_kvs_wire tests/launcher/check_crypto \
	tests/launcher/check_bind tests/launcher/check_hostlist
check_PROGRAMS += $(LAUNCHER_CHECKS)
TESTS += $(LAUNCHER_CHECKS)
tests_launcher_check_args_SOURCES = tests/launcher/check_args.c launcher/args.c launcher/args.h
tests_launcher_check_args_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_launcher_check_args_LDADD = $(CHECK_LIBS)
tests_launcher_check_hostlist_SOURCES = tests/launcher/check_hostlist.c launcher/hostlist.c launcher/args.c \
	launcher/chan_wire.c
tests_launcher_check_hostlist_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS) $(CHECK_CFLAGS)
tests_launcher_check_hostlist_LDADD = libboltcore.la $(CRYPTO_LIBS) $(CHECK_LIBS)
tests_launcher_check_kvs_wire_SOURCES = tests/launcher/check_kvs_wire.c
tests_launcher_check_kvs_wire_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS) $(CHECK_CFLAGS)
tests_launcher_check_kvs_wire_LDADD = libboltcore.la $(CRYPTO_LIBS) $(CHECK_LIBS)
tests_launcher_check_crypto_SOURCES = tests/launcher/check_crypto.c
tests_launcher_check_crypto_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS) $(CHECK_CFLAGS)
tests_launcher_check_crypto_LDADD = libboltcore.la $(CRYPTO_LIBS) $(CHECK_LIBS)
tests_launcher_check_bind_SOURCES = tests/launcher/check_bind.c launcher/bind.c launcher/args.c \
	launcher/bind_os_posix.c
tests_launcher_check_bind_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_launcher_check_bind_LDADD = libboltcore.la $(CHECK_LIBS)
endif

# The POSIX binding fallback is built and run here whatever the platform.
check_PROGRAMS += tests/launcher/bind_os_posix_test
TESTS += tests/launcher/bind_os_posix_test
tests_launcher_bind_os_posix_test_SOURCES = tests/launcher/bind_os_posix_test.c launcher/bind_os_posix.c
tests_launcher_bind_os_posix_test_LDADD =

# Helpers the scripts run under boltrun.
check_PROGRAMS += tests/launcher/kvs_stranger tests/launcher/kvs_client
tests_launcher_kvs_stranger_SOURCES = tests/launcher/kvs_stranger.c
tests_launcher_kvs_stranger_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS)
tests_launcher_kvs_stranger_LDADD = libboltcore.la $(CRYPTO_LIBS)
tests_launcher_kvs_client_SOURCES = tests/launcher/kvs_client.c
tests_launcher_kvs_client_LDADD = libbolt.la
check_PROGRAMS += tests/launcher/shm_busy
tests_launcher_shm_busy_SOURCES = tests/launcher/shm_busy.c
TESTS += tests/launcher/shm_cleanup.sh
dist_check_SCRIPTS += tests/launcher/shm_cleanup.sh

LAUNCHER_TESTS = tests/launcher/escape.sh tests/launcher/args.sh tests/launcher/basic.sh tests/launcher/signal_death.sh \
	tests/launcher/output.sh tests/launcher/timeout.sh tests/launcher/sigterm.sh tests/launcher/kvs.sh \
	tests/launcher/stdin.sh tests/launcher/stdin_tty.sh tests/launcher/stalled.sh \
	tests/launcher/bind.sh tests/launcher/topology.sh
TESTS += $(LAUNCHER_TESTS)
dist_check_SCRIPTS += $(LAUNCHER_TESTS) tests/launcher/lib.sh
