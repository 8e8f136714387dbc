/*
 * swiglu.c — the MLP's gate: y = silu(x) * u = x / (1 + exp(-x)) * u
 * (types.h, inf_swiglu_t).
 *
 * glibc's expf a value at a time took 4.7 us of a 2048-value hidden layer
 * (stories110M's), a third of what its down product's input cost a token;
 * the SIMD kernels take exp on 8 or 16 lanes (vexp.h) and divide exactly.
 * The scalar kernel stays the reference, with expf.
 */
#include <math.h>

#include "inference/types.h"

#if defined(__x86_64__)
#include "inference/types/vexp.h"
#endif

static void swiglu_scalar(float *y, const float *x, const float *u, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i] / (1.0f + expf(-x[i])) * u[i];
}

const inf_swiglu_t inf_swiglu_scalar = {"scalar", swiglu_scalar};

#if defined(__x86_64__)
/* exp(-x) is clamped (vexp.h): below x = -88 silu is x over a clamped
 * exp, not 0 as x / inf is; those lanes are set to 0. */
#define SILU_LOW -88.0f

__attribute__((target("avx2,fma"))) static inline __m256 silu_avx2(__m256 x)
{
    const __m256 e = inf_exp_avx2(_mm256_sub_ps(_mm256_setzero_ps(), x));
    const __m256 y = _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
    return _mm256_andnot_ps(_mm256_cmp_ps(x, _mm256_set1_ps(SILU_LOW), _CMP_LT_OQ), y);
}

__attribute__((target("avx2,fma"))) static void swiglu_avx2(float *y, const float *x, const float *u, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_mul_ps(silu_avx2(_mm256_loadu_ps(x + i)), _mm256_loadu_ps(u + i)));
    if (i < n) {
        const __m256i lanes =
            _mm256_cmpgt_epi32(_mm256_set1_epi32(n - i), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        const __m256 v = _mm256_mul_ps(silu_avx2(_mm256_maskload_ps(x + i, lanes)), _mm256_maskload_ps(u + i, lanes));
        _mm256_maskstore_ps(y + i, lanes, v);
    }
}

__attribute__((target("avx512f"))) static inline __m512 silu_avx512(__m512 x)
{
    const __m512 e = inf_exp_avx512(_mm512_sub_ps(_mm512_setzero_ps(), x));
    const __m512 y = _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(SILU_LOW), _CMP_NLT_UQ), y);
}

__attribute__((target("avx512f"))) static void swiglu_avx512(float *y, const float *x, const float *u, int n)
{
    int i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, _mm512_mul_ps(silu_avx512(_mm512_loadu_ps(x + i)), _mm512_loadu_ps(u + i)));
    if (i < n) {
        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
        const __m512 v = _mm512_mul_ps(silu_avx512(_mm512_maskz_loadu_ps(m, x + i)), _mm512_maskz_loadu_ps(m, u + i));
        _mm512_mask_storeu_ps(y + i, m, v);
    }
}
#endif

inf_swiglu_t inf_swiglu = {"scalar", swiglu_scalar};

void inf_swiglu_select(unsigned have)
{
    inf_swiglu = inf_swiglu_scalar;
#if defined(__x86_64__)
    if ((have & INF_CPU_AVX512) && (have & INF_CPU_AVX2))
        inf_swiglu = (inf_swiglu_t){"avx512", swiglu_avx512};
    else if (have & INF_CPU_AVX2)
        inf_swiglu = (inf_swiglu_t){"avx2", swiglu_avx2};
#else
    (void)have;
#endif
}
