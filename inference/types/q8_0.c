/*
 * q8_0.c — Q8_0: blocks of 32 signed bytes and an F16 scale. Its dot type
 * is Q8_0P (types.h): the same quantization, both sides in 8 bits, one
 * multiply-add per block in integers (scalar; AVX2; AVX-512 VNNI; NEON with
 * the dot-product instructions).
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
    const block_t *x = vx;
    const uint8_t *y = vy;
    const int nb = n / 32;
    float sum = 0;
    for (int i = 0; i < nb; i++) {
        const uint8_t *q = y + inf_q8_0p_q_at(i);
        int acc = 0;
        for (int j = 0; j < 32; j++)
            acc += x[i].qs[j] * (q[j] - 128);
        sum += (float)acc * inf_f16_to_f32(x[i].d) * inf_q8_0p_d(y, i, nb);
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

/* The scales of a pair of blocks i, i + 1 (Q8_0P keeps the activations'
 * two side by side at yd): their products, in lanes 0 and 1. */
__attribute__((target("avx2,f16c"))) static inline __m128 pair_scales(const block_t *x, const uint8_t *yd)
{
    const __m128 dx = _mm_cvtph_ps(_mm_cvtsi32_si128((int)((uint32_t)x[0].d | (uint32_t)x[1].d << 16)));
    return _mm_mul_ps(dx, _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)yd)));
}

/* AVX2 and AVX-VNNI: a pair of blocks an iteration (72 bytes of activations:
 * 64 values, two scales), into two accumulators; an odd last block alone.
 * BLOCK(qx, qy) is a block's 8 lanes of sums. */
#define Q8_0_PAIRS(BLOCK)                                                                                          \
    const block_t *x = vx;                                                                                         \
    const uint8_t *y = vy;                                                                                         \
    const int nb = n / 32;                                                                                         \
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();                                                 \
    int i = 0;                                                                                                     \
    for (; i + 2 <= nb; i += 2) {                                                                                  \
        const uint8_t *yp = y + 36 * (size_t)i;                                                                    \
        inf_prefetch_w(x + i, 2 * (int)sizeof(block_t));                                                             \
        const __m256i p0 = BLOCK(_mm256_loadu_si256((const __m256i *)x[i].qs), _mm256_loadu_si256((const __m256i *)yp)); \
        const __m256i p1 =                                                                                         \
            BLOCK(_mm256_loadu_si256((const __m256i *)x[i + 1].qs), _mm256_loadu_si256((const __m256i *)(yp + 32))); \
        const __m128 d = pair_scales(x + i, yp + 64);                                                              \
        acc0 = _mm256_fmadd_ps(_mm256_broadcastss_ps(d), _mm256_cvtepi32_ps(p0), acc0);                            \
        acc1 = _mm256_fmadd_ps(_mm256_broadcastss_ps(_mm_movehdup_ps(d)), _mm256_cvtepi32_ps(p1), acc1);           \
    }                                                                                                              \
    if (i < nb) {                                                                                                  \
        const __m256i p0 = BLOCK(_mm256_loadu_si256((const __m256i *)x[i].qs),                                     \
                                 _mm256_loadu_si256((const __m256i *)(y + inf_q8_0p_q_at(i))));                    \
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(_cvtsh_ss(x[i].d) * inf_q8_0p_d(y, i, nb)), _mm256_cvtepi32_ps(p0), acc0); \
    }                                                                                                              \
    *s = inf_hsum8(_mm256_add_ps(acc0, acc1));

/* AVX2: the activations back to signed bytes, then dot32_avx2's sign trick */
#define Q8_0_AVX2_BLOCK(qx, qy) dot32_avx2(qx, _mm256_xor_si256(qy, _mm256_set1_epi8((char)0x80)))

__attribute__((target("avx2,fma,f16c"))) static void dot_avx2(int n, float *s, const void *vx, const void *vy)
{
    Q8_0_PAIRS(Q8_0_AVX2_BLOCK)
}

/* VNNI: dpbusd takes the activations as they are stored (+ 128, unsigned)
 * against the signed weights, and starts from -128 times the weights' sum
 * (dpbusd of 128s against them), so it holds the exact product. */
#define Q8_0_VNNI_BLOCK(DPBUSD, qx, qy)                                                                          \
    DPBUSD(_mm256_sub_epi32(_mm256_setzero_si256(), DPBUSD(_mm256_setzero_si256(), _mm256_set1_epi8((char)0x80), \
                                                           qx)),                                                  \
           qy, qx)
#define Q8_0_AVXVNNI_BLOCK(qx, qy) Q8_0_VNNI_BLOCK(_mm256_dpbusd_avx_epi32, qx, qy)

