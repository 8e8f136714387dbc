/*
 * f32.c — F32 weights: dot products with F32 activations (scalar; AVX2+FMA
 * and AVX-512 on x86-64; NEON on ARM).
 */
#include <stdint.h>
#include <string.h>

#include "inference/types.h"
#include "inference/types/x86.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

static void f32_to_float(const void *x, float *y, int64_t n)
{
    memcpy(y, x, (size_t)n * sizeof(float));
}

static void f32_from_float(const float *x, void *y, int64_t n)
{
    memcpy(y, x, (size_t)n * sizeof(float));
}

/* Eight partial sums, as the vector kernels keep, so the paths agree closely. */
static void dot_scalar(int n, float *s, const void *vx, const void *vy)
{
    const float *x = vx, *y = vy;
    float acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++)
            acc[k] += x[i + k] * y[i + k];
    float sum = 0;
    for (int k = 0; k < 8; k++)
        sum += acc[k];
    for (; i < n; i++)
        sum += x[i] * y[i];
    *s = sum;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) static void dot_avx2(int n, float *s, const void *vx, const void *vy)
{
    const float *x = vx, *y = vy;
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
    int i = 0;
    for (; i + 32 <= n; i += 32) {
        inf_prefetch_w(x + i, 128);
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), a1);
        a2 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 16), _mm256_loadu_ps(y + i + 16), a2);
        a3 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 24), _mm256_loadu_ps(y + i + 24), a3);
    }
    for (; i + 8 <= n; i += 8)
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), a0);
    float sum = inf_hsum8(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
    for (; i < n; i++)
        sum += x[i] * y[i];
    *s = sum;
}

/* The weights' loads are made aligned (a masked first piece up to the next
 * 64 bytes): a mapped file's rows sit 32 bytes off, and a 64-byte load across
 * two cache lines streamed 22 GB/s on one Zen 5 core against 31 aligned. */
__attribute__((target("avx512f"))) static void dot_avx512(int n, float *s, const void *vx, const void *vy)
{
    const float *x = vx, *y = vy;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
    int i = (int)((-(uintptr_t)x >> 2) & 15);
    if (i > n)
        i = n;
    if (i) {
        const __mmask16 m = (__mmask16)((1u << i) - 1);
        a0 = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x), _mm512_maskz_loadu_ps(m, y));
    }
    for (; i + 64 <= n; i += 64) {
        inf_prefetch_w(x + i, 256);
        a0 = _mm512_fmadd_ps(_mm512_load_ps(x + i), _mm512_loadu_ps(y + i), a0);
        a1 = _mm512_fmadd_ps(_mm512_load_ps(x + i + 16), _mm512_loadu_ps(y + i + 16), a1);
        a2 = _mm512_fmadd_ps(_mm512_load_ps(x + i + 32), _mm512_loadu_ps(y + i + 32), a2);
        a3 = _mm512_fmadd_ps(_mm512_load_ps(x + i + 48), _mm512_loadu_ps(y + i + 48), a3);
    }
    for (; i + 16 <= n; i += 16)
        a0 = _mm512_fmadd_ps(_mm512_load_ps(x + i), _mm512_loadu_ps(y + i), a0);
    if (i < n) {
        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y + i), a1);
    }
    *s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}
/* Four rows stride bytes apart, side by side (types.h). Their loads are
 * aligned as dot_avx512's are when the rows share an offset within a cache
 * line (a stride of whole lines: every matrix whose rows are); otherwise
 * the rows go one at a time. */
