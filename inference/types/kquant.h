/*
 * kquant.h — what the K-quant types (q4_k.c, q5_k.c, q6_k.c) share: the
 * packing of eight 6-bit scales and eight 6-bit mins in 12 bytes, and the
 * choice of a sub-block's scale and min; on x86-64, the pieces of Q4_K's and
 * Q5_K's AVX-512 VNNI generation kernels they share.
 */
#ifndef INF_KQUANT_H
#define INF_KQUANT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "inference/types.h"


/* Sub-block j's scale and min from the 12 packed bytes: j < 4 in the low 6
 * bits of bytes j and j + 4; j >= 4 their low 4 bits in byte j + 4, the top
 * 2 in the spare top bits of bytes j - 4 and j. */
static inline void kq_scale_min(int j, const uint8_t *q, uint8_t *d, uint8_t *m)
{
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = (uint8_t)((q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4));
        *m = (uint8_t)((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

/* All eight scales and mins at once, a word at a time (the SIMD kernels:
 * once a super-block instead of a sub-block's bytes at a time). */
static inline void kq_scales_mins(const uint8_t *q, uint8_t sc[8], uint8_t mn[8])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t a, b, c, w[4];
    memcpy(&a, q, 4);
    memcpy(&b, q + 4, 4);
    memcpy(&c, q + 8, 4);
    w[0] = a & 0x3f3f3f3fu;
    w[1] = (c & 0x0f0f0f0fu) | ((a >> 2) & 0x30303030u);
    w[2] = b & 0x3f3f3f3fu;
    w[3] = ((c >> 4) & 0x0f0f0f0fu) | ((b >> 2) & 0x30303030u);
    memcpy(sc, w, 8);
    memcpy(mn, w + 2, 8);
#else
    for (int j = 0; j < 8; j++)
        kq_scale_min(j, q, &sc[j], &mn[j]);
#endif
}

/* The mins against the activations' sums of each sub-block of 32 (Q8_KN's
 * bsums): what dmin takes off a super-block's product. */
static inline int kq_mins_dot(const uint8_t mn[8], const int16_t *bsums)
{
    int msum = 0;
    for (int j = 0; j < 8; j++)
        msum += mn[j] * bsums[j];
    return msum;
}

static inline void kq_pack_scales(const uint8_t ls[8], const uint8_t lm[8], uint8_t q[12])
{
    for (int j = 0; j < 12; j++)
        q[j] = 0;
    for (int j = 0; j < 8; j++) {
        if (j < 4) {
            q[j] |= ls[j];
            q[j + 4] |= lm[j];
        } else {
            q[j + 4] = (uint8_t)((ls[j] & 0xf) | ((lm[j] & 0xf) << 4));
            q[j - 4] |= (uint8_t)((ls[j] >> 4) << 6);
            q[j] |= (uint8_t)((lm[j] >> 4) << 6);
        }
    }
}

static inline int kq_round(float x, int lo, int hi)
{
    int v = (int)lrintf(x);
    return v < lo ? lo : v > hi ? hi : v;
}

/* One super-block of 256 values in 8 sub-blocks of 32 with values 0..nmax
 * (15 for Q4_K, 31 for Q5_K): value = d * ls * q - dmin * lm. Each
 * sub-block's scale and min from its range (its min at most 0), the
 * super-block's d and dmin from the largest of them (F16, and the rounded
 * ones used from there on), 6-bit ls and lm packed into scales, then the
 * values. */
static inline void kq_quantize(const float *x, int nmax, uint16_t *d16, uint16_t *dmin16, uint8_t scales[12],
                               uint8_t q[256])
{
    float sc[8], mn[8], smax = 0, mmax = 0;
    for (int j = 0; j < 8; j++) {
        float lo = x[32 * j], hi = x[32 * j];
        for (int l = 1; l < 32; l++) {
            lo = fminf(lo, x[32 * j + l]);
            hi = fmaxf(hi, x[32 * j + l]);
        }
        if (lo > 0)
            lo = 0;
        sc[j] = (hi - lo) / (float)nmax;
        mn[j] = -lo;
        smax = fmaxf(smax, sc[j]);
        mmax = fmaxf(mmax, mn[j]);
    }
    *d16 = inf_f32_to_f16(smax / 63);
    *dmin16 = inf_f32_to_f16(mmax / 63);
    const float d = inf_f16_to_f32(*d16), dmin = inf_f16_to_f32(*dmin16);
    uint8_t ls[8], lm[8];
    for (int j = 0; j < 8; j++) {
        ls[j] = (uint8_t)(d ? kq_round(sc[j] / d, 0, 63) : 0);
        lm[j] = (uint8_t)(dmin ? kq_round(mn[j] / dmin, 0, 63) : 0);
    }
    kq_pack_scales(ls, lm, scales);
    for (int j = 0; j < 8; j++) {
        const float s = d * ls[j], m = dmin * lm[j];
        for (int l = 0; l < 32; l++)
            q[32 * j + l] = (uint8_t)(s ? kq_round((x[32 * j + l] + m) / s, 0, nmax) : 0);
    }
}

#if defined(__x86_64__)
#include "inference/types/x86.h"

/* The AVX-512 VNNI generation kernels of Q4_K and Q5_K (against Q8_KN):
 * what a super-block needs before its values. Returns D, each of the 8
 * scales in both halves of a 32-bit lane (for kq_dot_nibbles); adds the
 * mins against the activations' 32-value sums into *mins; *dd: d and dmin
 * times the activations' scale (lanes 0 and 1). The 12 bytes of scales and
 * mins (kq_scale_min) as 32-bit words a, b, c: scales 0-3 = a & 63, 4-7 =
 * (c & 15) | (a >> 6) << 4, the mins likewise from b and c >> 4; the load
 * takes 4 bytes past them, within the block. */
INF_T_AVX512VNNI static inline __m512i kq_block_start(const uint16_t *d_dmin, const uint8_t *scales,
                                                      const inf_block_q8_k *y, __m128 *mins, __m128 *dd)
{
    const __m128i c_shift = _mm_set_epi32(4, 0, 0, 0);
    const __m128i c_keep = _mm_set_epi32(0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f, 0x3f3f3f3f);
    const __m128i c_top = _mm_set_epi32(0x30303030, 0, 0x30303030, 0);
    const __m128i v = _mm_loadu_si128((const __m128i *)scales);
    const __m128i t = _mm_and_si128(_mm_srlv_epi32(_mm_shuffle_epi32(v, _MM_SHUFFLE(2, 1, 2, 0)), c_shift), c_keep);
    /* r: the scales in bytes 0-7, the mins in 8-15 (ternary logic 0xf8: a | (b & c)) */
    const __m128i r =
        _mm_ternarylogic_epi32(t, _mm_srli_epi32(_mm_shuffle_epi32(v, _MM_SHUFFLE(1, 1, 0, 0)), 2), c_top, 0xf8);
    int32_t dm;
    memcpy(&dm, d_dmin, sizeof dm);
    *dd = _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi32_si128(dm)), _mm_set1_ps(y->d));
    const __m128i mp =
        _mm_madd_epi16(_mm_cvtepu8_epi16(_mm_unpackhi_epi64(r, r)), _mm_loadu_si128((const __m128i *)y->bsums));
    *mins = _mm_fmadd_ps(_mm_permute_ps(*dd, 0x55), _mm_cvtepi32_ps(mp), *mins);
    return _mm512_castsi256_si512(_mm256_cvtepu8_epi16(_mm_unpacklo_epi8(r, r)));
}

