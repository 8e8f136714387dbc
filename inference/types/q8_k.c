/*
 * q8_k.c — Q8_K, the K-quants' activation type: blocks of 256 signed bytes,
 * an F32 scale and the sums of each 16 (the Q4_K/Q5_K mins and the Q6_K
 * offset need them). Activations only: no weights come in it.
 */
#include <math.h>
#include <string.h>

#include "inference/types.h"
#include "inference/types/kq16.h"
#include "inference/types/kquant.h"

static void q8_k_to_float(const void *vx, float *y, int64_t n)
{
    const inf_block_q8_k *x = vx;
    for (int64_t i = 0; i < n / 256; i++)
        for (int j = 0; j < 256; j++)
            y[i * 256 + j] = x[i].d * x[i].qs[j];
}

/* The value of largest magnitude maps to -127 (its sign kept in the scale). */
static void q8_k_from_float(const float *x, void *vy, int64_t n)
{
    inf_block_q8_k *y = vy;
    for (int64_t i = 0; i < n / 256; i++) {
        const float *b = x + i * 256;
        float amax = 0, max = 0;
        for (int j = 0; j < 256; j++)
            if (fabsf(b[j]) > amax) {
                amax = fabsf(b[j]);
                max = b[j];
            }
        if (amax == 0) {
            y[i].d = 0;
            for (int j = 0; j < 256; j++)
                y[i].qs[j] = 0;
            for (int j = 0; j < 16; j++)
                y[i].bsums[j] = 0;
            continue;
        }
        float iscale = -127.0f / max;
        for (int j = 0; j < 256; j++) {
            int v = (int)lrintf(iscale * b[j]);
            y[i].qs[j] = (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
        }
        for (int j = 0; j < 16; j++) {
            int sum = 0;
            for (int k = 0; k < 16; k++)
                sum += y[i].qs[16 * j + k];
            y[i].bsums[j] = (int16_t)sum;
        }
        y[i].d = 1 / iscale;
    }
}

size_t kq16_group_bytes(int cols)
{
    return (size_t)(cols / 256) * sizeof(kq16_block_t);
}

#if defined(__x86_64__)
/* A super-block quantized exactly as q8_k_from_float does (the first value
 * of the largest magnitude sets the scale; lrintf's rounding, which
 * cvtps_epi32 shares; saturated to -128..127): its 16 pieces of 16 bytes in
 * b8; returns the scale, 0 (and zeros) for a block of zeros. */
INF_T_AVX512VNNI static inline float quantize_avx512(const float *x, __m128i b8[16])
{
    __m512 v[16], amax = _mm512_setzero_ps();
    for (int j = 0; j < 16; j++) {
        v[j] = _mm512_loadu_ps(x + 16 * j);
        amax = _mm512_max_ps(amax, _mm512_abs_ps(v[j]));
    }
    const float am = _mm512_reduce_max_ps(amax);
    if (am == 0) {
        for (int j = 0; j < 16; j++)
            b8[j] = _mm_setzero_si128();
        return 0;
    }
    float max = 0;
    for (int j = 0; j < 16; j++) {
        const __mmask16 at = _mm512_cmp_ps_mask(_mm512_abs_ps(v[j]), _mm512_set1_ps(am), _CMP_EQ_OQ);
        if (at) {
            max = x[16 * j + __builtin_ctz(at)];
            break;
        }
    }
    const float iscale = -127.0f / max;
    for (int j = 0; j < 16; j++)
        b8[j] = _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(v[j], _mm512_set1_ps(iscale))));
    return 1 / iscale;
}

/* The activations of a token's products (Q4_K's, Q5_K's, Q6_K's): in SIMD
 * (the scalar quantizer, lrintf calls, was 3% of a Q4_K_M token's time),
 * to the same bytes. */
INF_T_AVX512VNNI static void from_float_avx512(const float *x, void *vy, int64_t n)
{
    inf_block_q8_k *y = vy;
    for (int64_t i = 0; i < n / 256; i++) {
        __m128i b8[16];
        y[i].d = quantize_avx512(x + i * 256, b8);
        for (int j = 0; j < 16; j++) {
            _mm_storeu_si128((__m128i *)(y[i].qs + 16 * j), b8[j]);
            y[i].bsums[j] = (int16_t)_mm512_reduce_add_epi32(_mm512_cvtepi8_epi32(b8[j]));
        }
    }
}

/* One token's super-block quantized as above, placed at its lane as
 * x + 128, with its scale and 32-value sums. */
INF_T_AVX512VNNI static void pack_token(const float *x, int t, kq16_block_t *g)
{
    __m128i b8[16];
    const float d = quantize_avx512(x, b8);
    int sums[16];
    for (int j = 0; j < 16; j++) {
        sums[j] = _mm512_reduce_add_epi32(_mm512_cvtepi8_epi32(b8[j]));
        uint32_t w[4];
        _mm_storeu_si128((__m128i *)w, _mm_xor_si128(b8[j], _mm_set1_epi8((char)0x80)));
        for (int k = 0; k < 4; k++)
            memcpy(g->q[4 * j + k][t], &w[k], 4);
    }
    g->d[t] = d;
    for (int j = 0; j < 8; j++)
        g->bsum[j][t] = d * (float)(sums[2 * j] + sums[2 * j + 1]);
}

/* Each token quantized as for the dot products, then placed (kq16.h); the
 * tokens a group lacks are zeros. The batch kernels that read it are
 * AVX-512 VNNI ones, so the packing is too. */
INF_T_AVX512VNNI void kq16_pack(const float *x, int ldx, int nt, int cols, void *dst)
{
    kq16_block_t *g = dst;
    for (int b = 0; b < cols / 256; b++)
        for (int t = 0; t < KQ16_TOKENS; t++) {
            if (t < nt) {
                pack_token(x + (size_t)t * (size_t)ldx + b * 256, t, &g[b]);
                continue;
            }
            for (int c = 0; c < 64; c++)
                memset(g[b].q[c][t], 0x80, 4);
            g[b].d[t] = 0;
            for (int j = 0; j < 8; j++)
                g[b].bsum[j][t] = 0;
        }
}
#endif

static const inf_kernel_t kernels[] = {
#if defined(__x86_64__)
    {"avx512-vnni", INF_CPU_AVX2 | INF_CPU_AVX512 | INF_CPU_AVX512VNNI, NULL, NULL, NULL, from_float_avx512},
#endif
    {NULL, 0, NULL, NULL, NULL, NULL}};


inf_type_t inf_type_q8_k = {.id = GGML_Q8_K, .name = "Q8_K", .block = 256, .bytes = sizeof(inf_block_q8_k),
                            .dot_type = GGML_Q8_K, .to_float = q8_k_to_float, .from_float = q8_k_from_float,
                            .simd = "none", .kernels = kernels, .activations_only = 1};
