/*
 * blas.h — the BLAS seam: CBLAS from OpenBLAS (or any CBLAS) on Linux, the
 * Accelerate framework on macOS (configure defines BOLT_BLAS_ACCELERATE).
 */
#ifndef HPL_BLAS_H
#define HPL_BLAS_H

#ifdef BOLT_BLAS_ACCELERATE
#define ACCELERATE_NEW_LAPACK
#include <Accelerate/Accelerate.h>
#else
#include <cblas.h>
#endif

/* How many threads the BLAS runs a call on, and its name (for the report). */
int hpl_blas_threads(void);
const char *hpl_blas_name(void);
/* Sets the BLAS's threads for the calls to come: 1 where bolt-hpl runs its
 * own threads. Returns 0, or -1 where the BLAS cannot be told (then
 * bolt-hpl leaves the threading to it). */
int hpl_blas_set_threads(int n);

#endif
