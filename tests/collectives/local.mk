# tests/collectives/: collective operations against a serial reference, run
# through boltrun on 1..8 ranks (see each script).
check_PROGRAMS += tests/collectives/coll_check
tests_collectives_coll_check_SOURCES = tests/collectives/coll_check.c tests/collectives/cutil.c \
	tests/collectives/cutil.h
tests_collectives_coll_check_LDADD = libbolt.la -lm
check_PROGRAMS += tests/collectives/bcast_flood
tests_collectives_bcast_flood_SOURCES = tests/collectives/bcast_flood.c tests/collectives/cutil.c \
	tests/collectives/cutil.h
tests_collectives_bcast_flood_LDADD = libbolt.la -lm
COLLECTIVES_TESTS = tests/collectives/reduce.sh tests/collectives/algorithms.sh \
	tests/collectives/errors.sh tests/collectives/huge.sh tests/collectives/peer_exit.sh \
	tests/collectives/flood.sh
TESTS += $(COLLECTIVES_TESTS)
dist_check_SCRIPTS += $(COLLECTIVES_TESTS) tests/collectives/lib.sh
