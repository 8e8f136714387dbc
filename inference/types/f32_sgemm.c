/*
 * f32_sgemm.c — F32 batches through the BLAS: SGEMM of the tokens against
 * a thread's share of the weight rows. The BLAS runs one thread a call
 * (OpenBLAS told so once) because the engine's pool already splits the
 * rows; Accelerate on macOS (configure's BOLT_BLAS_ACCELERATE), any CBLAS
 * elsewhere.
 */
#include <pthread.h>
#include <string.h>

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

/* F16 weights: the tokens rounded to F16 once, as the F16 dot products take
 * them (so the products are the same, exact in F32), a block of weight rows
 * widened to F32 on the stack a chunk of columns at a time, then SGEMM. */
enum { F16_ROWS = 128, F16_COLS = 256 }; /* 128 KB of widened weights */

static size_t f16_group_bytes(int cols)
{
    return (size_t)cols * sizeof(float);
}

static void f16_pack(const float *x, int ldx, int nt, int cols, void *dst)
{
    for (int t = 0; t < nt; t++) {
        float *d = (float *)dst + (size_t)t * (size_t)cols;
        memcpy(d, x + (size_t)t * (size_t)ldx, (size_t)cols * sizeof(float));
        inf_round_to_f16(d, cols);
    }
}

static void f16_run(int cols, const void *w, size_t row_bytes, int nr, const void *xp, int ldx, int nt, float *y,
                    int ldy)
{
    (void)ldx; /* the packed tokens are cols apart */
    float wide[F16_ROWS * F16_COLS];
    inf_sgemm_one_thread();
    for (int r0 = 0; r0 < nr; r0 += F16_ROWS) {
        const int rn = nr - r0 < F16_ROWS ? nr - r0 : F16_ROWS;
        for (int k0 = 0; k0 < cols; k0 += F16_COLS) {
            const int kn = cols - k0 < F16_COLS ? cols - k0 : F16_COLS;
            for (int i = 0; i < rn; i++)
                inf_type_f16.to_float((const uint8_t *)w + (size_t)(r0 + i) * row_bytes + (size_t)k0 * 2,
                                      wide + (size_t)i * F16_COLS, kn);
            /* y (nt x rn) (+)= x (nt x kn) . wide (rn x kn)^T */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nt, rn, kn, 1.0f, (const float *)xp + k0, cols,
                        wide, F16_COLS, k0 ? 1.0f : 0.0f, y + r0, ldy);
        }
    }
}

const inf_gemm_t inf_gemm_sgemm_f16 = {
    .group = 1, .group_bytes = f16_group_bytes, .pack = f16_pack, .run = f16_run, .whole = 1};

const inf_gemm_t inf_gemm_sgemm = {
    .group = 1, .group_bytes = sgemm_group_bytes, .pack = NULL, .run = sgemm_run, .whole = 1};
