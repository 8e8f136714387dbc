# tests/collectives/: collective operations against a serial reference, run
# through boltrun on 1..8 ranks (see each script).
check_PROGRAMS += tests/collectives/coll_check
tests_collectives_coll_check_SOURCES = tests/collectives/coll_check.c tests/collectives/cutil.c \
	tests/collectives/cutil.h
tests_collectives_coll_check_LDADD = libbolt.la -lm
check_PROGRAMS += tests/collectives/bcast_flood tests/collectives/small_flood tests/collectives/coll_route \
	tests/collectives/scratch_reuse
tests_collectives_scratch_reuse_SOURCES = tests/collectives/scratch_reuse.c tests/collectives/cutil.c \
	tests/collectives/cutil.h
tests_collectives_scratch_reuse_LDADD = libbolt.la -lm
tests_collectives_coll_route_SOURCES = tests/collectives/coll_route.c tests/collectives/cutil.c \
	tests/collectives/cutil.h
tests_collectives_coll_route_LDADD = libbolt.la -lm
tests_collectives_bcast_flood_SOURCES = tests/collectives/bcast_flood.c tests/collectives/cutil.c \
	tests/collectives/cutil.h
tests_collectives_bcast_flood_LDADD = libbolt.la -lm
tests_collectives_small_flood_SOURCES = tests/collectives/small_flood.c tests/collectives/cutil.c \
	tests/collectives/cutil.h
tests_collectives_small_flood_LDADD = libbolt.la -lm
COLLECTIVES_TESTS = tests/collectives/reduce.sh tests/collectives/algorithms.sh \
	tests/collectives/errors.sh tests/collectives/huge.sh tests/collectives/peer_exit.sh \
	tests/collectives/flood.sh tests/collectives/info_coll.sh
TESTS += $(COLLECTIVES_TESTS)
dist_check_SCRIPTS += $(COLLECTIVES_TESTS) tests/collectives/lib.sh tests/collectives/calib_lib.sh
if HAVE_CHECK
# Unit tests of the collectives' building blocks (Check).
COLLECTIVES_UNIT_TESTS = tests/collectives/test_tree tests/collectives/test_linkplan \
	tests/collectives/test_scratch
check_PROGRAMS += $(COLLECTIVES_UNIT_TESTS)
TESTS += $(COLLECTIVES_UNIT_TESTS)
tests_collectives_test_tree_SOURCES = tests/collectives/test_tree.c
tests_collectives_test_tree_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_collectives_test_tree_LDADD = libbolt.la $(CHECK_LIBS)
tests_collectives_test_linkplan_SOURCES = tests/collectives/test_linkplan.c
tests_collectives_test_linkplan_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_collectives_test_linkplan_LDADD = libbolt.la $(CHECK_LIBS)
tests_collectives_test_scratch_SOURCES = tests/collectives/test_scratch.c
tests_collectives_test_scratch_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_collectives_test_scratch_LDADD = libbolt.la $(CHECK_LIBS)
endif
