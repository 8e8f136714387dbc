/*
 * bf16.c — BF16 weights. As llama.cpp, the activations are rounded to BF16
 * for the dot product (dot type BF16); each side widened by a 16-bit shift,
 * the products exact in F32. Scalar, AVX2 and AVX-512 on x86-64, NEON.
 */
#include "inference/types.h"
#include "inference/types/x86.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

static void bf16_to_float(const void *vx, float *y, int64_t n)
{
    const uint16_t *x = vx;
    for (int64_t i = 0; i < n; i++)
        y[i] = inf_bf16_to_f32(x[i]);
}

static void bf16_from_float(const float *x, void *vy, int64_t n)
{
    uint16_t *y = vy;
    for (int64_t i = 0; i < n; i++)
        y[i] = inf_f32_to_bf16(x[i]);
}

static void dot_scalar(int n, float *s, const void *vx, const void *vy)
{
    const uint16_t *x = vx, *y = vy;
    float acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++)
            acc[k] += inf_bf16_to_f32(x[i + k]) * inf_bf16_to_f32(y[i + k]);
    float sum = 0;
    for (int k = 0; k < 8; k++)
        sum += acc[k];
    for (; i < n; i++)
        sum += inf_bf16_to_f32(x[i]) * inf_bf16_to_f32(y[i]);
    *s = sum;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) static inline __m256 widen8(const uint16_t *x)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)x)), 16));
}

__attribute__((target("avx2,fma"))) static void dot_avx2(int n, float *s, const void *vx, const void *vy)
{
    const uint16_t *x = vx, *y = vy;
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        inf_prefetch_w(x + i, 32);
        a0 = _mm256_fmadd_ps(widen8(x + i), widen8(y + i), a0);
        a1 = _mm256_fmadd_ps(widen8(x + i + 8), widen8(y + i + 8), a1);
    }
    for (; i + 8 <= n; i += 8)
        a0 = _mm256_fmadd_ps(widen8(x + i), widen8(y + i), a0);
    __m256 v = _mm256_add_ps(a0, a1);
    float sum = inf_hsum8(v);
    for (; i < n; i++)
        sum += inf_bf16_to_f32(x[i]) * inf_bf16_to_f32(y[i]);
    *s = sum;
}

__attribute__((target("avx512f"))) static inline __m512 widen16(const uint16_t *x)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)x)), 16));
}

__attribute__((target("avx512f"))) static void dot_avx512(int n, float *s, const void *vx, const void *vy)
{
    const uint16_t *x = vx, *y = vy;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    int i = 0;
    for (; i + 32 <= n; i += 32) {
        inf_prefetch_w(x + i, 64);
        a0 = _mm512_fmadd_ps(widen16(x + i), widen16(y + i), a0);
        a1 = _mm512_fmadd_ps(widen16(x + i + 16), widen16(y + i + 16), a1);
    }
    for (; i + 16 <= n; i += 16)
        a0 = _mm512_fmadd_ps(widen16(x + i), widen16(y + i), a0);
    float sum = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
    for (; i < n; i++)
        sum += inf_bf16_to_f32(x[i]) * inf_bf16_to_f32(y[i]);
    *s = sum;
}
#elif defined(__aarch64__)
static void dot_neon(int n, float *s, const void *vx, const void *vy)
{
    const uint16_t *x = vx, *y = vy;
    float32x4_t a0 = vdupq_n_f32(0), a1 = vdupq_n_f32(0);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        uint16x8_t hx = vld1q_u16(x + i), hy = vld1q_u16(y + i);
        a0 = vfmaq_f32(a0, vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(hx), 16)),
                       vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(hy), 16)));
        a1 = vfmaq_f32(a1, vreinterpretq_f32_u32(vshll_n_u16(vget_high_u16(hx), 16)),
                       vreinterpretq_f32_u32(vshll_n_u16(vget_high_u16(hy), 16)));
    }
    float sum = vaddvq_f32(vaddq_f32(a0, a1));
    for (; i < n; i++)
        sum += inf_bf16_to_f32(x[i]) * inf_bf16_to_f32(y[i]);
    *s = sum;
}
#endif

static const inf_kernel_t kernels[] = {
#if defined(__x86_64__)
    {"avx512", INF_CPU_AVX512, dot_avx512, NULL, NULL, NULL},
    {"avx2", INF_CPU_AVX2, dot_avx2, NULL, NULL, NULL},
#elif defined(__aarch64__)
    {"neon", INF_CPU_NEON, dot_neon, NULL, NULL, NULL},
#endif
    {NULL, 0, NULL, NULL, NULL, NULL}};

/* Prompts: SGEMM on widened rows beats the dot products (bench). */
static void bf16_select(inf_type_t *t, unsigned have)
{
    (void)have;
#ifdef INF_HAVE_BLAS
    t->gemm = &inf_gemm_sgemm_bf16;
#else
    (void)t;
#endif
}

inf_type_t inf_type_bf16 = {.id = GGML_BF16, .name = "BF16", .block = 1, .bytes = 2, .dot_type = GGML_BF16,
                            .to_float = bf16_to_float, .from_float = bf16_from_float, .vec_dot = dot_scalar,
                            .vec_dot_scalar = dot_scalar, .simd = "scalar", .kernels = kernels, .select = bf16_select};
