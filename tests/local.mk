# tests/: Check unit tests per layer, and integration tests through boltrun.
# Every test runs under a wall-clock limit (tests/limit.sh, BOLT_TEST_LIMIT).
LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/limit.sh
EXTRA_DIST += tests/limit.sh
include tests/runtime/local.mk
include tests/transport/local.mk
include tests/launcher/local.mk
include tests/integration/local.mk
include tests/collectives/local.mk
include tests/mpi/local.mk
include tests/cluster/local.mk
include tests/fuzz/local.mk
include tests/blas/local.mk
include tests/hpl_port/local.mk
include tests/inference/local.mk
EXTRA_DIST += tests/check_run.h
include tests/rdma/local.mk
