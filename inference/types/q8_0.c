/*
 * q8_0.c — Q8_0: blocks of 32 signed bytes and an F16 scale. Its dot type
 * is itself: both sides in int8, one multiply-add per block in integers
 * (scalar; AVX2; AVX-512 VNNI; NEON with the dot-product instructions).
 */
#include <math.h>
#include <string.h>

#include "inference/types.h"
#include "inference/types/x86.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

typedef inf_block_q8_0 block_t;

static void q8_0_to_float(const void *vx, float *y, int64_t n)
{
    const block_t *x = vx;
    for (int64_t i = 0; i < n / 32; i++) {
        float d = inf_f16_to_f32(x[i].d);
        for (int j = 0; j < 32; j++)
            y[i * 32 + j] = x[i].qs[j] * d;
    }
}

static void q8_0_from_float(const float *x, void *vy, int64_t n)
{
    block_t *y = vy;
    for (int64_t i = 0; i < n / 32; i++) {
        float amax = 0;
        for (int j = 0; j < 32; j++)
            amax = fmaxf(amax, fabsf(x[i * 32 + j]));
        float d = amax / 127, id = d ? 1.0f / d : 0;
        y[i].d = inf_f32_to_f16(d);
        for (int j = 0; j < 32; j++)
            y[i].qs[j] = (int8_t)roundf(x[i * 32 + j] * id);
    }
}

static void dot_scalar(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx, *y = vy;
    float sum = 0;
    for (int i = 0; i < n / 32; i++) {
        int acc = 0;
        for (int j = 0; j < 32; j++)
            acc += x[i].qs[j] * y[i].qs[j];
        sum += (float)acc * inf_f16_to_f32(x[i].d) * inf_f16_to_f32(y[i].d);
    }
    *s = sum;
}

#if defined(__x86_64__)
/* 32 products of signed bytes summed into 8 int32 lanes: maddubs wants one
 * unsigned side, so |x| against y carrying x's sign. */
__attribute__((target("avx2"))) static inline __m256i dot32_avx2(__m256i x, __m256i y)
{
    __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(x, x), _mm256_sign_epi8(y, x));
    return _mm256_madd_epi16(p, _mm256_set1_epi16(1));
}

__attribute__((target("avx2,fma,f16c"))) static void dot_avx2(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx, *y = vy;
    __m256 acc = _mm256_setzero_ps();
    for (int i = 0; i < n / 32; i++) {
        __m256i qx = _mm256_loadu_si256((const __m256i *)x[i].qs), qy = _mm256_loadu_si256((const __m256i *)y[i].qs);
        __m256 d = _mm256_set1_ps(_cvtsh_ss(x[i].d) * _cvtsh_ss(y[i].d));
        acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(dot32_avx2(qx, qy)), acc);
    }
    *s = inf_hsum8(acc);
}

/* VNNI (AVX-VNNI or AVX-512 VL): dpbusd also wants one unsigned side, so
 * |x| against y carrying x's sign, as above, in one instruction; two blocks
 * an iteration into two accumulators, so loads overlap the arithmetic. */
