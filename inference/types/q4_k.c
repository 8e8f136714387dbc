/*
 * q4_k.c — Q4_K: super-blocks of 256 four-bit values in 8 sub-blocks of 32,
 * each with a 6-bit scale and min under the super-block's F16 d and dmin:
 * value = d * scale * q - dmin * min. The 4 groups of 64 hold a sub-block in
 * the low nibbles of 32 bytes and the next in the high ones. Dot type Q8_KN
 * (Q8_K in the nibbles' order, types.h; scalar; AVX2; AVX-512; NEON).
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
    uint8_t qs[128];
} block_t;

static void q4_k_to_float(const void *vx, float *y, int64_t n)
{
    const block_t *x = vx;
    for (int64_t i = 0; i < n / 256; i++) {
        const float d = inf_f16_to_f32(x[i].d), dmin = inf_f16_to_f32(x[i].dmin);
        const uint8_t *q = x[i].qs;
        for (int c = 0; c < 4; c++, q += 32) {
            uint8_t s0, m0, s1, m1;
            kq_scale_min(2 * c, x[i].scales, &s0, &m0);
            kq_scale_min(2 * c + 1, x[i].scales, &s1, &m1);
            for (int l = 0; l < 32; l++) {
                *y++ = d * s0 * (q[l] & 0xf) - dmin * m0;
            }
            for (int l = 0; l < 32; l++)
                *y++ = d * s1 * (q[l] >> 4) - dmin * m1;
        }
    }
}

static void q4_k_from_float(const float *x, void *vy, int64_t n)
{
    block_t *y = vy;
    for (int64_t i = 0; i < n / 256; i++, x += 256) {
        uint8_t q[256];
        kq_quantize(x, 15, &y[i].d, &y[i].dmin, y[i].scales, q);
        for (int c = 0; c < 4; c++)
            for (int l = 0; l < 32; l++)
                y[i].qs[32 * c + l] = (uint8_t)(q[64 * c + l] | (q[64 * c + 32 + l] << 4));
    }
}

static void dot_scalar(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    float sum = 0;
    for (int i = 0; i < n / 256; i++) {
        const uint8_t *q4 = x[i].qs;
        int isum = 0, msum = 0;
        for (int c = 0; c < 4; c++, q4 += 32) {
            uint8_t s0, m0, s1, m1;
            kq_scale_min(2 * c, x[i].scales, &s0, &m0);
            kq_scale_min(2 * c + 1, x[i].scales, &s1, &m1);
            const int8_t *y0 = y[i].qs + 32 * inf_q8_kn_at(2 * c), *y1 = y[i].qs + 32 * inf_q8_kn_at(2 * c + 1);
            int a = 0, b = 0;
            for (int l = 0; l < 32; l++) {
                a += (q4[l] & 0xf) * y0[l];
                b += (q4[l] >> 4) * y1[l];
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
    const __m256i low = _mm256_set1_epi8(0xf);
    __m256 acc = _mm256_setzero_ps();
    float mins = 0;
    for (int i = 0; i < n / 256; i++) {
        inf_prefetch_w(x + i, (int)sizeof(block_t));
        uint8_t sc[8], mn[8];
        kq_scales_mins(x[i].scales, sc, mn);
        const int msum = kq_mins_dot(mn, y[i].bsums);
        const uint8_t *q4 = x[i].qs;
        __m256i isum = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++, q4 += 32) {
            const int8_t *y0 = y[i].qs + 32 * inf_q8_kn_at(2 * c), *y1 = y[i].qs + 32 * inf_q8_kn_at(2 * c + 1);
            __m256i b = _mm256_loadu_si256((const __m256i *)q4);
            __m256i lo = _mm256_and_si256(b, low), hi = _mm256_and_si256(_mm256_srli_epi16(b, 4), low);
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

/* Generation (AVX-512 VNNI): 128 values from one 64-byte load, sub-blocks
 * 2c and 2c + 2 in the low nibbles and 2c + 1 and 2c + 3 in the high ones,
 * against Q8_KN's activations in that order (kquant.h: the scales, the
 * mins, and the sums; a third fewer vector ops than maddubs and a scale
 * permute per register: the two vector ports' budget sets the speed). */
INF_T_AVX512VNNI static inline __m512 block_avx512vnni(const block_t *x, const inf_block_q8_k *y, __m512 acc,
                                                       __m128 *mins)
{
    const __m512i low = _mm512_set1_epi8(0xf);
    __m128 dd;
    const __m512i D = kq_block_start(&x->d, x->scales, y, mins, &dd);
    __m512i isum = _mm512_setzero_si512();
#pragma GCC unroll 2
    for (int c = 0; c < 2; c++) {
        const __m512i b = _mm512_loadu_si512((const void *)(x->qs + 64 * c));
        isum = kq_dot_nibbles(isum, _mm512_and_si512(b, low), _mm512_and_si512(_mm512_srli_epi16(b, 4), low),
                              y->qs + 128 * c, c, D);
    }
    return _mm512_fmadd_ps(_mm512_broadcastss_ps(dd), _mm512_cvtepi32_ps(isum), acc);
}

