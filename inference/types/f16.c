/*
 * f16.c — F16 weights. As llama.cpp, the activations are rounded to F16 for
 * the dot product (dot type F16: both sides widened to F32, multiplied and
 * summed in F32), so that an F16 model's logits match its bit for bit; the
 * attention's F16 keys against F32 queries use inf_dot_f16_f32. Scalar,
 * AVX2+F16C and AVX-512 on x86-64, NEON on ARM.
 */
#include "inference/types.h"
#include "inference/types/x86.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

static void f16_to_float(const void *vx, float *y, int64_t n)
{
    const uint16_t *x = vx;
    for (int64_t i = 0; i < n; i++)
        y[i] = inf_f16_to_f32(x[i]);
}

static void f16_from_float(const float *x, void *vy, int64_t n)
{
    uint16_t *y = vy;
    for (int64_t i = 0; i < n; i++)
        y[i] = inf_f32_to_f16(x[i]);
}

/* Eight partial sums, as the vector kernels keep, so the paths agree closely. */
#define SCALAR_DOT(name, conv_y, ytype)                                                                      \
    static void name(int n, float *s, const void *vx, const void *vy)                                       \
    {                                                                                                        \
        const uint16_t *x = vx;                                                                              \
        const ytype *y = vy;                                                                                 \
        float acc[8] = {0};                                                                                  \
        int i = 0;                                                                                           \
        for (; i + 8 <= n; i += 8)                                                                           \
            for (int k = 0; k < 8; k++)                                                                      \
                acc[k] += inf_f16_to_f32(x[i + k]) * conv_y(y[i + k]);                                       \
        float sum = 0;                                                                                       \
        for (int k = 0; k < 8; k++)                                                                          \
            sum += acc[k];                                                                                   \
        for (; i < n; i++)                                                                                   \
            sum += inf_f16_to_f32(x[i]) * conv_y(y[i]);                                                      \
        *s = sum;                                                                                            \
    }
#define AS_FLOAT(v) (v)
SCALAR_DOT(dot_scalar, inf_f16_to_f32, uint16_t)
SCALAR_DOT(dot32_scalar, AS_FLOAT, float)

#if defined(__x86_64__)
__attribute__((target("avx2,fma,f16c"))) static inline __m256 ld16(const uint16_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}

__attribute__((target("avx2,fma,f16c"))) static void dot_avx2(int n, float *s, const void *vx, const void *vy)
{
    const uint16_t *x = vx, *y = vy;
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        inf_prefetch_w(x + i, 32);
        a0 = _mm256_fmadd_ps(ld16(x + i), ld16(y + i), a0);
        a1 = _mm256_fmadd_ps(ld16(x + i + 8), ld16(y + i + 8), a1);
    }
    for (; i + 8 <= n; i += 8)
        a0 = _mm256_fmadd_ps(ld16(x + i), ld16(y + i), a0);
    float sum = inf_hsum8(_mm256_add_ps(a0, a1));
    for (; i < n; i++)
        sum += inf_f16_to_f32(x[i]) * inf_f16_to_f32(y[i]);
    *s = sum;
}

__attribute__((target("avx2,fma,f16c"))) static void dot32_avx2(int n, float *s, const void *vx, const void *vy)
{
    const uint16_t *x = vx;
    const float *y = vy;
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        a0 = _mm256_fmadd_ps(ld16(x + i), _mm256_loadu_ps(y + i), a0);
        a1 = _mm256_fmadd_ps(ld16(x + i + 8), _mm256_loadu_ps(y + i + 8), a1);
    }
    for (; i + 8 <= n; i += 8)
        a0 = _mm256_fmadd_ps(ld16(x + i), _mm256_loadu_ps(y + i), a0);
    float sum = inf_hsum8(_mm256_add_ps(a0, a1));
    for (; i < n; i++)
        sum += inf_f16_to_f32(x[i]) * y[i];
    *s = sum;
}

__attribute__((target("avx2,fma,f16c"))) static void from_float_f16c(const float *x, void *vy, int64_t n)
{
    uint16_t *y = vy;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(y + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++)
        y[i] = inf_f32_to_f16(x[i]);
}

__attribute__((target("avx2,fma,f16c"))) static void to_float_f16c(const void *vx, float *y, int64_t n)
{
    const uint16_t *x = vx;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, ld16(x + i));
    for (; i < n; i++)
        y[i] = inf_f16_to_f32(x[i]);
}

__attribute__((target("avx2,fma,f16c"))) static void axpy_avx2(int n, float a, const void *vx, float *y)
{
    const uint16_t *x = vx;
    const __m256 va = _mm256_set1_ps(a);
    int i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, ld16(x + i), _mm256_loadu_ps(y + i)));
    for (; i < n; i++)
        y[i] += a * _cvtsh_ss(x[i]);
}

