/*
 * q8_0p.c — Q8_0P, Q8_0's activation type (layout in types.h): Q8_0's
 * quantization, its blocks regrouped in pairs, values + 128, scales as
 * floats.
 */
#include <string.h>

#include "inference/types.h"

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
                             .activations_only = 1};
