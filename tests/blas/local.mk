# tests/blas/: OpenBLAS's kernel choice checked and mended (blas/kernels.h),
# with the platform's restart and with the POSIX fallback.
EXTRA_DIST += tests/blas/kernels_test.c
if HAVE_BLAS
if !BLAS_ACCELERATE
check_PROGRAMS += tests/blas/kernels_test tests/blas/kernels_posix_test
TESTS += tests/blas/kernels_test tests/blas/kernels_posix_test
tests_blas_kernels_test_SOURCES = tests/blas/kernels_test.c blas/kernels_openblas.c
if BOLT_OS_LINUX
tests_blas_kernels_test_SOURCES += blas/restart_linux.c
else
tests_blas_kernels_test_SOURCES += blas/restart_posix.c
endif
tests_blas_kernels_test_CFLAGS = $(AM_CFLAGS) $(BLAS_CFLAGS)
tests_blas_kernels_test_LDADD = $(BLAS_LIBS)
tests_blas_kernels_posix_test_SOURCES = tests/blas/kernels_test.c blas/kernels_openblas.c blas/restart_posix.c
tests_blas_kernels_posix_test_CFLAGS = $(AM_CFLAGS) $(BLAS_CFLAGS)
tests_blas_kernels_posix_test_LDADD = $(BLAS_LIBS)
endif
endif