__attribute__((target("avx2,fma,f16c"))) static void round_avx2(float *x, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(x + i, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT)));
    for (; i < n; i++)
        x[i] = _cvtsh_ss(_cvtss_sh(x[i], _MM_FROUND_TO_NEAREST_INT));
}

__attribute__((target("avx512f"))) static void dot_avx512(int n, float *s, const void *vx, const void *vy)
{
    const uint16_t *x = vx, *y = vy;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    int i = 0;
    for (; i + 32 <= n; i += 32) {
        inf_prefetch_w(x + i, 64);
        a0 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(x + i))),
                             _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(y + i))), a0);
        a1 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(x + i + 16))),
                             _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(y + i + 16))), a1);
    }
    for (; i + 16 <= n; i += 16)
        a0 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(x + i))),
                             _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(y + i))), a0);
    float sum = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
    for (; i < n; i++)
        sum += inf_f16_to_f32(x[i]) * inf_f16_to_f32(y[i]);
    *s = sum;
}
#elif defined(__aarch64__)
static void dot_neon(int n, float *s, const void *vx, const void *vy)
{
    const __fp16 *x = vx, *y = vy;
    float32x4_t a0 = vdupq_n_f32(0), a1 = vdupq_n_f32(0);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        float16x8_t hx = vld1q_f16(x + i), hy = vld1q_f16(y + i);
        a0 = vfmaq_f32(a0, vcvt_f32_f16(vget_low_f16(hx)), vcvt_f32_f16(vget_low_f16(hy)));
        a1 = vfmaq_f32(a1, vcvt_high_f32_f16(hx), vcvt_high_f32_f16(hy));
    }
    float sum = vaddvq_f32(vaddq_f32(a0, a1));
    for (; i < n; i++)
        sum += (float)x[i] * (float)y[i];
    *s = sum;
}

static void dot32_neon(int n, float *s, const void *vx, const void *vy)
{
    const __fp16 *x = vx;
    const float *y = vy;
    float32x4_t a0 = vdupq_n_f32(0), a1 = vdupq_n_f32(0);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        float16x8_t h = vld1q_f16(x + i);
        a0 = vfmaq_f32(a0, vcvt_f32_f16(vget_low_f16(h)), vld1q_f32(y + i));
        a1 = vfmaq_f32(a1, vcvt_high_f32_f16(h), vld1q_f32(y + i + 4));
    }
    float sum = vaddvq_f32(vaddq_f32(a0, a1));
    for (; i < n; i++)
        sum += (float)x[i] * y[i];
    *s = sum;
}
#endif

static void axpy_scalar(int n, float a, const void *vx, float *y)
{
    const uint16_t *x = vx;
    for (int i = 0; i < n; i++)
        y[i] += a * inf_f16_to_f32(x[i]);
}

static void round_scalar(float *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = inf_f16_to_f32(inf_f32_to_f16(x[i]));
}

static inf_vec_dot_fn *dot32 = dot32_scalar;
static void (*axpy)(int, float, const void *, float *) = axpy_scalar;
static void (*round16)(float *, int) = round_scalar;

void inf_f16_axpy(int n, float a, const void *x, float *y)
{
    axpy(n, a, x, y);
}

void inf_round_to_f16(float *x, int n)
{
    round16(x, n);
}

void inf_dot_f16_f32(int n, float *s, const void *x, const float *y)
{
    dot32(n, s, x, y);
}

static const inf_kernel_t kernels[] = {
#if defined(__x86_64__)
    {"avx512", INF_CPU_AVX512, dot_avx512, NULL, NULL, NULL},
    {"avx2", INF_CPU_AVX2, dot_avx2, NULL, NULL, NULL},
#elif defined(__aarch64__)
    {"neon", INF_CPU_NEON, dot_neon, NULL, NULL, NULL},
#endif
    {NULL, 0, NULL, NULL, NULL, NULL}};

/* The conversions and the attention's kernels, beside the dot product. */
static void f16_select(inf_type_t *t, unsigned have)
{
    inf_f16_attn_select(have);
#ifdef INF_HAVE_BLAS
    /* prompts: SGEMM on widened rows beats the dot products (bench) */
    t->gemm = &inf_gemm_sgemm_f16;
#else
    (void)t;
#endif
#if defined(__x86_64__)
    if (have & INF_CPU_AVX2) {
        t->to_float = to_float_f16c;
        t->from_float = from_float_f16c;
        dot32 = dot32_avx2;
        axpy = axpy_avx2;
        round16 = round_avx2;
    }
#elif defined(__aarch64__)
    if (have & INF_CPU_NEON)
        dot32 = dot32_neon;
#endif
}

inf_type_t inf_type_f16 = {.id = GGML_F16, .name = "F16", .block = 1, .bytes = 2, .dot_type = GGML_F16,
                           .to_float = f16_to_float, .from_float = f16_from_float, .vec_dot = dot_scalar,
                           .vec_dot_scalar = dot_scalar, .simd = "scalar", .kernels = kernels, .select = f16_select};
