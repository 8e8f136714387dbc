/*
 * q8_0p.c — Q8_0P, Q8_0's activation type (layout in types.h): Q8_0's
 * quantization, its blocks regrouped in pairs, values + 128, scales as
 * floats. Every matrix product of a Q8_0 model quantizes its input so: on
 * AVX-512 in SIMD (the scalar quantizer was 4% of a token's time), to the
 * same bytes.
 */
#include <string.h>

#include "inference/types.h"
#include "inference/types/x86.h"

static void q8_0p_from_float(const float *x, void *vy, int64_t n)
{
    const int nb = (int)(n / 32);
    uint8_t *y = vy;
    for (int b = 0; b < nb; b++) {
        inf_block_q8_0 q;
        inf_type_q8_0.from_float(x + 32 * (size_t)b, &q, 32);
        for (int l = 0; l < 32; l++)
            y[inf_q8_0p_q_at(b) + (size_t)l] = (uint8_t)(q.qs[l] + 128);
        const float d = inf_f16_to_f32(q.d);
        memcpy(y + inf_q8_0p_d_at(b, nb), &d, sizeof d);
    }
}

#if defined(__x86_64__)
INF_T_AVX512VNNI static void from_float_avx512(const float *x, void *vy, int64_t n)
{
    const int nb = (int)(n / 32);
    uint8_t *y = vy;
    const __m128i k80 = _mm_set1_epi8((char)0x80);
    for (int b = 0; b < nb; b++) {
        __m128i q[2];
        const float d = inf_f16_to_f32(inf_f32_to_f16(inf_q8_0_block_avx512(x + 32 * (size_t)b, q)));
        uint8_t *o = y + inf_q8_0p_q_at(b);
        _mm_storeu_si128((__m128i *)o, _mm_xor_si128(q[0], k80));
        _mm_storeu_si128((__m128i *)(o + 16), _mm_xor_si128(q[1], k80));
        memcpy(y + inf_q8_0p_d_at(b, nb), &d, sizeof d);
    }
}
#endif

static const inf_kernel_t kernels[] = {
#if defined(__x86_64__)
    {"avx512-vnni", INF_CPU_AVX2 | INF_CPU_AVX512 | INF_CPU_AVX512VNNI, NULL, NULL, NULL, from_float_avx512},
#endif
    {NULL, 0, NULL, NULL, NULL, NULL}};

static void q8_0p_to_float(const void *vx, float *y, int64_t n)
{
    const int nb = (int)(n / 32);
    for (int b = 0; b < nb; b++) {
        const uint8_t *q = (const uint8_t *)vx + inf_q8_0p_q_at(b);
        const float d = inf_q8_0p_d(vx, b, nb);
        for (int l = 0; l < 32; l++)
            y[32 * (size_t)b + l] = d * (float)(q[l] - 128);
    }
}

inf_type_t inf_type_q8_0p = {.id = INF_Q8_0P, .name = "Q8_0P", .block = 32, .bytes = 36, .dot_type = INF_Q8_0P,
                             .to_float = q8_0p_to_float, .from_float = q8_0p_from_float, .simd = "none",
                             .kernels = kernels, .activations_only = 1};
