/*
 * f16_attn.c — a generated token's attention against an F16 cache: the
 * scores of the query heads that share a key head against that head's key
 * rows, and the probability-weighted sum of its value rows (types.h,
 * inf_f16_attn_t).
 *
 * One key row, widened once, serves every query head of the group (GQA),
 * and the value sums stay in registers across all the positions instead
 * of being loaded and stored for each, as a dot product and an axpy a
 * position would. The products are the dot products' (F32 multiply-adds
 * of the widened halves); only the order of the sums differs. Scalar,
 * AVX2+F16C and AVX-512 (heads whose width is not a multiple of a
 * register's floats take the scalar kernels).
 */
#include "inference/types.h"
#include "inference/types/x86.h"

static void scores_scalar(int np, int D, const uint16_t *k, const float *q, int nq, float scale, float *s, int lds)
{
    for (int p = 0; p < np; p++) {
        const uint16_t *kr = k + (size_t)p * (size_t)D;
        for (int g = 0; g < nq; g++) {
            const float *qg = q + (size_t)g * (size_t)D;
            float acc[8] = {0}, sum = 0;
            int d = 0;
            for (; d + 8 <= D; d += 8)
                for (int i = 0; i < 8; i++)
                    acc[i] += inf_f16_to_f32(kr[d + i]) * qg[d + i];
            for (; d < D; d++)
                sum += inf_f16_to_f32(kr[d]) * qg[d];
            for (int i = 0; i < 8; i++)
                sum += acc[i];
            s[(size_t)g * (size_t)lds + (size_t)p] = scale * sum;
        }
    }
}

static void mix_scalar(int np, int D, const uint16_t *v, const float *s, int lds, int nq, float *o, int ldo)
{
    for (int g = 0; g < nq; g++) {
        float *og = o + (size_t)g * (size_t)ldo;
        const float *sg = s + (size_t)g * (size_t)lds;
        for (int d = 0; d < D; d++)
            og[d] = 0;
        for (int p = 0; p < np; p++) {
            const uint16_t *vr = v + (size_t)p * (size_t)D;
            for (int d = 0; d < D; d++)
                og[d] += sg[p] * inf_f16_to_f32(vr[d]);
        }
    }
}

const inf_f16_attn_t inf_f16_attn_scalar = {"scalar", scores_scalar, mix_scalar};

#if defined(__x86_64__)
/* Generation streams each head's rows from memory once: ask for the rows
 * this many positions ahead (8 KB at 128 halves a row), within the head's
 * rows. Qwen3-0.6B's shape at 640 positions, one thread, medians of 10
 * interleaved runs: 20.0 GB/s asking 8 rows ahead, 24.2 at 16, 24.9 at 32. */
#define INF_ATTN_PF_ROWS 32

/* A vector ISA's kernels from one pattern: VW floats a register. Scores:
 * up to SGB query heads against four key rows at a time (4 x SGB
 * independent sums in registers, so no sum waits on the one before; the
 * four positions' lanes summed together, HSUM4, not one at a time); every
 * head count is compiled as a constant, so a group of 2 heads (GQA) or 1
 * shares the unrolled loop. Values: MGB heads' sums of DB floats held in
 * registers over all the positions. */
