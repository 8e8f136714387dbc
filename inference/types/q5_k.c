/*
 * q5_k.c — Q5_K: Q4_K's layout (8 sub-blocks of 32 under 6-bit scales and
 * mins) with a fifth bit per value: for the group of 64 number c, bit 2c of
 * qh[l] tops value l of its first sub-block, bit 2c + 1 value l of its
 * second. Dot type Q8_KN, as Q4_K's (scalar; AVX2; AVX-512 VNNI; NEON).
 */
#include <string.h>

#include "inference/types.h"
#include "inference/types/arm.h"
#include "inference/types/x86.h"
#include "inference/types/kq16.h"
#include "inference/types/kquant.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

typedef struct {
    uint16_t d, dmin;
    uint8_t scales[12];
    uint8_t qh[32];
    uint8_t qs[128];
} block_t;

static void q5_k_to_float(const void *vx, float *y, int64_t n)
{
    const block_t *x = vx;
    for (int64_t i = 0; i < n / 256; i++) {
        const float d = inf_f16_to_f32(x[i].d), dmin = inf_f16_to_f32(x[i].dmin);
        const uint8_t *q = x[i].qs, *qh = x[i].qh;
        for (int c = 0; c < 4; c++, q += 32) {
            uint8_t s0, m0, s1, m1;
            kq_scale_min(2 * c, x[i].scales, &s0, &m0);
            kq_scale_min(2 * c + 1, x[i].scales, &s1, &m1);
            for (int l = 0; l < 32; l++)
                *y++ = d * s0 * ((q[l] & 0xf) + ((qh[l] >> (2 * c)) & 1) * 16) - dmin * m0;
            for (int l = 0; l < 32; l++)
                *y++ = d * s1 * ((q[l] >> 4) + ((qh[l] >> (2 * c + 1)) & 1) * 16) - dmin * m1;
        }
    }
}

static void q5_k_from_float(const float *x, void *vy, int64_t n)
{
    block_t *y = vy;
    for (int64_t i = 0; i < n / 256; i++, x += 256) {
        uint8_t q[256];
        kq_quantize(x, 31, &y[i].d, &y[i].dmin, y[i].scales, q);
        for (int l = 0; l < 32; l++)
            y[i].qh[l] = 0;
        for (int c = 0; c < 4; c++)
            for (int l = 0; l < 32; l++) {
                uint8_t a = q[64 * c + l], b = q[64 * c + 32 + l];
                y[i].qs[32 * c + l] = (uint8_t)((a & 0xf) | ((b & 0xf) << 4));
                y[i].qh[l] |= (uint8_t)(((a >> 4) << (2 * c)) | ((b >> 4) << (2 * c + 1)));
            }
    }
}

static void dot_scalar(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    float sum = 0;
    for (int i = 0; i < n / 256; i++) {
        const uint8_t *q = x[i].qs, *qh = x[i].qh;
        int isum = 0, msum = 0;
        for (int c = 0; c < 4; c++, q += 32) {
            uint8_t s0, m0, s1, m1;
            kq_scale_min(2 * c, x[i].scales, &s0, &m0);
            kq_scale_min(2 * c + 1, x[i].scales, &s1, &m1);
            const int8_t *y0 = y[i].qs + 32 * inf_q8_kn_at(2 * c), *y1 = y[i].qs + 32 * inf_q8_kn_at(2 * c + 1);
            int a = 0, b = 0;
            for (int l = 0; l < 32; l++) {
                a += ((q[l] & 0xf) + ((qh[l] >> (2 * c)) & 1) * 16) * y0[l];
                b += ((q[l] >> 4) + ((qh[l] >> (2 * c + 1)) & 1) * 16) * y1[l];
            }
            isum += a * s0 + b * s1;
            msum += m0 * y[i].bsums[2 * c] + m1 * y[i].bsums[2 * c + 1];
        }
        sum += y[i].d * (inf_f16_to_f32(x[i].d) * (float)isum - inf_f16_to_f32(x[i].dmin) * (float)msum);
    }
    *s = sum;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma,f16c"))) static void dot_avx2(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    const __m256i low = _mm256_set1_epi8(0xf), sixteen = _mm256_set1_epi8(16);
    __m256 acc = _mm256_setzero_ps();
    float mins = 0;
    for (int i = 0; i < n / 256; i++) {
        inf_prefetch_w(x + i, (int)sizeof(block_t));
        uint8_t sc[8], mn[8];
        kq_scales_mins(x[i].scales, sc, mn);
        const int msum = kq_mins_dot(mn, y[i].bsums);
        const uint8_t *q = x[i].qs;
        const __m256i hb = _mm256_loadu_si256((const __m256i *)x[i].qh);
        __m256i isum = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++, q += 32) {
            const int8_t *y0 = y[i].qs + 32 * inf_q8_kn_at(2 * c), *y1 = y[i].qs + 32 * inf_q8_kn_at(2 * c + 1);
            __m256i b = _mm256_loadu_si256((const __m256i *)q);
            /* bit 2c (2c + 1) of each qh byte to 16 */
            __m256i m0 = _mm256_set1_epi8((char)(1 << (2 * c))), m1 = _mm256_set1_epi8((char)(2 << (2 * c)));
            __m256i h0 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(hb, m0), m0), sixteen);
            __m256i h1 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(hb, m1), m1), sixteen);
            __m256i lo = _mm256_or_si256(_mm256_and_si256(b, low), h0);
            __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(b, 4), low), h1);
            __m256i p0 = _mm256_maddubs_epi16(lo, _mm256_loadu_si256((const __m256i *)y0));
            __m256i p1 = _mm256_maddubs_epi16(hi, _mm256_loadu_si256((const __m256i *)y1));
            p0 = _mm256_madd_epi16(p0, _mm256_set1_epi16(sc[2 * c]));
            p1 = _mm256_madd_epi16(p1, _mm256_set1_epi16(sc[2 * c + 1]));
            isum = _mm256_add_epi32(isum, _mm256_add_epi32(p0, p1));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(y[i].d * _cvtsh_ss(x[i].d)), _mm256_cvtepi32_ps(isum), acc);
        mins += y[i].d * _cvtsh_ss(x[i].dmin) * (float)msum;
    }
    *s = inf_hsum8(acc) - mins;
}
#endif

