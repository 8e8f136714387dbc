# tests/cluster/: multi-host tests on a cluster of network namespaces with
# their own sshd, wired as a Thunderbolt full mesh (cluster.sh). They need
# root and skip (exit 77) without it. BOLTRUN and TOP_BUILDDIR come from
# tests/launcher/local.mk's AM_TESTS_ENVIRONMENT.
CLUSTER_TESTS = tests/cluster/smoke.sh tests/cluster/hpl.sh tests/cluster/launch.sh tests/cluster/launch_errors.sh tests/cluster/traffic.sh tests/cluster/addresses.sh tests/cluster/failures.sh tests/cluster/relay_stranger.sh tests/cluster/path_failover.sh
TESTS += $(CLUSTER_TESTS)
dist_check_SCRIPTS += $(CLUSTER_TESTS) tests/cluster/cluster.sh tests/cluster/lib.sh
