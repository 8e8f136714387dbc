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

/* Each token quantized as for the dot products, then placed (kq16.h); the
 * tokens a group lacks are zeros. */
void kq16_pack(const float *x, int ldx, int nt, int cols, void *dst)
{
    kq16_block_t *g = dst;
    memset(dst, 0, kq16_group_bytes(cols));
    for (int b = 0; b < cols / 256; b++) {
        for (int t = 0; t < KQ16_TOKENS; t++) {
            inf_block_q8_k q;
            if (t < nt) {
                q8_k_from_float(x + (size_t)t * (size_t)ldx + b * 256, &q, 256);
            } else {
                memset(&q, 0, sizeof q);
            }
            for (int c = 0; c < 64; c++) {
                uint32_t v;
                memcpy(&v, q.qs + 4 * c, 4);
                v ^= 0x80808080u;
                memcpy(g[b].q[c][t], &v, 4);
            }
            g[b].d[t] = q.d;
            for (int j = 0; j < 8; j++)
                g[b].bsum[j][t] = q.d * (float)(q.bsums[2 * j] + q.bsums[2 * j + 1]);
        }
    }
}

inf_type_t inf_type_q8_k = {.id = GGML_Q8_K, .name = "Q8_K", .block = 256, .bytes = sizeof(inf_block_q8_k),
                            .dot_type = GGML_Q8_K, .to_float = q8_k_to_float, .from_float = q8_k_from_float,
                            .simd = "none"};