#define Q8_0_VNNI_BODY(DPBUSD)                                                                                   \
    const block_t *x = vx, *y = vy;                                                                              \
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();                                               \
    const int nb = n / 32;                                                                                       \
    int i = 0;                                                                                                   \
    for (; i + 2 <= nb; i += 2) {                                                                                \
        __m256i x0 = _mm256_loadu_si256((const __m256i *)x[i].qs), y0 = _mm256_loadu_si256((const __m256i *)y[i].qs); \
        __m256i x1 = _mm256_loadu_si256((const __m256i *)x[i + 1].qs),                                           \
                y1 = _mm256_loadu_si256((const __m256i *)y[i + 1].qs);                                           \
        __m256i p0 = DPBUSD(_mm256_setzero_si256(), _mm256_sign_epi8(x0, x0), _mm256_sign_epi8(y0, x0));         \
        __m256i p1 = DPBUSD(_mm256_setzero_si256(), _mm256_sign_epi8(x1, x1), _mm256_sign_epi8(y1, x1));         \
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(_cvtsh_ss(x[i].d) * _cvtsh_ss(y[i].d)), _mm256_cvtepi32_ps(p0), acc0); \
        acc1 = _mm256_fmadd_ps(_mm256_set1_ps(_cvtsh_ss(x[i + 1].d) * _cvtsh_ss(y[i + 1].d)), _mm256_cvtepi32_ps(p1), \
                               acc1);                                                                            \
    }                                                                                                            \
    for (; i < nb; i++) {                                                                                        \
        __m256i x0 = _mm256_loadu_si256((const __m256i *)x[i].qs), y0 = _mm256_loadu_si256((const __m256i *)y[i].qs); \
        __m256i p0 = DPBUSD(_mm256_setzero_si256(), _mm256_sign_epi8(x0, x0), _mm256_sign_epi8(y0, x0));         \
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(_cvtsh_ss(x[i].d) * _cvtsh_ss(y[i].d)), _mm256_cvtepi32_ps(p0), acc0); \
    }                                                                                                            \
    *s = inf_hsum8(_mm256_add_ps(acc0, acc1));

__attribute__((target("avx2,fma,f16c,avxvnni"))) static void dot_avxvnni(int n, float *s, const void *vx,
                                                                          const void *vy)
{
    Q8_0_VNNI_BODY(_mm256_dpbusd_avx_epi32)
}

__attribute__((target("avx2,fma,f16c,avx512f,avx512vl,avx512vnni"))) static void dot_avx512vnni(int n, float *s,
                                                                                                 const void *vx,
                                                                                                 const void *vy)
{
    Q8_0_VNNI_BODY(_mm256_dpbusd_epi32)
}
#elif defined(__aarch64__)
static void dot_neon(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx, *y = vy;
    float32x4_t acc = vdupq_n_f32(0);
    for (int i = 0; i < n / 32; i++) {
        int8x16_t x0 = vld1q_s8(x[i].qs), x1 = vld1q_s8(x[i].qs + 16);
        int8x16_t y0 = vld1q_s8(y[i].qs), y1 = vld1q_s8(y[i].qs + 16);
#if defined(__ARM_FEATURE_DOTPROD)
        int32x4_t p = vdotq_s32(vdotq_s32(vdupq_n_s32(0), x0, y0), x1, y1);
#else
        int16x8_t a = vmull_s8(vget_low_s8(x0), vget_low_s8(y0));
        a = vmlal_s8(a, vget_high_s8(x0), vget_high_s8(y0));
        int16x8_t b = vmull_s8(vget_low_s8(x1), vget_low_s8(y1));
        b = vmlal_s8(b, vget_high_s8(x1), vget_high_s8(y1));
        int32x4_t p = vaddq_s32(vpaddlq_s16(a), vpaddlq_s16(b));
#endif
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(p), inf_f16_to_f32(x[i].d) * inf_f16_to_f32(y[i].d));
    }
    *s = vaddvq_f32(acc);
}
#endif

static const inf_kernel_t kernels[] = {
#if defined(__x86_64__)
    {"avx-vnni", INF_CPU_AVX2 | INF_CPU_AVXVNNI, dot_avxvnni},
    {"avx512-vnni", INF_CPU_AVX2 | INF_CPU_AVX512VNNI, dot_avx512vnni},
    {"avx2", INF_CPU_AVX2, dot_avx2},
#elif defined(__aarch64__)
    {"neon", INF_CPU_NEON, dot_neon},
#endif
    {NULL, 0, NULL}};

inf_type_t inf_type_q8_0 = {.id = GGML_Q8_0, .name = "Q8_0", .block = 32, .bytes = 34, .dot_type = GGML_Q8_0,
                            .to_float = q8_0_to_float, .from_float = q8_0_from_float, .vec_dot = dot_scalar,
                            .vec_dot_scalar = dot_scalar, .simd = "scalar", .kernels = kernels};
