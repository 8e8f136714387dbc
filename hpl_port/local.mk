# hpl_port/: bolt-hpl, the HPL benchmark on Bolt's native API (needs a BLAS:
# OpenBLAS on Linux, Accelerate on macOS). libhplport holds everything but
# main, so the tests and the fuzz target link the same code.
HPL_SOURCES = \
	hpl_port/hpl.h hpl_port/panel.h hpl_port/fact.h hpl_port/swap.h hpl_port/report.h \
	hpl_port/driver.h hpl_port/probe.h hpl_port/sys.h hpl_port/blas.h hpl_port/pool.h \
	hpl_port/hpl_error.c hpl_port/hpl_dat.c hpl_port/args.c hpl_port/grid.c hpl_port/matgen.c \
	hpl_port/panel.c hpl_port/pivot.c hpl_port/fact_left.c hpl_port/fact_crout.c hpl_port/fact_right.c \
	hpl_port/bcast.c hpl_port/bcast_ring.c hpl_port/bcast_long.c hpl_port/bcast_bolt.c \
	hpl_port/swap.c hpl_port/swap_binexch.c hpl_port/swap_long.c hpl_port/update.c hpl_port/lu.c \
	hpl_port/solve.c hpl_port/check.c hpl_port/report.c hpl_port/record.c hpl_port/test.c \
	hpl_port/dgemm_probe.c hpl_port/auto.c hpl_port/pool.c
EXTRA_DIST += hpl_port/sys_linux.c hpl_port/sys_darwin.c hpl_port/sys_posix.c \
	hpl_port/blas_openblas.c hpl_port/blas_accelerate.c
if HAVE_BLAS
noinst_LTLIBRARIES += libhplport.la
libhplport_la_SOURCES = $(HPL_SOURCES)
libhplport_la_CFLAGS = $(AM_CFLAGS) $(BLAS_CFLAGS) $(JANSSON_CFLAGS)
libhplport_la_LIBADD = libbolt.la $(BLAS_LIBS) $(JANSSON_LIBS) -lm
if BLAS_ACCELERATE
libhplport_la_SOURCES += hpl_port/blas_accelerate.c
else
libhplport_la_SOURCES += hpl_port/blas_openblas.c
endif
# The host's facts: the platform's file, or the POSIX fallback
# (--enable-hpl-posix-sys builds it on Linux too, as the tests do).
if BOLT_OS_LINUX
libhplport_la_SOURCES += hpl_port/sys_linux.c
else
if BOLT_OS_DARWIN
libhplport_la_SOURCES += hpl_port/sys_darwin.c
else
libhplport_la_SOURCES += hpl_port/sys_posix.c
endif
endif
bin_PROGRAMS += bolt-hpl
bolt_hpl_SOURCES = hpl_port/main.c
bolt_hpl_CFLAGS = $(AM_CFLAGS) $(BLAS_CFLAGS)
bolt_hpl_LDADD = libhplport.la libblaskernels.la libbolt.la
endif
