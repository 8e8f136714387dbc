# tests/transport/: unit tests of the TCP transport through its ops, with two
# or three forked processes over loopback. They link the transport's sources,
# libboltcore (config, errors, log, crypto) and a file-backed fake of the
# bootstrap store (tcp_fake_kvs.c) — not libbolt, whose real bootstrap client
# would clash with the fake.
if HAVE_CHECK
TCP_TEST_COMMON = \
	tests/transport/test_tcp.c \
	tests/transport/tcp_fake_kvs.c \
	transport/tcp/tcp_ctx.c transport/tl_util.c \
	transport/tcp/tcp_conn.c transport/tcp/tcp_direct.c \
	transport/tcp/tcp_addr.c transport/tcp/tcp_wireup.c \
	transport/tcp/tcp_evloop_poll.c \
	transport/tcp/tcp_retain.c transport/tcp/tcp_stream.c \
	transport/tcp/tcp_resume.c transport/tcp/tcp_answer.c

check_PROGRAMS += tests/transport/test_tcp tests/transport/test_tcp_posix
TESTS += tests/transport/test_tcp tests/transport/test_tcp_posix

# This platform's build of the transport.
tests_transport_test_tcp_SOURCES = $(TCP_TEST_COMMON)
if BOLT_OS_LINUX
tests_transport_test_tcp_SOURCES += transport/tcp/tcp_evloop_epoll.c transport/tcp/tcp_os_linux.c
else
tests_transport_test_tcp_SOURCES += transport/tcp/tcp_os_posix.c
endif
tests_transport_test_tcp_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_transport_test_tcp_LDADD = libboltcore.la $(CHECK_LIBS)

# The portable build (poll loop, no MSG_NOSIGNAL), as on macOS, tested here too.
tests_transport_test_tcp_posix_SOURCES = $(TCP_TEST_COMMON) transport/tcp/tcp_os_posix.c
tests_transport_test_tcp_posix_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -DBOLT_TCP_FORCE_POSIX
tests_transport_test_tcp_posix_LDADD = libboltcore.la $(CHECK_LIBS)
endif
EXTRA_DIST += tests/transport/test_tcp.c tests/transport/tcp_fake_kvs.c

# The retention ring and stream offsets of TCP path failover: no sockets.
if HAVE_CHECK
check_PROGRAMS += tests/transport/test_tcp_retain
TESTS += tests/transport/test_tcp_retain
tests_transport_test_tcp_retain_SOURCES = tests/transport/test_tcp_retain.c transport/tcp/tcp_retain.c
tests_transport_test_tcp_retain_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_transport_test_tcp_retain_LDADD = $(CHECK_LIBS)
endif

# The shm transport, driven through its ops by forked processes sharing a
# segment made as boltrun makes it (launcher/shm_host.c).
if HAVE_CHECK
SHM_TEST_COMMON = \
	tests/transport/test_shm.c \
	launcher/shm_host.c \
	transport/shm/shm_seg.c transport/shm/shm_ring.c transport/shm/shm_xfer.c transport/shm/shm_claim.c \
	transport/shm/shm_mcast.c \
	transport/shm/shm_bell.c transport/shm/shm_ctx.c transport/tl_util.c
check_PROGRAMS += tests/transport/test_shm tests/transport/test_shm_posix
TESTS += tests/transport/test_shm tests/transport/test_shm_posix
tests_transport_test_shm_SOURCES = $(SHM_TEST_COMMON)
if BOLT_OS_LINUX
tests_transport_test_shm_SOURCES += transport/shm/shm_cma_linux.c transport/shm/shm_fence_linux.c \
	transport/shm/shm_prefault_linux.c
else
tests_transport_test_shm_SOURCES += transport/shm/shm_cma_posix.c transport/shm/shm_fence_posix.c \
	transport/shm/shm_prefault_posix.c
endif
tests_transport_test_shm_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_transport_test_shm_LDADD = libboltcore.la $(CHECK_LIBS)
# Without single-copy reads, as on macOS: tested here too.
tests_transport_test_shm_posix_SOURCES = $(SHM_TEST_COMMON) transport/shm/shm_cma_posix.c \
	transport/shm/shm_fence_posix.c transport/shm/shm_prefault_posix.c
tests_transport_test_shm_posix_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_transport_test_shm_posix_LDADD = libboltcore.la $(CHECK_LIBS)
endif
EXTRA_DIST += tests/transport/test_shm.c

# The RDMA transport's credit and sequence arithmetic: no device needed.
if HAVE_CHECK
check_PROGRAMS += tests/transport/test_rdma_flow
TESTS += tests/transport/test_rdma_flow
tests_transport_test_rdma_flow_SOURCES = tests/transport/test_rdma_flow.c transport/rdma/rdma_flow.c
tests_transport_test_rdma_flow_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_transport_test_rdma_flow_LDADD = $(CHECK_LIBS)
# bolt-cluster's device map as the transport reads it: no device needed.
check_PROGRAMS += tests/transport/test_rdma_devmap
TESTS += tests/transport/test_rdma_devmap
tests_transport_test_rdma_devmap_SOURCES = tests/transport/test_rdma_devmap.c transport/rdma/rdma_devmap.c
tests_transport_test_rdma_devmap_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_transport_test_rdma_devmap_LDADD = libboltcore.la $(CRYPTO_LIBS) $(CHECK_LIBS)
endif
