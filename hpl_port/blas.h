/*
 * blas.h — the BLAS seam: CBLAS from OpenBLAS (or any CBLAS) on Linux, the
 * Accelerate framework on macOS (configure defines BOLT_HPL_ACCELERATE).
 */
#ifndef HPL_BLAS_H
#define HPL_BLAS_H

#ifdef BOLT_HPL_ACCELERATE
#define ACCELERATE_NEW_LAPACK
#include <Accelerate/Accelerate.h>
#else
#include <cblas.h>
#endif

/* How many threads the BLAS runs a call on, and its name (for the report). */
int hpl_blas_threads(void);
const char *hpl_blas_name(void);

#endif