__attribute__((target("avx2,fma,f16c,avxvnni"))) static void dot_avxvnni(int n, float *s, const void *vx,
                                                                          const void *vy)
{
    Q8_0_PAIRS(Q8_0_AVXVNNI_BLOCK)
}

/* AVX-512: a pair of blocks a register, against the pair's 64 activation
 * bytes in one load; the two blocks' scale products (one multiply of two
 * floats) spread over their halves of the lanes. */
INF_T_AVX512VNNI static inline __m512 pair_avx512vnni(const block_t *x, const uint8_t *yp, __m512 acc)
{
    const __m512i k80 = _mm512_set1_epi8((char)0x80);
    const __m512i spread = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i qx = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)x[0].qs)),
                                          _mm256_loadu_si256((const __m256i *)x[1].qs), 1);
    const __m512i qy = _mm512_loadu_si512((const void *)yp);
    const __m512i p = _mm512_dpbusd_epi32(
        _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_dpbusd_epi32(_mm512_setzero_si512(), k80, qx)), qy, qx);
    const __m128 d = pair_scales(x, yp + 64);
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(p), _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(d)), acc);
}

/* An odd last block i of nb. */
INF_T_AVX512VNNI static inline __m512 last_avx512vnni(const block_t *x, const uint8_t *y, int i, int nb, __m512 acc)
{
    const __m256i qx = _mm256_loadu_si256((const __m256i *)x->qs);
    const __m256i qy = _mm256_loadu_si256((const __m256i *)(y + inf_q8_0p_q_at(i)));
    const __m256i p = Q8_0_VNNI_BLOCK(_mm256_dpbusd_epi32, qx, qy);
    return _mm512_fmadd_ps(_mm512_zextps256_ps512(_mm256_cvtepi32_ps(p)),
                           _mm512_set1_ps(_cvtsh_ss(x->d) * inf_q8_0p_d(y, i, nb)), acc);
}

INF_T_AVX512VNNI static void dot_avx512vnni(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const uint8_t *y = vy;
    const int nb = n / 32;
    __m512 acc = _mm512_setzero_ps();
    int i = 0;
    for (; i + 2 <= nb; i += 2) {
        inf_prefetch_w(x + i, 2 * (int)sizeof(block_t));
        acc = pair_avx512vnni(x + i, y + 36 * (size_t)i, acc);
    }
    if (i < nb)
        acc = last_avx512vnni(x + i, y, i, nb, acc);
    *s = _mm512_reduce_add_ps(acc);
}

/* Four rows stride bytes apart, a pair of blocks of each in turn (types.h). */
INF_T_AVX512VNNI static void dot4_avx512vnni(int n, float s[4], const void *vx, size_t stride, const void *vy)
{
    const uint8_t *y = vy;
    const block_t *x0 = vx, *x1 = (const block_t *)((const uint8_t *)vx + stride),
                  *x2 = (const block_t *)((const uint8_t *)vx + 2 * stride),
                  *x3 = (const block_t *)((const uint8_t *)vx + 3 * stride);
    const int nb = n / 32;
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    int i = 0;
    for (; i + 2 <= nb; i += 2) {
        const uint8_t *yp = y + 36 * (size_t)i;
        a0 = pair_avx512vnni(x0 + i, yp, a0);
        a1 = pair_avx512vnni(x1 + i, yp, a1);
        a2 = pair_avx512vnni(x2 + i, yp, a2);
        a3 = pair_avx512vnni(x3 + i, yp, a3);
    }
    if (i < nb) {
        a0 = last_avx512vnni(x0 + i, y, i, nb, a0);
        a1 = last_avx512vnni(x1 + i, y, i, nb, a1);
        a2 = last_avx512vnni(x2 + i, y, i, nb, a2);
        a3 = last_avx512vnni(x3 + i, y, i, nb, a3);
    }
    inf_hsum16x4(a0, a1, a2, a3, s);
}

/* Batches (AVX-512 VNNI). A register holds 16 tokens, one 32-bit lane
 * each, so a lane sums a whole block for its token and the float work (the
 * scales) is done once per block and 16 tokens, not once per 4 bytes. A
 * packed group holds, per block, its 32 bytes as 8 chunks of 4 for the 16
 * tokens (a chunk of every token in one register) and the tokens' scales.
 * dpbusd wants one unsigned side: the activations are stored as x + 128,
 * the weights' 4 bytes are broadcast from the model as they are (signed),
 * and each lane starts from -128 times the weight block's sum, so it holds
 * the exact product. Tiles are 8 weight rows (16 accumulators) against the
 * 16 tokens; the rows' block sums and scales are read once for all the
 * groups a run sweeps. */
