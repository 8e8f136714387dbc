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

/* Batches (AVX-512 VNNI): a packed group holds 8 tokens a block, their 32
 * bytes one after another (two tokens fill a 512-bit register) and their
 * scales as floats (the F16 value the dot products use). A tile is 4
 * weight rows against the 8 tokens: a weight block is loaded once into
 * both halves of a register and multiplied with every token pair. dpbusd
 * wants one unsigned side: the weights flipped to w + 128, and each lane
 * started from -128 times the sum of its 4 activation bytes, so every lane
 * holds its exact products and nothing large cancels. */
typedef struct {
    int8_t qs[8][32];
    float d[8];
    float pad[8]; /* to 320 bytes, a multiple of 64 */
} group_block_t;

static size_t gemm_group_bytes(int cols)
{
    return (size_t)(cols / 32) * sizeof(group_block_t);
}

static void gemm_pack(const float *x, int ldx, int nt, int cols, void *dst)
{
    group_block_t *g = dst;
    memset(dst, 0, gemm_group_bytes(cols));
    for (int t = 0; t < nt; t++)
        for (int b = 0; b < cols / 32; b++) {
            block_t q;
            q8_0_from_float(x + (size_t)t * (size_t)ldx + b * 32, &q, 32);
            memcpy(g[b].qs[t], q.qs, 32);
            g[b].d[t] = inf_f16_to_f32(q.d);
        }
}

INF_T_AVX512VNNI static inline __attribute__((always_inline)) void gemm_tile(const int rm, int nb, const void *w,
                                                                             size_t row_bytes,
                                                                             const group_block_t *xg, int nt,
                                                                             float *y, int ldy)
{
    __m512 acc[4][4];
    for (int i = 0; i < rm; i++)
        for (int k = 0; k < 4; k++)
            acc[i][k] = _mm512_setzero_ps();
    const __m512i k80 = _mm512_set1_epi8((char)0x80);
    for (int b = 0; b < nb; b++) {
        const group_block_t *xb = xg + b;
        __m512 dx[4];
        __m512i corr[4];
        for (int k = 0; k < 4; k++) {
            dx[k] = inf_pair_scales(xb->d, k);
            __m512i xk = _mm512_load_si512((const void *)xb->qs[2 * k]);
            corr[k] = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_dpbusd_epi32(_mm512_setzero_si512(), k80, xk));
        }
        for (int i = 0; i < rm; i++) {
            const block_t *wb = (const block_t *)((const uint8_t *)w + (size_t)i * row_bytes) + b;
            __m512i wv = _mm512_xor_si512(
                _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)wb->qs)), k80);
            __m512 dw = _mm512_set1_ps(_cvtsh_ss(wb->d));
            for (int k = 0; k < 4; k++) {
                __m512i p = _mm512_dpbusd_epi32(corr[k], wv, _mm512_load_si512((const void *)xb->qs[2 * k]));
                acc[i][k] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(p), _mm512_mul_ps(dw, dx[k]), acc[i][k]);
            }
        }
    }
    for (int i = 0; i < rm; i++)
        for (int k = 0; k < 4; k++)
            inf_store_pair(acc[i][k], NULL, k, nt, y + i, ldy);
}

INF_GEMM_RUN(gemm_run_avx512vnni, INF_T_AVX512VNNI, gemm_tile, 32, group_block_t)

static const inf_gemm_t gemm_avx512vnni = {
    .group = 8, .group_bytes = gemm_group_bytes, .pack = gemm_pack, .run = gemm_run_avx512vnni};
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
    {"avx512-vnni", INF_CPU_AVX2 | INF_CPU_AVX512 | INF_CPU_AVX512VNNI, dot_avx512vnni, &gemm_avx512vnni},
    {"avx-vnni", INF_CPU_AVX2 | INF_CPU_AVXVNNI, dot_avxvnni, NULL},
    {"avx2", INF_CPU_AVX2, dot_avx2, NULL},
#elif defined(__aarch64__)
    {"neon", INF_CPU_NEON, dot_neon, NULL},
#endif
    {NULL, 0, NULL, NULL}};

inf_type_t inf_type_q8_0 = {.id = GGML_Q8_0, .name = "Q8_0", .block = 32, .bytes = 34, .dot_type = GGML_Q8_0,
                            .to_float = q8_0_to_float, .from_float = q8_0_from_float, .vec_dot = dot_scalar,
                            .vec_dot_scalar = dot_scalar, .simd = "scalar", .kernels = kernels};