INF_T_AVX512VNNI static void dot_avx512vnni(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    __m512 acc = _mm512_setzero_ps();
    __m128 mins = _mm_setzero_ps();
    for (int i = 0; i < n / 256; i++) {
        inf_prefetch_w(x + i, (int)sizeof(block_t));
        acc = block_avx512vnni(&x[i], &y[i], acc, &mins);
    }
    /* one horizontal sum: the mins in the lowest lanes */
    *s = _mm512_reduce_add_ps(_mm512_sub_ps(acc, _mm512_zextps128_ps512(mins)));
}

/* Four rows stride bytes apart, a block of each in turn (types.h). */
INF_T_AVX512VNNI static void dot4_avx512vnni(int n, float s[4], const void *vx, size_t stride, const void *vy)
{
    const inf_block_q8_k *y = vy;
    const block_t *x0 = vx, *x1 = (const block_t *)((const uint8_t *)vx + stride),
                  *x2 = (const block_t *)((const uint8_t *)vx + 2 * stride),
                  *x3 = (const block_t *)((const uint8_t *)vx + 3 * stride);
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    __m128 m0 = _mm_setzero_ps(), m1 = m0, m2 = m0, m3 = m0;
    for (int i = 0; i < n / 256; i++) {
        a0 = block_avx512vnni(&x0[i], &y[i], a0, &m0);
        a1 = block_avx512vnni(&x1[i], &y[i], a1, &m1);
        a2 = block_avx512vnni(&x2[i], &y[i], a2, &m2);
        a3 = block_avx512vnni(&x3[i], &y[i], a3, &m3);
    }
    inf_hsum16x4(_mm512_sub_ps(a0, _mm512_zextps128_ps512(m0)), _mm512_sub_ps(a1, _mm512_zextps128_ps512(m1)),
                 _mm512_sub_ps(a2, _mm512_zextps128_ps512(m2)), _mm512_sub_ps(a3, _mm512_zextps128_ps512(m3)), s);
}

/* Batches (AVX-512 VNNI): kq16.h's kernel; a row's nibbles unpacked to
 * bytes, 0..15 as they are (the mins go against the tokens' sums). */
INF_T_AVX512VNNI static void gemm_unpack(const uint8_t *w, size_t row_bytes, int rm, int kn, kq16_rows_t *R)
{
    for (int i = 0; i < rm; i++)
        for (int b = 0; b < kn; b++) {
            const block_t *wb = (const block_t *)(w + (size_t)i * row_bytes) + b;
            kq16_put_nibbles(R, i, b, wb->d, wb->dmin, wb->scales, wb->qs, NULL);
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
static void dot_neon(int n, float *s, const void *vx, const void *vy)
{
    const block_t *x = vx;
    const inf_block_q8_k *y = vy;
    float sum = 0;
    for (int i = 0; i < n / 256; i++) {
        uint8_t sc[8], mn[8];
        kq_scales_mins(x[i].scales, sc, mn);
        const int msum = kq_mins_dot(mn, y[i].bsums);
        const uint8_t *q4 = x[i].qs;
        int isum = 0;
        for (int c = 0; c < 4; c++, q4 += 32) {
            const int8_t *y0 = y[i].qs + 32 * inf_q8_kn_at(2 * c), *y1 = y[i].qs + 32 * inf_q8_kn_at(2 * c + 1);
            int32x4_t a = vdupq_n_s32(0), b = vdupq_n_s32(0);
            for (int h = 0; h < 2; h++) {
                uint8x16_t q = vld1q_u8(q4 + 16 * h);
                int8x16_t lo = vreinterpretq_s8_u8(vandq_u8(q, vdupq_n_u8(0xf)));
                int8x16_t hi = vreinterpretq_s8_u8(vshrq_n_u8(q, 4));
                int8x16_t v0 = vld1q_s8(y0 + 16 * h), v1 = vld1q_s8(y1 + 16 * h);
                a = inf_neon_dot16(a, lo, v0);
                b = inf_neon_dot16(b, hi, v1);
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
    {"avx512-vnni", INF_CPU_AVX2 | INF_CPU_AVX512 | INF_CPU_AVX512VNNI, dot_avx512vnni, &gemm_avx512vnni,
     dot4_avx512vnni, NULL},
    {"avx2", INF_CPU_AVX2, dot_avx2, NULL, NULL, NULL},
#elif defined(__aarch64__)
    {"neon", INF_CPU_NEON, dot_neon, NULL, NULL, NULL},
#endif
    {NULL, 0, NULL, NULL, NULL, NULL}};

inf_type_t inf_type_q4_k = {.id = GGML_Q4_K, .name = "Q4_K", .block = 256, .bytes = 144, .dot_type = INF_Q8_KN,
                            .to_float = q4_k_to_float, .from_float = q4_k_from_float, .vec_dot = dot_scalar,
                            .vec_dot_scalar = dot_scalar, .simd = "scalar", .kernels = kernels};
