/*
 * softmax.c — the attention's softmax over one row of scores (attn.h's
 * inf_attn_softmax): exp(s - max) / sum, each result rounded to F16 when the
 * values it weighs are F16 (types.h, inf_softmax_t).
 *
 * glibc's expf a score at a time and a double sum whose every add waits on
 * the one before took a quarter of a long context's attention (Qwen3-0.6B's
 * shape at 640 positions, one thread: 1.4 of 5.0 ms a token). The SIMD
 * kernels take exp as a polynomial on 8 or 16 lanes at once (vexp.h) and
 * sum in float lanes. The
 * scalar kernel stays the reference, with expf and a double sum.
 */
#include <math.h>

#include "inference/types.h"

#if defined(__x86_64__)
#include "inference/types/vexp.h"
#include "inference/types/x86.h"
#endif

static void softmax_scalar(float *s, int n, int f16)
{
    float max = -INFINITY;
    for (int p = 0; p < n; p++)
        max = s[p] > max ? s[p] : max;
    double sum = 0;
    for (int p = 0; p < n; p++) {
        s[p] = expf(s[p] - max);
        sum += s[p];
    }
    const float inv = (float)(1.0 / sum);
    for (int p = 0; p < n; p++)
        s[p] *= inv;
    if (f16)
        inf_round_to_f16(s, n);
}

const inf_softmax_t inf_softmax_scalar = {"scalar", softmax_scalar};

#if defined(__x86_64__)
/* Lanes [0, k) of a register, as AVX's masked loads and stores want them. */
__attribute__((target("avx2"))) static inline __m256i lanes_avx2(int k)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

__attribute__((target("avx2,fma,f16c"))) static void softmax_avx2(float *s, int n, int f16)
{
    const int full = n & ~7;
    const __m256i tail = lanes_avx2(n - full);
    __m256 vmax = _mm256_set1_ps(-INFINITY);
    for (int p = 0; p < full; p += 8)
        vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(s + p));
    if (full < n)
        vmax = _mm256_max_ps(vmax, _mm256_blendv_ps(vmax, _mm256_maskload_ps(s + full, tail),
                                                    _mm256_castsi256_ps(tail)));
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
    const __m256 max = _mm256_broadcastss_ps(m4);

    __m256 sum = _mm256_setzero_ps();
    for (int p = 0; p < full; p += 8) {
        const __m256 e = inf_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(s + p), max));
        _mm256_storeu_ps(s + p, e);
        sum = _mm256_add_ps(sum, e);
    }
    if (full < n) {
        const __m256 e = _mm256_and_ps(inf_exp_avx2(_mm256_sub_ps(_mm256_maskload_ps(s + full, tail), max)),
                                       _mm256_castsi256_ps(tail));
        _mm256_maskstore_ps(s + full, tail, e);
        sum = _mm256_add_ps(sum, e);
    }
    const __m256 inv = _mm256_set1_ps(1.0f / inf_hsum8(sum));

    for (int p = 0; p < full; p += 8) {
        __m256 v = _mm256_mul_ps(_mm256_loadu_ps(s + p), inv);
        if (f16)
            v = _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        _mm256_storeu_ps(s + p, v);
    }
    if (full < n) {
        __m256 v = _mm256_mul_ps(_mm256_maskload_ps(s + full, tail), inv);
        if (f16)
            v = _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        _mm256_maskstore_ps(s + full, tail, v);
    }
}

__attribute__((target("avx512f,f16c"))) static void softmax_avx512(float *s, int n, int f16)
{
    const int full = n & ~15;
    const __mmask16 tail = (__mmask16)((1u << (n - full)) - 1u);
    __m512 vmax = _mm512_set1_ps(-INFINITY);
    for (int p = 0; p < full; p += 16)
        vmax = _mm512_max_ps(vmax, _mm512_loadu_ps(s + p));
    vmax = _mm512_mask_max_ps(vmax, tail, vmax, _mm512_maskz_loadu_ps(tail, s + full));
    const __m512 max = _mm512_set1_ps(_mm512_reduce_max_ps(vmax));

    __m512 sum = _mm512_setzero_ps();
    for (int p = 0; p < full; p += 16) {
        const __m512 e = inf_exp_avx512(_mm512_sub_ps(_mm512_loadu_ps(s + p), max));
        _mm512_storeu_ps(s + p, e);
        sum = _mm512_add_ps(sum, e);
    }
    if (tail) {
        const __m512 e = inf_exp_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, s + full), max));
        _mm512_mask_storeu_ps(s + full, tail, e);
        sum = _mm512_mask_add_ps(sum, tail, sum, e);
    }
    const __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sum));

    for (int p = 0; p < full; p += 16) {
        __m512 v = _mm512_mul_ps(_mm512_loadu_ps(s + p), inv);
        if (f16)
            v = _mm512_cvtph_ps(_mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        _mm512_storeu_ps(s + p, v);
    }
    if (tail) {
        __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, s + full), inv);
        if (f16)
            v = _mm512_cvtph_ps(_mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        _mm512_mask_storeu_ps(s + full, tail, v);
    }
}
#endif

inf_softmax_t inf_softmax = {"scalar", softmax_scalar};

void inf_softmax_select(unsigned have)
{
    inf_softmax = inf_softmax_scalar;
#if defined(__x86_64__)
    if ((have & INF_CPU_AVX512) && (have & INF_CPU_AVX2))
        inf_softmax = (inf_softmax_t){"avx512", softmax_avx512};
    else if (have & INF_CPU_AVX2)
        inf_softmax = (inf_softmax_t){"avx2", softmax_avx2};
#else
    (void)have;
#endif
}
