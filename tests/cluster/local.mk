# tests/cluster/: multi-host tests on a cluster of network namespaces with
# their own sshd, wired as a Thunderbolt full mesh (cluster.sh). They need
# root and skip (exit 77) without it. BOLTRUN and TOP_BUILDDIR come from
# tests/launcher/local.mk's AM_TESTS_ENVIRONMENT. llm.sh (tensor parallel
# bolt-llm across the hosts) also needs bolt-llm, tests/inference/tp_check
# and the test data (BOLT_TESTDATA or the source tree's _testdata).
CLUSTER_TESTS = tests/cluster/check.sh tests/cluster/coll_links.sh tests/cluster/smoke.sh tests/cluster/hpl.sh tests/cluster/llm.sh tests/cluster/launch.sh tests/cluster/launch_errors.sh tests/cluster/traffic.sh tests/cluster/addresses.sh tests/cluster/failures.sh tests/cluster/relay_stranger.sh tests/cluster/path_failover.sh
TESTS += $(CLUSTER_TESTS)
dist_check_SCRIPTS += $(CLUSTER_TESTS) tests/cluster/cluster.sh tests/cluster/lib.sh
if HAVE_CHECK
check_PROGRAMS += tests/cluster/check_cluster
TESTS += tests/cluster/check_cluster
tests_cluster_check_cluster_SOURCES = tests/cluster/check_cluster.c cluster/wiring.c cluster/check_wire.c cluster/probe.c \
	cluster/probe_rdma.c tests/cluster/rdma_probe_fake.c cluster/rdma_paths.c \
	launcher/chan_wire.c
tests_cluster_check_cluster_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS) $(CHECK_CFLAGS)
tests_cluster_check_cluster_LDADD = libboltcore.la $(CRYPTO_LIBS) $(CHECK_LIBS)
endif
