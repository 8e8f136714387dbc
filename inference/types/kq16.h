/*
 * kq16.h — the K-quants' batch kernels (AVX-512 VNNI), tokens in lanes: a
 * register holds 16 tokens, one 32-bit lane each, so a lane sums a whole
 * sub-block for its token and the scales cost one multiply-add a
 * sub-block and 16 tokens. Shared by q4_k.c, q5_k.c and q6_k.c (one packed
 * copy of the activations serves them all in a job, as Q4_K_M and Q5_K_M
 * files mix them).
 *
 * Activations (packed by types/q8_k.c) are quantized as Q8_K, exactly as
 * for the dot products, and stored per super-block as 64 chunks of 4 bytes
 * for the 16 tokens, x + 128 (dpbusd wants one unsigned side), beside the
 * tokens' scales and each 32 values' sum times the scale (for the mins).
 *
 * Weights: a tile's 8 rows are unpacked once per run and per 8
 * super-blocks (by the type's own function) into signed bytes, the sum of
 * each sub-block times -128 (each lane starts from it, undoing the + 128
 * exactly), the sub-blocks' scales times d, and the mins times dmin; then
 * every group of 16 tokens the run sweeps reads them from L1.
 */
#ifndef INF_TYPES_KQ16_H
#define INF_TYPES_KQ16_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "inference/types/kquant.h"
#include "inference/types/x86.h"

enum { KQ16_TOKENS = 16, KQ16_ROWS = 8, KQ16_KSB = 8 /* super-blocks unpacked at once */ };

typedef struct {
    uint8_t q[64][KQ16_TOKENS][4]; /* [4-value chunk][token], x + 128 */
    float d[KQ16_TOKENS];
    float bsum[8][KQ16_TOKENS]; /* [32-value sub-block][token]: d x the sum */
} kq16_block_t;                 /* 4672 bytes, a multiple of 64 */

size_t kq16_group_bytes(int cols);

#if defined(__x86_64__)
/* The batch kernels' packing (types/q8_k.c), AVX-512 as they are. */
void kq16_pack(const float *x, int ldx, int nt, int cols, void *dst);

/* A tile's rows as the kernel reads them (sub-blocks of 16 values: Q4_K's
 * 32-value ones take every other entry). */
typedef struct {
    int8_t w[KQ16_ROWS][KQ16_KSB * 256];
    int32_t corr[KQ16_ROWS][KQ16_KSB * 16]; /* -128 x the sub-block's sum */
    float scale[KQ16_ROWS][KQ16_KSB * 16];  /* d x the sub-block's scale */
    float mins[KQ16_ROWS][KQ16_KSB * 8];    /* dmin x the 32 values' min */
} kq16_rows_t;

/* Unpacks rows [0, rm) of w (row_bytes apart, from the chunk's first
 * super-block), kn super-blocks each. */
typedef void kq16_unpack_fn(const uint8_t *w, size_t row_bytes, int rm, int kn, kq16_rows_t *r);

/* rm rows (a constant) against one group: sub-blocks of SB values, MINS
 * when the type has mins. */
INF_T_AVX512VNNI static inline __attribute__((always_inline)) void kq16_tile(const int rm, const int SB, const int MINS,
                                                                             int kn, const kq16_rows_t *R,
                                                                             const kq16_block_t *xg, __m512 acc[])
{
    const int NS = 256 / SB, step = SB / 16; /* sub-blocks a super-block; table entries a sub-block */
    for (int b = 0; b < kn; b++) {
        const kq16_block_t *xb = xg + b;
        __m512 sacc[KQ16_ROWS];
#pragma GCC unroll 16
        for (int i = 0; i < rm; i++)
            sacc[i] = _mm512_setzero_ps();
        for (int s = 0; s < NS; s++) {
            const int e = (b * NS + s) * step;
            __m512i p[KQ16_ROWS];
#pragma GCC unroll 16
            for (int i = 0; i < rm; i++)
                p[i] = _mm512_set1_epi32(R->corr[i][e]);
#pragma GCC unroll 16
            for (int j = 0; j < SB / 4; j++) {
                const __m512i xj = _mm512_load_si512((const void *)xb->q[s * (SB / 4) + j]);
#pragma GCC unroll 16
                for (int i = 0; i < rm; i++) {
                    int32_t wj;
                    memcpy(&wj, R->w[i] + b * 256 + s * SB + 4 * j, 4);
                    p[i] = _mm512_dpbusd_epi32(p[i], xj, _mm512_set1_epi32(wj));
                }
            }
#pragma GCC unroll 16
            for (int i = 0; i < rm; i++)
                sacc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(p[i]), _mm512_set1_ps(R->scale[i][e]), sacc[i]);
        }
        const __m512 dx = _mm512_load_ps(xb->d);
#pragma GCC unroll 16
        for (int i = 0; i < rm; i++)
            acc[i] = _mm512_fmadd_ps(sacc[i], dx, acc[i]);
        if (MINS)
#pragma GCC unroll 16
            for (int j = 0; j < 8; j++) {
                const __m512 bs = _mm512_load_ps(xb->bsum[j]);
#pragma GCC unroll 16
                for (int i = 0; i < rm; i++)
                    acc[i] = _mm512_fnmadd_ps(bs, _mm512_set1_ps(R->mins[i][b * 8 + j]), acc[i]);
            }
    }
}

