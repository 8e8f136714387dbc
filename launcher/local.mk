# launcher/: boltrun, which starts a job's ranks and serves its key-value store.
bin_PROGRAMS += boltrun
boltrun_SOURCES = \
	launcher/boltrun.c \
	launcher/args.c launcher/args.h \
	launcher/job.c launcher/job.h \
	launcher/spawn.c launcher/spawn.h \
	launcher/pdeath.h \
	launcher/reaper.h \
	launcher/iofwd.c launcher/iofwd.h \
	launcher/stdin_fwd.c launcher/stdin_fwd.h \
	launcher/kvs_server.c launcher/kvs_server.h \
	launcher/shm_host.c launcher/shm_host.h transport/shm/shm_seg.c transport/shm/shm_seg.h
if BOLT_OS_LINUX
boltrun_SOURCES += launcher/pdeath_linux.c launcher/reaper_linux.c
else
boltrun_SOURCES += launcher/pdeath_posix.c launcher/reaper_posix.c
endif
EXTRA_DIST += launcher/pdeath_linux.c launcher/pdeath_posix.c launcher/reaper_linux.c launcher/reaper_posix.c
boltrun_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS)
boltrun_LDADD = libboltcore.la $(CRYPTO_LIBS)
