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
/* Generation reads every weight once a token, straight from memory, and
 * one core's streams do not keep enough reads in flight on their own: the
 * dot products ask for the bytes INF_PF_AHEAD past the block they are on
 * (the next row's, at a row's end: the next a thread takes). A prefetch
 * never faults. 1-2 KB ahead measured best (stories110M Q4_K_M generation
 * +30% on a Xeon whose one core streams 10 GB/s). */
#define INF_PF_AHEAD 2048
static inline __attribute__((always_inline)) void inf_prefetch(const void *block, int bytes)
{
    for (int o = 0; o < bytes; o += 64)
        _mm_prefetch((const char *)block + INF_PF_AHEAD + o, _MM_HINT_T0);
}
/* The weight kernels ask only where inf_cpu says it pays: on AMD's cores
 * the streams run as fast or faster on the hardware's own prefetchers (one
 * EPYC core: Q8_0 generation +11% without, Q4_K_M even; one Zen 5 core's F32,
 * F16 and BF16 rows 11-16% faster without, interleaved, once the F32 loads
 * were aligned). INF_PREFETCH=0|1 decides instead. */
extern int inf_prefetch_weights;
static inline __attribute__((always_inline)) void inf_prefetch_w(const void *block, int bytes)
{
    if (inf_prefetch_weights)
        inf_prefetch(block, bytes);
}

/* The batch kernels' instruction set: AVX-512 with VNNI, BW and VL. */
#define INF_T_AVX512VNNI __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")))

/* A block of 32 floats quantized as Q8_0's reference quantizer does
 * (scale amax / 127; roundf's halves away from zero, emulated: truncate,
 * add one where 0.5 or more was cut): the signed bytes in q[0] and q[1];
 * returns the scale before it is rounded to F16. */
INF_T_AVX512VNNI static inline float inf_q8_0_block_avx512(const float *xb, __m128i q[2])
{
    const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f);
    const __m512 v[2] = {_mm512_loadu_ps(xb), _mm512_loadu_ps(xb + 16)};
    const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v[0]), _mm512_abs_ps(v[1])));
    const float d = amax / 127, id = d ? 1.0f / d : 0;
    for (int h = 0; h < 2; h++) {
        const __m512 s = _mm512_mul_ps(v[h], _mm512_set1_ps(id)), a = _mm512_abs_ps(s);
        __m512 r = _mm512_roundscale_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        r = _mm512_mask_add_ps(r, _mm512_cmp_ps_mask(_mm512_sub_ps(a, r), half, _CMP_GE_OQ), r, one);
        const __m512i i32 = _mm512_cvttps_epi32(r);
        q[h] = _mm512_cvtepi32_epi8(
            _mm512_mask_sub_epi32(i32, _mm512_cmp_ps_mask(s, _mm512_setzero_ps(), _CMP_LT_OQ), _mm512_setzero_si512(),
                                  i32));
    }
    return d;
}

/* The four sums of a0..a3's lanes into s[0..3] at once (a four-row
 * product's last step, every 4 rows of a token: one reduction's shuffles
 * shared by four). */
__attribute__((target("avx512f"))) static inline void inf_hsum16x4(__m512 a0, __m512 a1, __m512 a2, __m512 a3, float s[4])
{
#define INF_HALVES(a)                                                                                              \
    _mm256_add_ps(_mm512_castps512_ps256(a), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)))
    const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(INF_HALVES(a0), INF_HALVES(a1)),
                                    _mm256_hadd_ps(INF_HALVES(a2), INF_HALVES(a3)));
#undef INF_HALVES
    _mm_storeu_ps(s, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
}

/* The sum of 32 bytes taken as unsigned, in two halves of 16. */
__attribute__((target("avx2"))) static inline void inf_sums16_u8(__m256i v, int *lo, int *hi)
{
    const __m256i s = _mm256_sad_epu8(v, _mm256_setzero_si256());
    *lo = _mm256_extract_epi32(s, 0) + _mm256_extract_epi32(s, 2);
    *hi = _mm256_extract_epi32(s, 4) + _mm256_extract_epi32(s, 6);
}

/* The batch kernels keep tokens in lanes: rm rows' 16 lanes go down their
 * columns of y for the ng tokens there are (added to what is there when
 * add, a later chunk of the columns). */
INF_T_AVX512VNNI static inline void inf_store_lanes(const __m512 acc[], int rm, int ng, float *y, int ldy, int add)
{
    float out[16][16];
    for (int i = 0; i < rm; i++)
        _mm512_storeu_ps(out[i], acc[i]);
    for (int t = 0; t < ng; t++) {
        float *yt = y + (size_t)t * (size_t)ldy;
        for (int i = 0; i < rm; i++)
            yt[i] = add ? yt[i] + out[i][t] : out[i][t];
    }
}

#endif

#endif