__attribute__((target("avx512f"))) static void dot4_avx512(int n, float s[4], const void *vx, size_t stride,
                                                           const void *vy)
{
    if (stride % 64) {
        for (int k = 0; k < 4; k++)
            dot_avx512(n, &s[k], (const uint8_t *)vx + k * stride, vy);
        return;
    }
    const float *y = vy, *x0 = vx, *x1 = (const float *)((const uint8_t *)vx + stride),
                *x2 = (const float *)((const uint8_t *)vx + 2 * stride),
                *x3 = (const float *)((const uint8_t *)vx + 3 * stride);
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    int i = (int)((-(uintptr_t)x0 >> 2) & 15);
    if (i > n)
        i = n;
    if (i) {
        const __mmask16 m = (__mmask16)((1u << i) - 1);
        const __m512 yv = _mm512_maskz_loadu_ps(m, y);
        a0 = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x0), yv);
        a1 = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x1), yv);
        a2 = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x2), yv);
        a3 = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x3), yv);
    }
    for (; i + 32 <= n; i += 32) {
        const __m512 y0 = _mm512_loadu_ps(y + i), y1 = _mm512_loadu_ps(y + i + 16);
        a0 = _mm512_fmadd_ps(_mm512_load_ps(x0 + i + 16), y1, _mm512_fmadd_ps(_mm512_load_ps(x0 + i), y0, a0));
        a1 = _mm512_fmadd_ps(_mm512_load_ps(x1 + i + 16), y1, _mm512_fmadd_ps(_mm512_load_ps(x1 + i), y0, a1));
        a2 = _mm512_fmadd_ps(_mm512_load_ps(x2 + i + 16), y1, _mm512_fmadd_ps(_mm512_load_ps(x2 + i), y0, a2));
        a3 = _mm512_fmadd_ps(_mm512_load_ps(x3 + i + 16), y1, _mm512_fmadd_ps(_mm512_load_ps(x3 + i), y0, a3));
    }
    for (; i < n; i += 16) {
        const __mmask16 m = (__mmask16)(n - i >= 16 ? 0xffff : (1u << (n - i)) - 1);
        const __m512 yv = _mm512_maskz_loadu_ps(m, y + i);
        a0 = _mm512_fmadd_ps(_mm512_maskz_load_ps(m, x0 + i), yv, a0);
        a1 = _mm512_fmadd_ps(_mm512_maskz_load_ps(m, x1 + i), yv, a1);
        a2 = _mm512_fmadd_ps(_mm512_maskz_load_ps(m, x2 + i), yv, a2);
        a3 = _mm512_fmadd_ps(_mm512_maskz_load_ps(m, x3 + i), yv, a3);
    }
    inf_hsum16x4(a0, a1, a2, a3, s);
}
#elif defined(__aarch64__)
static void dot_neon(int n, float *s, const void *vx, const void *vy)
{
    const float *x = vx, *y = vy;
    float32x4_t a0 = vdupq_n_f32(0), a1 = vdupq_n_f32(0), a2 = vdupq_n_f32(0), a3 = vdupq_n_f32(0);
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        a0 = vfmaq_f32(a0, vld1q_f32(x + i), vld1q_f32(y + i));
        a1 = vfmaq_f32(a1, vld1q_f32(x + i + 4), vld1q_f32(y + i + 4));
        a2 = vfmaq_f32(a2, vld1q_f32(x + i + 8), vld1q_f32(y + i + 8));
        a3 = vfmaq_f32(a3, vld1q_f32(x + i + 12), vld1q_f32(y + i + 12));
    }
    float sum = vaddvq_f32(vaddq_f32(vaddq_f32(a0, a1), vaddq_f32(a2, a3)));
    for (; i < n; i++)
        sum += x[i] * y[i];
    *s = sum;
}
#endif

static const inf_kernel_t kernels[] = {
#if defined(__x86_64__)
    {"avx512", INF_CPU_AVX512, dot_avx512, NULL, dot4_avx512, NULL},
    {"avx2", INF_CPU_AVX2, dot_avx2, NULL, NULL, NULL},
#elif defined(__aarch64__)
    {"neon", INF_CPU_NEON, dot_neon, NULL, NULL, NULL},
#endif
    {NULL, 0, NULL, NULL, NULL, NULL}};

/* Prompts go to the BLAS where there is one: its SGEMM blocks for the
 * caches as dot products cannot (measured in bench/llm-compare). */
static void f32_select(inf_type_t *self, unsigned have)
{
    (void)have;
#ifdef INF_HAVE_BLAS
    self->gemm = &inf_gemm_sgemm;
#else
    (void)self;
#endif
}

inf_type_t inf_type_f32 = {.id = GGML_F32, .name = "F32", .block = 1, .bytes = 4, .dot_type = GGML_F32,
                           .to_float = f32_to_float, .from_float = f32_from_float, .vec_dot = dot_scalar,
                           .vec_dot_scalar = dot_scalar, .simd = "scalar", .kernels = kernels, .select = f32_select};