#define F16_ATTN_KERNELS(ISA, TARGET, VEC, VW, LOADH, ZERO, FMA, SET1, LOADF, STOREF, HSUM, HSUM4, SGB, MGB, DB)  \
    TARGET static inline __attribute__((always_inline)) void scores_##ISA##_blk(                                   \
        int np, int D, const uint16_t *k, const float *q, float scale, float *s, int lds, const int gb)           \
    {                                                                                                             \
        int p = 0;                                                                                                \
        for (; p + 4 <= np; p += 4) {                                                                             \
            const uint16_t *kr = k + (size_t)p * (size_t)D;                                                       \
            if (p + INF_ATTN_PF_ROWS < np)                                                                        \
                for (int o = 0; o < 4 * D * 2; o += 64)                                                           \
                    _mm_prefetch((const char *)(kr + INF_ATTN_PF_ROWS * (size_t)D) + o, _MM_HINT_T0);                 \
            VEC acc[SGB][4];                                                                                      \
            _Pragma("GCC unroll 4") for (int g = 0; g < gb; g++)                                                  \
                _Pragma("GCC unroll 4") for (int i = 0; i < 4; i++)                                               \
                    acc[g][i] = ZERO();                                                                           \
            for (int d = 0; d < D; d += VW) {                                                                     \
                VEC kv[4];                                                                                        \
                _Pragma("GCC unroll 4") for (int i = 0; i < 4; i++)                                               \
                    kv[i] = LOADH(kr + (size_t)i * (size_t)D + (size_t)d);                                        \
                _Pragma("GCC unroll 4") for (int g = 0; g < gb; g++) {                                            \
                    const VEC qv = LOADF(q + (size_t)g * (size_t)D + (size_t)d);                                  \
                    _Pragma("GCC unroll 4") for (int i = 0; i < 4; i++)                                           \
                        acc[g][i] = FMA(kv[i], qv, acc[g][i]);                                                    \
                }                                                                                                 \
            }                                                                                                     \
            _Pragma("GCC unroll 4") for (int g = 0; g < gb; g++) {                                                \
                float r[4];                                                                                       \
                HSUM4(acc[g], r);                                                                                 \
                _Pragma("GCC unroll 4") for (int i = 0; i < 4; i++)                                               \
                    s[(size_t)g * (size_t)lds + (size_t)(p + i)] = scale * r[i];                                  \
            }                                                                                                     \
        }                                                                                                         \
        for (; p < np; p++) {                                                                                     \
            const uint16_t *kr = k + (size_t)p * (size_t)D;                                                       \
            VEC acc[SGB];                                                                                         \
            _Pragma("GCC unroll 4") for (int g = 0; g < gb; g++)                                                  \
                acc[g] = ZERO();                                                                                  \
            for (int d = 0; d < D; d += VW) {                                                                     \
                const VEC kv = LOADH(kr + d);                                                                     \
                _Pragma("GCC unroll 4") for (int g = 0; g < gb; g++)                                              \
                    acc[g] = FMA(kv, LOADF(q + (size_t)g * (size_t)D + (size_t)d), acc[g]);                       \
            }                                                                                                     \
            _Pragma("GCC unroll 4") for (int g = 0; g < gb; g++)                                                  \
                s[(size_t)g * (size_t)lds + (size_t)p] = scale * HSUM(acc[g]);                                    \
        }                                                                                                         \
    }                                                                                                             \
    TARGET static void scores_##ISA(int np, int D, const uint16_t *k, const float *q, int nq, float scale,       \
                                    float *s, int lds)                                                           \
    {                                                                                                             \
        if (D % VW) {                                                                                             \
            scores_scalar(np, D, k, q, nq, scale, s, lds);                                                        \
            return;                                                                                               \
        }                                                                                                         \
        /* the heads SGB at a time, then the rest at once: one pass over the keys for up to SGB heads; each      \
         * count a constant no larger than SGB (the 3 and 2 branches are dead where SGB is smaller) */           \
        for (int g = 0; g < nq;) {                                                                                \
            const int b = nq - g < SGB ? nq - g : SGB;                                                            \
            const float *qg = q + (size_t)g * (size_t)D;                                                          \
            float *sg = s + (size_t)g * (size_t)lds;                                                              \
            if (b == SGB)                                                                                         \
                scores_##ISA##_blk(np, D, k, qg, scale, sg, lds, SGB);                                            \
            else if (SGB > 3 && b == 3)                                                                           \
                scores_##ISA##_blk(np, D, k, qg, scale, sg, lds, SGB > 3 ? 3 : 1);                                \
            else if (SGB > 2 && b == 2)                                                                           \
                scores_##ISA##_blk(np, D, k, qg, scale, sg, lds, SGB > 2 ? 2 : 1);                                \
            else                                                                                                  \
                scores_##ISA##_blk(np, D, k, qg, scale, sg, lds, 1);                                              \
            g += b;                                                                                               \
        }                                                                                                         \
    }                                                                                                             \
    TARGET static inline __attribute__((always_inline)) void mix_##ISA##_blk(                                      \
        int np, int D, const uint16_t *v, const float *s, int lds, float *o, int ldo, const int gb)               \
    {                                                                                                             \
        for (int d0 = 0; d0 < D; d0 += DB) {                                                                      \
            const int nv = (D - d0 < DB ? D - d0 : DB) / VW;                                                      \
            VEC acc[MGB][DB / VW];                                                                                \
            _Pragma("GCC unroll 16") for (int j = 0; j < DB / VW; j++) for (int g = 0; g < gb; g++) acc[g][j] =  \
                ZERO();                                                                                           \
            for (int p = 0; p < np; p++) {                                                                        \
                const uint16_t *vr = v + (size_t)p * (size_t)D + (size_t)d0;                                      \
                if (p + INF_ATTN_PF_ROWS < np)                                                                    \
                    for (int o = 0; o < DB * 2; o += 64)                                                          \
                        _mm_prefetch((const char *)(vr + INF_ATTN_PF_ROWS * (size_t)D) + o, _MM_HINT_T0);             \
                VEC w[MGB];                                                                                       \
                for (int g = 0; g < gb; g++)                                                                      \
                    w[g] = SET1(s[(size_t)g * (size_t)lds + (size_t)p]);                                          \
                _Pragma("GCC unroll 16") for (int j = 0; j < DB / VW; j++) if (j < nv)                            \
                {                                                                                                 \
                    const VEC x = LOADH(vr + j * VW);                                                             \
                    for (int g = 0; g < gb; g++)                                                                  \
                        acc[g][j] = FMA(w[g], x, acc[g][j]);                                                      \
                }                                                                                                 \
            }                                                                                                     \
            for (int g = 0; g < gb; g++)                                                                          \
                for (int j = 0; j < nv; j++)                                                                      \
                    STOREF(o + (size_t)g * (size_t)ldo + (size_t)(d0 + j * VW), acc[g][j]);                       \
        }                                                                                                         \
    }                                                                                                             \
    TARGET static void mix_##ISA(int np, int D, const uint16_t *v, const float *s, int lds, int nq, float *o,    \
                                 int ldo)                                                                         \
    {                                                                                                             \
        if (D % VW) {                                                                                             \
            mix_scalar(np, D, v, s, lds, nq, o, ldo);                                                             \
            return;                                                                                               \
        }                                                                                                         \
        int g = 0;                                                                                                \
        for (; g + MGB <= nq; g += MGB)                                                                           \
            mix_##ISA##_blk(np, D, v, s + (size_t)g * (size_t)lds, lds, o + (size_t)g * (size_t)ldo, ldo, MGB);   \
        for (; g < nq; g++)                                                                                       \
            mix_##ISA##_blk(np, D, v, s + (size_t)g * (size_t)lds, lds, o + (size_t)g * (size_t)ldo, ldo, 1);     \
    }

