# tests/hpl_port/: bolt-hpl through boltrun (every variant on 1-4 ranks, a
# wrong result failing, the same matrix and solution on every grid, bad
# input, a killed rank, the outputs), and unit tests of its parts. BOLTRUN
# and TOP_BUILDDIR come from tests/launcher/local.mk.
HPL_TESTS = tests/hpl_port/variants.sh tests/hpl_port/wrong.sh tests/hpl_port/grids.sh \
	tests/hpl_port/errors.sh tests/hpl_port/killed.sh tests/hpl_port/outputs.sh
dist_check_SCRIPTS += $(HPL_TESTS) tests/hpl_port/lib.sh
EXTRA_DIST += tests/hpl_port/check_hpl.c tests/hpl_port/sys_test.c tests/hpl_port/json_check.c
if HAVE_BLAS
TESTS += $(HPL_TESTS)
check_PROGRAMS += tests/hpl_port/sys_test tests/hpl_port/sys_posix_test
TESTS += tests/hpl_port/sys_test tests/hpl_port/sys_posix_test
tests_hpl_port_sys_test_SOURCES = tests/hpl_port/sys_test.c
tests_hpl_port_sys_test_LDADD = libhplport.la
# the POSIX fallback, built and run whatever the platform
tests_hpl_port_sys_posix_test_SOURCES = tests/hpl_port/sys_test.c hpl_port/sys_posix.c
tests_hpl_port_sys_posix_test_LDADD =
if HAVE_CHECK
check_PROGRAMS += tests/hpl_port/check_hpl
TESTS += tests/hpl_port/check_hpl
tests_hpl_port_check_hpl_SOURCES = tests/hpl_port/check_hpl.c
tests_hpl_port_check_hpl_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_hpl_port_check_hpl_LDADD = libhplport.la $(CHECK_LIBS)
endif
if HAVE_JANSSON
check_PROGRAMS += tests/hpl_port/json_check
tests_hpl_port_json_check_SOURCES = tests/hpl_port/json_check.c
tests_hpl_port_json_check_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_hpl_port_json_check_LDADD = $(JANSSON_LIBS)
endif
endif
