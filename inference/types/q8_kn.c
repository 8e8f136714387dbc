/*
 * q8_kn.c — Q8_KN, Q4_K's activation type: Q8_K (types.h) with its eight
 * sub-blocks of 32 in the order of Q4_K's nibbles, 0 2 1 3 4 6 5 7, so that
 * a 64-byte load of Q4_K weights (sub-blocks 2c and 2c + 2 in the low
 * nibbles, 2c + 1 and 2c + 3 in the high ones) meets its activations in two
 * 64-byte loads, with no shuffling a row. The order swaps 1 and 2, 5 and 6:
 * sub-block j is at position inf_q8_kn_at(j). Its sums are of 32 (Q4_K's
 * mins take a sub-block's): bsums[j] for sub-block j, in the natural order,
 * bsums[8..15] zero.
 */
#include <string.h>

#include "inference/types.h"

static void swap32(int8_t *a, int8_t *b)
{
    int8_t t[32];
    memcpy(t, a, 32);
    memcpy(a, b, 32);
    memcpy(b, t, 32);
}

static void q8_kn_from_float(const float *x, void *vy, int64_t n)
{
    inf_block_q8_k *y = vy;
    inf_type_q8_k.from_float(x, vy, n);
    for (int64_t i = 0; i < n / 256; i++) {
        swap32(y[i].qs + 32, y[i].qs + 64);
        swap32(y[i].qs + 160, y[i].qs + 192);
        for (int j = 0; j < 8; j++)
            y[i].bsums[j] = (int16_t)(y[i].bsums[2 * j] + y[i].bsums[2 * j + 1]);
        memset(y[i].bsums + 8, 0, 8 * sizeof y[i].bsums[0]);
    }
}

static void q8_kn_to_float(const void *vx, float *y, int64_t n)
{
    const inf_block_q8_k *x = vx;
    for (int64_t i = 0; i < n / 256; i++)
        for (int j = 0; j < 8; j++)
            for (int l = 0; l < 32; l++)
                y[i * 256 + 32 * j + l] = x[i].d * x[i].qs[32 * inf_q8_kn_at(j) + l];
}

inf_type_t inf_type_q8_kn = {.id = INF_Q8_KN, .name = "Q8_KN", .block = 256, .bytes = sizeof(inf_block_q8_k),
                             .dot_type = INF_Q8_KN, .to_float = q8_kn_to_float, .from_float = q8_kn_from_float,
                             .simd = "none", .activations_only = 1};