/* The sums of four vectors' lanes, in order. */
__attribute__((target("avx2,fma"))) static inline void hsum4_avx2(const __m256 a[4], float *r)
{
    const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));
    _mm_storeu_ps(r, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
}
__attribute__((target("avx2,fma,avx512f"))) static inline void hsum4_avx512(const __m512 a[4], float *r)
{
    __m256 h[4];
    for (int i = 0; i < 4; i++)
        h[i] = _mm256_add_ps(_mm512_castps512_ps256(a[i]), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a[i]), 1)));
    hsum4_avx2(h, r);
}

#define AVX2_LOADH(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(p)))
F16_ATTN_KERNELS(avx2, __attribute__((target("avx2,fma,f16c"))), __m256, 8, AVX2_LOADH, _mm256_setzero_ps,
                 _mm256_fmadd_ps, _mm256_set1_ps, _mm256_loadu_ps, _mm256_storeu_ps, inf_hsum8, hsum4_avx2, 2, 2, 32)

#define AVX512_LOADH(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
F16_ATTN_KERNELS(avx512, __attribute__((target("avx2,fma,f16c,avx512f"))), __m512, 16, AVX512_LOADH,
                 _mm512_setzero_ps, _mm512_fmadd_ps, _mm512_set1_ps, _mm512_loadu_ps, _mm512_storeu_ps,
                 _mm512_reduce_add_ps, hsum4_avx512, 4, 2, 128)

static const inf_f16_attn_t attn_avx2 = {"avx2", scores_avx2, mix_avx2};
static const inf_f16_attn_t attn_avx512 = {"avx512", scores_avx512, mix_avx512};
#endif

inf_f16_attn_t inf_f16_attn = {"scalar", scores_scalar, mix_scalar};

void inf_f16_attn_select(unsigned have)
{
    (void)have;
#if defined(__x86_64__)
    if (have & INF_CPU_AVX512)
        inf_f16_attn = attn_avx512;
    else if (have & INF_CPU_AVX2)
        inf_f16_attn = attn_avx2;
#endif
}
