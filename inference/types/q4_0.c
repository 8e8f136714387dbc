/*
 * q4_0.c — Q4_0: blocks of 32 four-bit values (0..15, less 8) and an F16
 * scale; the first 16 in the low nibbles, the next 16 in the high ones.
 * Dot type Q8_0 (scalar; AVX2; NEON).
 */
#include <math.h>

#include "inference/types.h"
#include "inference/types/x86.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

typedef struct {
    uint16_t d;
    uint8_t qs[16];
} block_t;

static void q4_0_to_float(const void *vx, float *y, int64_t n)
{
    const block_t *x = vx;
    for (int64_t i = 0; i < n / 32; i++) {
        float d = inf_f16_to_f32(x[i].d);
        for (int j = 0; j < 16; j++) {
            y[i * 32 + j] = ((x[i].qs[j] & 0xf) - 8) * d;
            y[i * 32 + j + 16] = ((x[i].qs[j] >> 4) - 8) * d;
        }
    }
}

/* The scale maps the value of largest magnitude to -8, as the reference
 * quantizer does, so the range is used in full. */
static void q4_0_from_float(const float *x, void *vy, int64_t n)
{
    block_t *y = vy;
    for (int64_t i = 0; i < n / 32; i++) {
        const float *b = x + i * 32;
        float amax = 0, max = 0;
        for (int j = 0; j < 32; j++)
            if (fabsf(b[j]) > amax) {
                amax = fabsf(b[j]);
                max = b[j];
            }
        float d = max / -8, id = d ? 1.0f / d : 0;
        y[i].d = inf_f32_to_f16(d);
        for (int j = 0; j < 16; j++) {
            int lo = (int)(b[j] * id + 8.5f), hi = (int)(b[j + 16] * id + 8.5f);
            lo = lo < 0 ? 0 : lo > 15 ? 15 : lo;
            hi = hi < 0 ? 0 : hi > 15 ? 15 : hi;
            y[i].qs[j] = (uint8_t)(lo | (hi << 4));
        }
    }
}

static void dot_scalar(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_0 *y = vy;
    float sum = 0;
    for (int i = 0; i < n / 32; i++) {
        int acc = 0;
        for (int j = 0; j < 16; j++)
            acc += ((x[i].qs[j] & 0xf) - 8) * y[i].qs[j] + ((x[i].qs[j] >> 4) - 8) * y[i].qs[j + 16];
        sum += (float)acc * inf_f16_to_f32(x[i].d) * inf_f16_to_f32(y[i].d);
    }
    *s = sum;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma,f16c"))) static void dot_avx2(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_0 *y = vy;
    const __m256i low = _mm256_set1_epi8(0xf), eight = _mm256_set1_epi8(8), ones = _mm256_set1_epi16(1);
    __m256 acc = _mm256_setzero_ps();
    for (int i = 0; i < n / 32; i++) {
        inf_prefetch_w(x + i, (int)sizeof(block_t));
        __m128i b = _mm_loadu_si128((const __m128i *)x[i].qs);
        /* nibbles to bytes: low ones in the first 16, high in the next 16 */
        __m256i q = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(b, 4), b), low);
        q = _mm256_sub_epi8(q, eight);
        __m256i qy = _mm256_loadu_si256((const __m256i *)y[i].qs);
        __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_sign_epi8(q, q), _mm256_sign_epi8(qy, q)), ones);
        __m256 d = _mm256_set1_ps(_cvtsh_ss(x[i].d) * _cvtsh_ss(y[i].d));
        acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(p), acc);
    }
    *s = inf_hsum8(acc);
}
#elif defined(__aarch64__)
static void dot_neon(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_0 *y = vy;
    float32x4_t acc = vdupq_n_f32(0);
    for (int i = 0; i < n / 32; i++) {
        uint8x16_t b = vld1q_u8(x[i].qs);
        int8x16_t lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(b, vdupq_n_u8(0xf))), vdupq_n_s8(8));
        int8x16_t hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(b, 4)), vdupq_n_s8(8));
        int8x16_t y0 = vld1q_s8(y[i].qs), y1 = vld1q_s8(y[i].qs + 16);
#if defined(__ARM_FEATURE_DOTPROD)
        int32x4_t p = vdotq_s32(vdotq_s32(vdupq_n_s32(0), lo, y0), hi, y1);
#else
        int16x8_t a = vmull_s8(vget_low_s8(lo), vget_low_s8(y0));
        a = vmlal_s8(a, vget_high_s8(lo), vget_high_s8(y0));
        int16x8_t c = vmull_s8(vget_low_s8(hi), vget_low_s8(y1));
        c = vmlal_s8(c, vget_high_s8(hi), vget_high_s8(y1));
        int32x4_t p = vaddq_s32(vpaddlq_s16(a), vpaddlq_s16(c));
#endif
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(p), inf_f16_to_f32(x[i].d) * inf_f16_to_f32(y[i].d));
    }
    *s = vaddvq_f32(acc);
}
#endif

static const inf_kernel_t kernels[] = {
#if defined(__x86_64__)
    {"avx2", INF_CPU_AVX2, dot_avx2, NULL, NULL, NULL},
#elif defined(__aarch64__)
    {"neon", INF_CPU_NEON, dot_neon, NULL, NULL, NULL},
#endif
    {NULL, 0, NULL, NULL, NULL, NULL}};

inf_type_t inf_type_q4_0 = {.id = GGML_Q4_0, .name = "Q4_0", .block = 32, .bytes = 18, .dot_type = GGML_Q8_0,
                            .to_float = q4_0_to_float, .from_float = q4_0_from_float, .vec_dot = dot_scalar,
                            .vec_dot_scalar = dot_scalar, .simd = "scalar", .kernels = kernels};
