/*
 * vexp.h — exp on 8 or 16 float lanes at once, for the kernels that take
 * many (softmax.c, swiglu.c): Cephes' expf, the argument reduced by ln 2 in
 * two parts (x = n ln2 + r, |r| <= ln2 / 2, ln 2 split in a part exact in
 * few bits and the rest), exp(r) = 1 + r + r^2 P(r) with P of degree 5, the
 * power of two put back; within 2 ulp of expf. Arguments are clamped to
 * where that holds, a NaN passes through as a NaN (max and min give their
 * second operand when either is one, and x goes second).
 */
#ifndef INF_TYPES_VEXP_H
#define INF_TYPES_VEXP_H

#if defined(__x86_64__)
#include <immintrin.h>

#define INF_EXP_LOG2E 1.44269504088896341f
#define INF_EXP_C1 0.693359375f
#define INF_EXP_C2 -2.12194440e-4f
#define INF_EXP_P0 1.9875691500e-4f
#define INF_EXP_P1 1.3981999507e-3f
#define INF_EXP_P2 8.3334519073e-3f
#define INF_EXP_P3 4.1665795894e-2f
#define INF_EXP_P4 1.6666665459e-1f
#define INF_EXP_P5 5.0000001201e-1f
/* exp(x) of 88.3 is 2^127.4: the largest power of two the exponent field holds */
#define INF_EXP_HI 88.3f

/* exp(r) for r on a register: both instruction sets' (FMADD, MUL, ADD, SET1). */
#define INF_EXP_OF_R(r, FMADD, MUL, ADD, SET1)                                                                       \
    ADD(FMADD(FMADD(FMADD(FMADD(FMADD(FMADD(SET1(INF_EXP_P0), r, SET1(INF_EXP_P1)), r, SET1(INF_EXP_P2)), r,         \
                                  SET1(INF_EXP_P3)),                                                                 \
                            r, SET1(INF_EXP_P4)),                                                                    \
                      r, SET1(INF_EXP_P5)),                                                                          \
                MUL(r, r), r),                                                                                       \
        SET1(1.0f))

/* Below -87.3 exp is under FLT_MIN, where 2^n as an exponent field no
 * longer exists: those lanes come out as exp(-87.3), 1e-38. */
__attribute__((target("avx2,fma"))) static inline __m256 inf_exp_avx2(__m256 x)
{
    x = _mm256_max_ps(_mm256_set1_ps(-87.3f), x);
    x = _mm256_min_ps(_mm256_set1_ps(INF_EXP_HI), x);
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(INF_EXP_LOG2E)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(INF_EXP_C1), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(INF_EXP_C2), r);
    const __m256 y = INF_EXP_OF_R(r, _mm256_fmadd_ps, _mm256_mul_ps, _mm256_add_ps, _mm256_set1_ps);
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
}

/* AVX-512: scalef puts the power of two back, gradual underflow included
 * (exp is 0 from -104 on). */
__attribute__((target("avx512f"))) static inline __m512 inf_exp_avx512(__m512 x)
{
    x = _mm512_max_ps(_mm512_set1_ps(-104.0f), x);
    x = _mm512_min_ps(_mm512_set1_ps(INF_EXP_HI), x);
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(INF_EXP_LOG2E)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(INF_EXP_C1), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(INF_EXP_C2), r);
    const __m512 y = INF_EXP_OF_R(r, _mm512_fmadd_ps, _mm512_mul_ps, _mm512_add_ps, _mm512_set1_ps);
    return _mm512_scalef_ps(y, n);
}
#endif

#endif