#if defined(__x86_64__)
/* Generation (AVX-512 VNNI): Q4_K's kernel (q4_k.c) with each value's fifth
 * bit from qh, copied to both halves of a register and shifted per half so
 * that the bit a half wants lands at bit 4: bit 2g (2g + 1) of qh[l] for
 * byte l of group g's low (high) nibbles; a 64-byte load holds groups 2c
 * and 2c + 1. */
INF_T_AVX512VNNI static void dot_avx512vnni(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    const __m512i low = _mm512_set1_epi8(0xf), bit4 = _mm512_set1_epi8(0x10);
    /* to bit 4 from bits 0 | 2 (low nibbles), 1 | 3 (high) of the halves; then 4 | 6, 5 | 7 */
#define HALVES(a, b) _mm512_inserti64x4(_mm512_set1_epi16(a), _mm256_set1_epi16(b), 1) /* 16-bit counts */
    const __m512i shl_lo = HALVES(4, 2), shl_hi = HALVES(3, 1), shr_lo = HALVES(0, 2), shr_hi = HALVES(1, 3);
#undef HALVES
    __m512 acc = _mm512_setzero_ps();
    __m128 mins = _mm_setzero_ps();
    for (int i = 0; i < n / 256; i++) {
        inf_prefetch_w(x + i, (int)sizeof(block_t));
        __m128 dd;
        const __m512i D = kq_block_start(&x[i].d, x[i].scales, &y[i], &mins, &dd);
        const __m512i hb = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)x[i].qh));
        __m512i isum = _mm512_setzero_si512();
#pragma GCC unroll 2
        for (int c = 0; c < 2; c++) {
            const __m512i b = _mm512_loadu_si512((const void *)(x[i].qs + 64 * c));
            const __m512i h0 = c ? _mm512_srlv_epi16(hb, shr_lo) : _mm512_sllv_epi16(hb, shl_lo);
            const __m512i h1 = c ? _mm512_srlv_epi16(hb, shr_hi) : _mm512_sllv_epi16(hb, shl_hi);
            /* ternary logic 0xf8: a | (b & c) */
            const __m512i lo = _mm512_ternarylogic_epi32(_mm512_and_si512(b, low), h0, bit4, 0xf8);
            const __m512i hi = _mm512_ternarylogic_epi32(_mm512_and_si512(_mm512_srli_epi16(b, 4), low), h1, bit4, 0xf8);
            isum = kq_dot_nibbles(isum, lo, hi, y[i].qs + 128 * c, c, D);
        }
        acc = _mm512_fmadd_ps(_mm512_broadcastss_ps(dd), _mm512_cvtepi32_ps(isum), acc);
    }
    *s = _mm512_reduce_add_ps(_mm512_sub_ps(acc, _mm512_zextps128_ps512(mins)));
}