enum { GEMM_TOKENS = 16, GEMM_ROWS = 8, GEMM_KBLOCKS = 128 };

typedef struct {
    uint8_t q[8][GEMM_TOKENS][4];
    float d[GEMM_TOKENS];
} group_block_t; /* 576 bytes, a multiple of 64 */

static size_t gemm_group_bytes(int cols)
{
    return (size_t)(cols / 32) * sizeof(group_block_t);
}

/* Quantizes as q8_0_from_float does (roundf: halves away from zero) and
 * stores x + 128 at the token's place in each chunk. */
INF_T_AVX512VNNI static void gemm_pack(const float *x, int ldx, int nt, int cols, void *dst)
{
    group_block_t *g = dst;
    const __m128i k80 = _mm_set1_epi8((char)0x80);
    for (int b = 0; b < cols / 32; b++) {
        for (int t = 0; t < GEMM_TOKENS; t++) {
            __m128i q[2] = {_mm_setzero_si128(), _mm_setzero_si128()};
            float d = 0;
            if (t < nt)
                d = inf_q8_0_block_avx512(x + (size_t)t * (size_t)ldx + b * 32, q);
            g[b].d[t] = inf_f16_to_f32(inf_f32_to_f16(d));
            uint32_t c[8];
            _mm_storeu_si128((__m128i *)c, _mm_xor_si128(q[0], k80));
            _mm_storeu_si128((__m128i *)(c + 4), _mm_xor_si128(q[1], k80));
            for (int j = 0; j < 8; j++)
                memcpy(g[b].q[j][t], &c[j], 4);
        }
    }
}

/* rm rows (blocks b0.. of each, their -128 x sums and scales in corr and
 * dw) against one group of tokens, into acc. */
INF_T_AVX512VNNI static inline __attribute__((always_inline)) void gemm_tile(
    const int rm, int kn, const uint8_t *w, size_t row_bytes, const int32_t corr[][GEMM_KBLOCKS],
    const float dw[][GEMM_KBLOCKS], const group_block_t *xg, __m512 acc[GEMM_ROWS])
{
    for (int b = 0; b < kn; b++) {
        const group_block_t *xb = xg + b;
        __m512i p[GEMM_ROWS];
#pragma GCC unroll 16
        for (int i = 0; i < rm; i++)
            p[i] = _mm512_set1_epi32(corr[i][b]);
#pragma GCC unroll 16
        for (int j = 0; j < 8; j++) {
            const __m512i xj = _mm512_load_si512((const void *)xb->q[j]);
#pragma GCC unroll 16
            for (int i = 0; i < rm; i++) {
                int32_t wj;
                memcpy(&wj, ((const block_t *)(w + (size_t)i * row_bytes) + b)->qs + 4 * j, 4);
                p[i] = _mm512_dpbusd_epi32(p[i], xj, _mm512_set1_epi32(wj));
            }
        }
        const __m512 dx = _mm512_load_ps(xb->d);
#pragma GCC unroll 16
        for (int i = 0; i < rm; i++)
            acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(p[i]), _mm512_mul_ps(dx, _mm512_set1_ps(dw[i][b])), acc[i]);
    }
}

