# runtime/: core services (config, errors, log, crypto, bootstrap client) and the
# point-to-point engine. Services also go into libboltcore for boltrun.
noinst_LTLIBRARIES += libboltcore.la
libboltcore_la_SOURCES = \
	runtime/errors.c runtime/errors.h \
	runtime/textfile.c runtime/textfile.h \
	runtime/calibration.c runtime/calibration.h \
	runtime/linkmap.c runtime/linkmap.h \
	runtime/log.c runtime/log.h \
	runtime/config.c runtime/config.h runtime/params.def \
	runtime/crypto.h runtime/crypto_hex.c \
	runtime/kvs_wire.c runtime/kvs_wire.h \
	runtime/topo.c runtime/topo.h runtime/hostid.h
libboltcore_la_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS) $(HWLOC_CFLAGS)
libboltcore_la_LIBADD = $(CRYPTO_LIBS) $(HWLOC_LIBS)
# Topology: hwloc where found, else sysconf counts; host identity per platform.
if HAVE_HWLOC
libboltcore_la_SOURCES += runtime/topo_hwloc.c
else
libboltcore_la_SOURCES += runtime/topo_sysconf.c
endif
if BOLT_OS_LINUX
libboltcore_la_SOURCES += runtime/hostid_linux.c
else
if BOLT_OS_DARWIN
libboltcore_la_SOURCES += runtime/hostid_darwin.c
else
libboltcore_la_SOURCES += runtime/hostid_posix.c
endif
endif
EXTRA_DIST += runtime/topo_hwloc.c runtime/topo_sysconf.c runtime/hostid_linux.c runtime/hostid_darwin.c \
	runtime/hostid_posix.c
if BOLT_CRYPTO_OPENSSL
libboltcore_la_SOURCES += runtime/crypto_openssl.c
endif
if BOLT_CRYPTO_COMMONCRYPTO
libboltcore_la_SOURCES += runtime/crypto_commoncrypto.c
endif
EXTRA_DIST += runtime/crypto_openssl.c runtime/crypto_commoncrypto.c

libbolt_la_LIBADD += libboltcore.la
libbolt_la_SOURCES += \
	runtime/wire.h \
	runtime/bootstrap.c runtime/bootstrap.h \
	runtime/runtime.h \
	runtime/request.c runtime/request.h runtime/memzero.h runtime/memcopy.h runtime/sanitizer.h \
	runtime/match.c runtime/match.h \
	runtime/comm.c runtime/comm.h \
	runtime/proto.c runtime/proto.h runtime/proto_internal.h \
	runtime/peers.c \
	runtime/failover.c runtime/failover.h \
	runtime/progress.c runtime/progress.h \
	runtime/thread.c runtime/thread.h \
	runtime/init.c \
	runtime/p2p.c \
	runtime/mprobe.c \
	runtime/comm_api.c \
	transport/transport.h transport/tl_util.c transport/tl_util.h

bin_PROGRAMS += bolt-info
bolt_info_SOURCES = runtime/bolt_info.c runtime/bolt_info_coll.c launcher/hostlist.c launcher/calib_job.c
bolt_info_LDADD = libbolt.la
