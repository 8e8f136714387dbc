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

/* F16 and BF16 weights: the tokens rounded to the weights' type once, as
 * their dot products take them (so the products are the same, exact in
 * F32), a block of weight rows widened to F32 on the stack a chunk of
 * columns at a time, then SGEMM. */
enum { WIDE_ROWS = 128, WIDE_COLS = 256 }; /* 128 KB of widened weights */

static size_t wide_group_bytes(int cols)
{
    return (size_t)cols * sizeof(float);
}

/* x rounded to the type t and back, as its from_float and to_float do */
static void wide_pack(const inf_type_t *t, const float *x, int ldx, int nt, int cols, float *dst)
{
    uint16_t half[WIDE_COLS];
    for (int tk = 0; tk < nt; tk++)
        for (int k0 = 0; k0 < cols; k0 += WIDE_COLS) {
            const int kn = cols - k0 < WIDE_COLS ? cols - k0 : WIDE_COLS;
            t->from_float(x + (size_t)tk * (size_t)ldx + k0, half, kn);
            t->to_float(half, dst + (size_t)tk * (size_t)cols + k0, kn);
        }
}

static void wide_run(const inf_type_t *t, int cols, const void *w, size_t row_bytes, int nr, const float *xp, int nt,
                     float *y, int ldy)
{
    float wide[WIDE_ROWS * WIDE_COLS];
    inf_sgemm_one_thread();
    for (int r0 = 0; r0 < nr; r0 += WIDE_ROWS) {
        const int rn = nr - r0 < WIDE_ROWS ? nr - r0 : WIDE_ROWS;
        for (int k0 = 0; k0 < cols; k0 += WIDE_COLS) {
            const int kn = cols - k0 < WIDE_COLS ? cols - k0 : WIDE_COLS;
            for (int i = 0; i < rn; i++)
                t->to_float((const uint8_t *)w + (size_t)(r0 + i) * row_bytes + (size_t)k0 * 2,
                            wide + (size_t)i * WIDE_COLS, kn);
            /* y (nt x rn) (+)= x (nt x kn) . wide (rn x kn)^T */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nt, rn, kn, 1.0f, xp + k0, cols, wide, WIDE_COLS,
                        k0 ? 1.0f : 0.0f, y + r0, ldy);
        }
    }
}

/* (the packed tokens are cols apart: ldx is the caller's) */
static void f16_pack(const float *x, int ldx, int nt, int cols, void *dst)
{
    wide_pack(&inf_type_f16, x, ldx, nt, cols, dst);
}

static void f16_run(int cols, const void *w, size_t row_bytes, int nr, const void *xp, int ldx, int nt, float *y,
                    int ldy)
{
    (void)ldx;
    wide_run(&inf_type_f16, cols, w, row_bytes, nr, xp, nt, y, ldy);
}

static void bf16_pack(const float *x, int ldx, int nt, int cols, void *dst)
{
    wide_pack(&inf_type_bf16, x, ldx, nt, cols, dst);
}

static void bf16_run(int cols, const void *w, size_t row_bytes, int nr, const void *xp, int ldx, int nt, float *y,
                     int ldy)
{
    (void)ldx;
    wide_run(&inf_type_bf16, cols, w, row_bytes, nr, xp, nt, y, ldy);
}

const inf_gemm_t inf_gemm_sgemm_f16 = {
    .group = 1, .group_bytes = wide_group_bytes, .pack = f16_pack, .run = f16_run, .whole = 1};
const inf_gemm_t inf_gemm_sgemm_bf16 = {
    .group = 1, .group_bytes = wide_group_bytes, .pack = bf16_pack, .run = bf16_run, .whole = 1};

const inf_gemm_t inf_gemm_sgemm = {
    .group = 1, .group_bytes = sgemm_group_bytes, .pack = NULL, .run = sgemm_run, .whole = 1};