/* isum + the products of 128 values (0..31) in lo (sub-blocks 4c and 4c + 2
 * in its halves) and hi (4c + 1 and 4c + 3) with their 128 activation bytes
 * at y (Q8_KN's order), each sub-block's sum times its scale. dpbusd sums 4
 * products (at most 4 * 31 * 128, an int16); packs leaves each 128-bit lane
 * as A A B B (dword pairs of lo's and hi's sums), so one dpwssd meets them
 * with their scales: one permute of D for the pair of registers. */
INF_T_AVX512VNNI static inline __m512i kq_dot_nibbles(__m512i isum, __m512i lo, __m512i hi, const int8_t *y, int c,
                                                      __m512i D)
{
    const __m512i idx = _mm512_add_epi32(_mm512_set_epi32(3, 3, 2, 2, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 0, 0),
                                         _mm512_set1_epi32(4 * c));
    const __m512i A = _mm512_dpbusd_epi32(_mm512_setzero_si512(), lo, _mm512_loadu_si512((const void *)y));
    const __m512i B = _mm512_dpbusd_epi32(_mm512_setzero_si512(), hi, _mm512_loadu_si512((const void *)(y + 64)));
    return _mm512_dpwssd_epi32(isum, _mm512_packs_epi32(A, B), _mm512_permutexvar_epi32(idx, D));
}
#endif

#endif