/* A run (inf_gemm_t): tiles of 8 rows, 8 super-blocks unpacked at a time,
 * against every group of 16 tokens; lanes are tokens, so each row's 16
 * results go down its column of y. */
INF_T_AVX512VNNI static inline __attribute__((always_inline)) void
kq16_run(int cols, const uint8_t *w, size_t row_bytes, size_t block_bytes, int nr, const void *xp, int nt, float *y,
         int ldy, kq16_unpack_fn *unpack, const int SB, const int MINS)
{
    const int nb = cols / 256;
    kq16_rows_t R;
    for (int r = 0; r < nr; r += KQ16_ROWS) {
        const int rm = nr - r < KQ16_ROWS ? nr - r : KQ16_ROWS;
        for (int k0 = 0; k0 < nb; k0 += KQ16_KSB) {
            const int kn = nb - k0 < KQ16_KSB ? nb - k0 : KQ16_KSB;
            unpack(w + (size_t)r * row_bytes + (size_t)k0 * block_bytes, row_bytes, rm, kn, &R);
            for (int g = 0; g * KQ16_TOKENS < nt; g++) {
                const kq16_block_t *xg = (const kq16_block_t *)xp + (size_t)g * (size_t)nb + k0;
                __m512 acc[KQ16_ROWS];
                for (int i = 0; i < KQ16_ROWS; i++)
                    acc[i] = _mm512_setzero_ps();
                switch (rm) {
                case 8: kq16_tile(8, SB, MINS, kn, &R, xg, acc); break;
                case 7: kq16_tile(7, SB, MINS, kn, &R, xg, acc); break;
                case 6: kq16_tile(6, SB, MINS, kn, &R, xg, acc); break;
                case 5: kq16_tile(5, SB, MINS, kn, &R, xg, acc); break;
                case 4: kq16_tile(4, SB, MINS, kn, &R, xg, acc); break;
                case 3: kq16_tile(3, SB, MINS, kn, &R, xg, acc); break;
                case 2: kq16_tile(2, SB, MINS, kn, &R, xg, acc); break;
                default: kq16_tile(1, SB, MINS, kn, &R, xg, acc);
                }
                const int ng = nt - g * KQ16_TOKENS < KQ16_TOKENS ? nt - g * KQ16_TOKENS : KQ16_TOKENS;
                inf_store_lanes(acc, rm, ng, y + (size_t)g * KQ16_TOKENS * (size_t)ldy + r, ldy, k0 > 0);
            }
        }
    }
}

/* One Q4_K or Q5_K super-block of row i into the tile at b: its scales and
 * mins (times d and dmin), its 128 bytes of nibbles (byte l of chunk c: low
 * nibble value 64c + l, high 64c + 32 + l) and, for Q5_K, each value's
 * fifth bit in qh (bit 2c or 2c + 1 of byte l); NULL for Q4_K. */
INF_T_AVX512VNNI static inline void kq16_put_nibbles(kq16_rows_t *R, int i, int b, uint16_t d16, uint16_t dmin16,
                                                     const uint8_t scales[12], const uint8_t qs[128],
                                                     const uint8_t *qh)
{
    const __m256i low = _mm256_set1_epi8(0xf), one = _mm256_set1_epi8(1);
    uint8_t sc[8], mn[8];
    kq_scales_mins(scales, sc, mn);
    const float d = _cvtsh_ss(d16), dmin = _cvtsh_ss(dmin16);
    const __m256i h = qh ? _mm256_loadu_si256((const __m256i *)qh) : _mm256_setzero_si256();
    for (int c = 0; c < 4; c++) {
        const __m256i q = _mm256_loadu_si256((const __m256i *)(qs + 32 * c));
        const __m256i nib[2] = {_mm256_and_si256(q, low), _mm256_and_si256(_mm256_srli_epi16(q, 4), low)};
        for (int k = 0; k < 2; k++) {
            const int j = 2 * c + k; /* the 32-value sub-block */
            const __m256i fifth = _mm256_and_si256(_mm256_srl_epi16(h, _mm_cvtsi32_si128(j)), one);
            const __m256i v = _mm256_or_si256(nib[k], _mm256_slli_epi16(fifth, 4));
            int lo, hi;
            _mm256_storeu_si256((__m256i *)(R->w[i] + b * 256 + 32 * j), v);
            inf_sums16_u8(v, &lo, &hi);
            R->corr[i][b * 16 + 2 * j] = -128 * (lo + hi);
            R->scale[i][b * 16 + 2 * j] = d * sc[j];
            R->mins[i][b * 8 + j] = dmin * mn[j];
        }
    }
}
#endif

#endif
