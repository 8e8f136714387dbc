/*
 * f32_sgemm.c — F32 batches through the BLAS: SGEMM of the tokens against
 * a thread's share of the weight rows. The BLAS runs one thread a call
 * (OpenBLAS told so once) because the engine's pool already splits the
 * rows; Accelerate on macOS (configure's BOLT_BLAS_ACCELERATE), any CBLAS
 * elsewhere.
 */
#include <pthread.h>

#include "inference/types.h"

#ifdef BOLT_BLAS_ACCELERATE
#define ACCELERATE_NEW_LAPACK
#include <Accelerate/Accelerate.h>
#else
#include <cblas.h>
#endif

/* SGEMM reads the activations where they are: no packing. */
static size_t sgemm_group_bytes(int cols)
{
    (void)cols;
    return 0;
}

#ifndef BOLT_BLAS_ACCELERATE
static pthread_once_t one_thread = PTHREAD_ONCE_INIT;
static void blas_one_thread(void)
{
    openblas_set_num_threads(1);
}
#endif

void inf_sgemm_one_thread(void)
{
#ifndef BOLT_BLAS_ACCELERATE
    pthread_once(&one_thread, blas_one_thread);
#endif
}

static void sgemm_run(int cols, const void *w, size_t row_bytes, int nr, const void *xp, int ldx, int nt, float *y,
                      int ldy)
{
    inf_sgemm_one_thread();
    /* y (nt x nr) = x (nt x cols) . w (nr x cols)^T */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nt, nr, cols, 1.0f, xp, ldx, w,
                (int)(row_bytes / sizeof(float)), 0.0f, y, ldy);
}

const inf_gemm_t inf_gemm_sgemm = {
    .group = 1, .group_bytes = sgemm_group_bytes, .pack = NULL, .run = sgemm_run, .whole = 1};