INF_T_AVX512VNNI static void gemm_run_avx512vnni(int cols, const void *w, size_t row_bytes, int nr, const void *xp,
                                                 int ldx, int nt, float *y, int ldy)
{
    (void)ldx;
    const int nb = cols / 32;
    int32_t corr[GEMM_ROWS][GEMM_KBLOCKS];
    float dw[GEMM_ROWS][GEMM_KBLOCKS];
    for (int r = 0; r < nr; r += GEMM_ROWS) {
        const int rm = nr - r < GEMM_ROWS ? nr - r : GEMM_ROWS;
        const uint8_t *wr = (const uint8_t *)w + (size_t)r * row_bytes;
        for (int k0 = 0; k0 < nb; k0 += GEMM_KBLOCKS) {
            const int kn = nb - k0 < GEMM_KBLOCKS ? nb - k0 : GEMM_KBLOCKS;
            const uint8_t *wk = wr + (size_t)k0 * sizeof(block_t);
            for (int i = 0; i < rm; i++)
                for (int b = 0; b < kn; b++) {
                    const block_t *wb = (const block_t *)(wk + (size_t)i * row_bytes) + b;
                    /* the sum of the signed bytes: their unsigned sum, less 32 x 128 */
                    int lo, hi;
                    inf_sums16_u8(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)wb->qs),
                                                   _mm256_set1_epi8((char)0x80)),
                                  &lo, &hi);
                    corr[i][b] = -128 * (lo + hi - 32 * 128);
                    dw[i][b] = _cvtsh_ss(wb->d);
                }
            for (int g = 0; g * GEMM_TOKENS < nt; g++) {
                const group_block_t *xg = (const group_block_t *)xp + (size_t)g * (size_t)nb + k0;
                __m512 acc[GEMM_ROWS];
                for (int i = 0; i < GEMM_ROWS; i++)
                    acc[i] = _mm512_setzero_ps();
                switch (rm) {
                case 8: gemm_tile(8, kn, wk, row_bytes, corr, dw, xg, acc); break;
                case 7: gemm_tile(7, kn, wk, row_bytes, corr, dw, xg, acc); break;
                case 6: gemm_tile(6, kn, wk, row_bytes, corr, dw, xg, acc); break;
                case 5: gemm_tile(5, kn, wk, row_bytes, corr, dw, xg, acc); break;
                case 4: gemm_tile(4, kn, wk, row_bytes, corr, dw, xg, acc); break;
                case 3: gemm_tile(3, kn, wk, row_bytes, corr, dw, xg, acc); break;
                case 2: gemm_tile(2, kn, wk, row_bytes, corr, dw, xg, acc); break;
                default: gemm_tile(1, kn, wk, row_bytes, corr, dw, xg, acc);
                }
                const int ng = nt - g * GEMM_TOKENS < GEMM_TOKENS ? nt - g * GEMM_TOKENS : GEMM_TOKENS;
                inf_store_lanes(acc, rm, ng, y + (size_t)g * GEMM_TOKENS * (size_t)ldy + r, ldy, k0 > 0);
            }
        }
    }
}

static const inf_gemm_t gemm_avx512vnni = {
    .group = GEMM_TOKENS, .group_bytes = gemm_group_bytes, .pack = gemm_pack, .run = gemm_run_avx512vnni};
#elif defined(__aarch64__)
static void dot_neon(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const uint8_t *y = vy;
    const int nb = n / 32;
    float32x4_t acc = vdupq_n_f32(0);
    for (int i = 0; i < nb; i++) {
        const uint8_t *q = y + inf_q8_0p_q_at(i);
        int8x16_t x0 = vld1q_s8(x[i].qs), x1 = vld1q_s8(x[i].qs + 16);
        int8x16_t y0 = vreinterpretq_s8_u8(veorq_u8(vld1q_u8(q), vdupq_n_u8(0x80)));
        int8x16_t y1 = vreinterpretq_s8_u8(veorq_u8(vld1q_u8(q + 16), vdupq_n_u8(0x80)));
#if defined(__ARM_FEATURE_DOTPROD)
        int32x4_t p = vdotq_s32(vdotq_s32(vdupq_n_s32(0), x0, y0), x1, y1);
#else
        int16x8_t a = vmull_s8(vget_low_s8(x0), vget_low_s8(y0));
        a = vmlal_s8(a, vget_high_s8(x0), vget_high_s8(y0));
        int16x8_t b = vmull_s8(vget_low_s8(x1), vget_low_s8(y1));
        b = vmlal_s8(b, vget_high_s8(x1), vget_high_s8(y1));
        int32x4_t p = vaddq_s32(vpaddlq_s16(a), vpaddlq_s16(b));
#endif
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(p), inf_f16_to_f32(x[i].d) * inf_q8_0p_d(y, i, nb));
    }
    *s = vaddvq_f32(acc);
}
#endif

static const inf_kernel_t kernels[] = {
#if defined(__x86_64__)
    {"avx512-vnni", INF_CPU_AVX2 | INF_CPU_AVX512 | INF_CPU_AVX512VNNI, dot_avx512vnni, &gemm_avx512vnni,
     dot4_avx512vnni, NULL},
    {"avx-vnni", INF_CPU_AVX2 | INF_CPU_AVXVNNI, dot_avxvnni, NULL, NULL, NULL},
    {"avx2", INF_CPU_AVX2, dot_avx2, NULL, NULL, NULL},
#elif defined(__aarch64__)
    {"neon", INF_CPU_NEON, dot_neon, NULL, NULL, NULL},
#endif
    {NULL, 0, NULL, NULL, NULL, NULL}};

inf_type_t inf_type_q8_0 = {.id = GGML_Q8_0, .name = "Q8_0", .block = 32, .bytes = 34, .dot_type = INF_Q8_0P,
                            .to_float = q8_0_to_float, .from_float = q8_0_from_float, .vec_dot = dot_scalar,
                            .vec_dot_scalar = dot_scalar, .simd = "scalar", .kernels = kernels};
