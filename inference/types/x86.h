/*
 * x86.h — what the x86-64 kernels of every type share (types/<type>.c).
 */
#ifndef INF_TYPES_X86_H
#define INF_TYPES_X86_H

#if defined(__x86_64__)
#include <immintrin.h>

/* The sum of the eight floats of v. */
__attribute__((target("avx2,fma"))) static inline float inf_hsum8(__m256 v)
{
    __m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    a = _mm_add_ps(a, _mm_movehl_ps(a, a));
    a = _mm_add_ss(a, _mm_movehdup_ps(a));
    return _mm_cvtss_f32(a);
}
/* The batch kernels' instruction set: AVX-512 with VNNI, BW and VL. */
#define INF_T_AVX512VNNI __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")))

/* For a pair register: lanes 0-7 take element 2k of a vector, 8-15 2k + 1
 * (a token pair's scales from the group's eight). */
INF_T_AVX512VNNI static inline __m512 inf_pair_scales(const float d[8], int k)
{
    const __m512i idx = _mm512_add_epi32(_mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0),
                                         _mm512_set1_epi32(2 * k));
    return _mm512_permutexvar_ps(idx, _mm512_castps256_ps512(_mm256_loadu_ps(d)));
}

/* A batch kernel's run (inf_gemm_t): tiles of 4 weight rows (fewer at the
 * end) against each packed group of 8 tokens, TILE(rm, nb, w, row_bytes,
 * group, tokens, y, ldy) inlined with rm a constant. */
#define INF_GEMM_RUN(NAME, TARGET, TILE, BLOCK, GROUP_T)                                                         \
    TARGET static void NAME(int cols, const void *w, size_t row_bytes, int nr, const void *xp, int ldx, int nt,    \
                            float *y, int ldy)                                                                   \
    {                                                                                                            \
        (void)ldx;                                                                                               \
        const int nb = cols / (BLOCK);                                                                           \
        for (int r = 0; r < nr; r += 4) {                                                                        \
            const uint8_t *wr = (const uint8_t *)w + (size_t)r * row_bytes;                                      \
            for (int g = 0; g * 8 < nt; g++) {                                                                   \
                const GROUP_T *xg = (const GROUP_T *)xp + (size_t)g * (size_t)nb;                                \
                const int ng = nt - g * 8 < 8 ? nt - g * 8 : 8;                                                  \
                float *yg = y + (size_t)g * 8 * (size_t)ldy + r;                                                 \
                switch (nr - r < 4 ? nr - r : 4) {                                                               \
                case 4: TILE(4, nb, wr, row_bytes, xg, ng, yg, ldy); break;                                      \
                case 3: TILE(3, nb, wr, row_bytes, xg, ng, yg, ldy); break;                                      \
                case 2: TILE(2, nb, wr, row_bytes, xg, ng, yg, ldy); break;                                      \
                default: TILE(1, nb, wr, row_bytes, xg, ng, yg, ldy);                                            \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    }

/* The two halves of v (tokens 2k and 2k + 1 of a pair) summed, less the
 * tokens' mins, stored for the tokens there are. */
__attribute__((target("avx2,fma,avx512f"))) static inline void inf_store_pair(__m512 v, const float *mins, int k,
                                                                               int nt, float *y, int ldy)
{
    if (2 * k < nt)
        y[(size_t)(2 * k) * (size_t)ldy] = inf_hsum8(_mm512_castps512_ps256(v)) - (mins ? mins[2 * k] : 0);
    if (2 * k + 1 < nt)
        y[(size_t)(2 * k + 1) * (size_t)ldy] =
            inf_hsum8(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))) - (mins ? mins[2 * k + 1] : 0);
}
#endif

#endif
