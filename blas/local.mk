# blas/: what the workloads need of the BLAS beyond its calls: that OpenBLAS
# runs the kernels of this CPU (kernels.h). bolt-hpl and bolt-llm call it
# first thing in main.
EXTRA_DIST += blas/kernels.h blas/kernels_openblas.c blas/kernels_none.c blas/restart_linux.c \
	blas/restart_posix.c
noinst_LTLIBRARIES += libblaskernels.la
libblaskernels_la_SOURCES = blas/kernels.h
if HAVE_BLAS
if BLAS_ACCELERATE
libblaskernels_la_SOURCES += blas/kernels_none.c
else
libblaskernels_la_SOURCES += blas/kernels_openblas.c
libblaskernels_la_CFLAGS = $(AM_CFLAGS) $(BLAS_CFLAGS)
libblaskernels_la_LIBADD = $(BLAS_LIBS)
# restarting: the platform's file, or the POSIX fallback
if BOLT_OS_LINUX
libblaskernels_la_SOURCES += blas/restart_linux.c
else
libblaskernels_la_SOURCES += blas/restart_posix.c
endif
endif
else
libblaskernels_la_SOURCES += blas/kernels_none.c
endif
