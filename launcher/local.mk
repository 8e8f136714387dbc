# launcher/: boltrun, which starts a job's ranks and serves its key-value store,
# and bolt-hostd, its daemon on each host of a multi-host job.
bin_PROGRAMS += boltrun bolt-hostd
LAUNCHER_COMMON = \
	launcher/args.c launcher/args.h \
	launcher/spawn.c launcher/spawn.h launcher/pathsearch.c \
	launcher/pdeath.h \
	launcher/reaper.h \
	launcher/iofwd.c launcher/iofwd.h \
	launcher/kvs_server.c launcher/kvs_server.h \
	launcher/shm_host.c launcher/shm_host.h transport/shm/shm_seg.c transport/shm/shm_seg.h \
	launcher/bind_policy.h launcher/bind.c launcher/bind.h launcher/bind_os.h \
	launcher/bind_setup.c launcher/bind_setup.h \
	launcher/chan.c launcher/chan.h launcher/chan_wire.c launcher/chan_wire.h
bolt_hostd_SOURCES = launcher/hostd.c $(LAUNCHER_COMMON)
boltrun_SOURCES = \
	launcher/boltrun.c \
	launcher/hostlist.c launcher/hostlist.h \
	launcher/calib_job.c launcher/calib_job.h \
	launcher/hostlink.c launcher/hostlink.h \
	launcher/rsh.c launcher/rsh.h \
	launcher/args.c launcher/args.h \
	launcher/job.c launcher/job.h \
	launcher/spawn.c launcher/spawn.h launcher/pathsearch.c \
	launcher/pdeath.h \
	launcher/reaper.h \
	launcher/iofwd.c launcher/iofwd.h \
	launcher/stdin_fwd.c launcher/stdin_fwd.h \
	launcher/kvs_server.c launcher/kvs_server.h \
	launcher/shm_host.c launcher/shm_host.h transport/shm/shm_seg.c transport/shm/shm_seg.h \
	launcher/bind_policy.h launcher/bind.c launcher/bind.h launcher/bind_os.h \
	launcher/bind_setup.c launcher/bind_setup.h \
	launcher/chan.c launcher/chan.h launcher/chan_wire.c launcher/chan_wire.h
if BOLT_OS_LINUX
boltrun_SOURCES += launcher/pdeath_linux.c launcher/reaper_linux.c launcher/bind_os_linux.c
bolt_hostd_SOURCES += launcher/pdeath_linux.c launcher/reaper_linux.c launcher/bind_os_linux.c
else
boltrun_SOURCES += launcher/pdeath_posix.c launcher/reaper_posix.c
bolt_hostd_SOURCES += launcher/pdeath_posix.c launcher/reaper_posix.c
if BOLT_OS_DARWIN
boltrun_SOURCES += launcher/bind_os_darwin.c
bolt_hostd_SOURCES += launcher/bind_os_darwin.c
else
boltrun_SOURCES += launcher/bind_os_posix.c
bolt_hostd_SOURCES += launcher/bind_os_posix.c
endif
endif
EXTRA_DIST += launcher/pdeath_linux.c launcher/pdeath_posix.c launcher/reaper_linux.c launcher/reaper_posix.c \
	launcher/bind_os_linux.c launcher/bind_os_darwin.c launcher/bind_os_posix.c
boltrun_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS)
boltrun_LDADD = libboltcore.la $(CRYPTO_LIBS)
bolt_hostd_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS)
bolt_hostd_LDADD = libboltcore.la $(CRYPTO_LIBS)