/* Batches (AVX-512 VNNI): kq16.h's kernel, as Q4_K's; a row's 5-bit values
 * (the nibble and its bit of qh) unpacked to bytes 0..31, mins against the
 * tokens' sums. */
INF_T_AVX512VNNI static void gemm_unpack(const uint8_t *w, size_t row_bytes, int rm, int kn, kq16_rows_t *R)
{
    for (int i = 0; i < rm; i++)
        for (int b = 0; b < kn; b++) {
            const block_t *wb = (const block_t *)(w + (size_t)i * row_bytes) + b;
            kq16_put_nibbles(R, i, b, wb->d, wb->dmin, wb->scales, wb->qs, wb->qh);
        }
}

INF_T_AVX512VNNI static void gemm_run_avx512vnni(int cols, const void *w, size_t row_bytes, int nr, const void *xp,
                                                 int ldx, int nt, float *y, int ldy)
{
    (void)ldx;
    kq16_run(cols, w, row_bytes, sizeof(block_t), nr, xp, nt, y, ldy, gemm_unpack, 32, 1);
}

static const inf_gemm_t gemm_avx512vnni = {
    .group = KQ16_TOKENS, .group_bytes = kq16_group_bytes, .pack = kq16_pack, .run = gemm_run_avx512vnni};
#elif defined(__aarch64__)
/* Q4_K's NEON product with each value's fifth bit taken from qh: bit 2c
 * of qh[l] for the low nibbles of group c, bit 2c + 1 for the high ones. */
static void dot_neon(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    const uint8x16_t low = vdupq_n_u8(0xf), one = vdupq_n_u8(1);
    float sum = 0;
    for (int i = 0; i < n / 256; i++) {
        uint8_t sc[8], mn[8];
        kq_scales_mins(x[i].scales, sc, mn);
        const int msum = kq_mins_dot(mn, y[i].bsums);
        const uint8_t *q = x[i].qs;
        const uint8x16_t qh[2] = {vld1q_u8(x[i].qh), vld1q_u8(x[i].qh + 16)};
        int isum = 0;
        for (int c = 0; c < 4; c++, q += 32) {
            const int8_t *y0 = y[i].qs + 32 * inf_q8_kn_at(2 * c), *y1 = y[i].qs + 32 * inf_q8_kn_at(2 * c + 1);
            const int8x16_t shift_lo = vdupq_n_s8((int8_t)(-2 * c)), shift_hi = vdupq_n_s8((int8_t)(-2 * c - 1));
            int32x4_t a = vdupq_n_s32(0), b = vdupq_n_s32(0);
            for (int h = 0; h < 2; h++) {
                const uint8x16_t v = vld1q_u8(q + 16 * h);
                const uint8x16_t lo = vorrq_u8(vandq_u8(v, low), vshlq_n_u8(vandq_u8(vshlq_u8(qh[h], shift_lo), one), 4));
                const uint8x16_t hi = vorrq_u8(vshrq_n_u8(v, 4), vshlq_n_u8(vandq_u8(vshlq_u8(qh[h], shift_hi), one), 4));
                a = inf_neon_dot16(a, vreinterpretq_s8_u8(lo), vld1q_s8(y0 + 16 * h));
                b = inf_neon_dot16(b, vreinterpretq_s8_u8(hi), vld1q_s8(y1 + 16 * h));
            }
            isum += vaddvq_s32(a) * sc[2 * c] + vaddvq_s32(b) * sc[2 * c + 1];
        }
        sum += y[i].d * (inf_f16_to_f32(x[i].d) * (float)isum - inf_f16_to_f32(x[i].dmin) * (float)msum);
    }
    *s = sum;
}
#endif

static const inf_kernel_t kernels[] = {
#if defined(__x86_64__)
    {"avx512-vnni", INF_CPU_AVX2 | INF_CPU_AVX512 | INF_CPU_AVX512VNNI, dot_avx512vnni, &gemm_avx512vnni, NULL, NULL},
    {"avx2", INF_CPU_AVX2, dot_avx2, NULL, NULL, NULL},
#elif defined(__aarch64__)
    {"neon", INF_CPU_NEON, dot_neon, NULL, NULL, NULL},
#endif
    {NULL, 0, NULL, NULL, NULL, NULL}};

inf_type_t inf_type_q5_k = {.id = GGML_Q5_K, .name = "Q5_K", .block = 256, .bytes = 176, .dot_type = INF_Q8_KN,
                            .to_float = q5_k_to_float, .from_float = q5_k_from_float, .vec_dot = dot_scalar,
                            .vec_dot_scalar = dot_scalar, .simd = "scalar", .kernels = kernels};
