/*
 * kquant.h — what the K-quant types (q4_k.c, q5_k.c, q6_k.c) share: the
 * packing of eight 6-bit scales and eight 6-bit mins in 12 bytes, and the
 * choice of a sub-block's scale and min.
 */
#ifndef INF_KQUANT_H
#define INF_KQUANT_H

#include <math.h>
#include <stdint.h>

/* Sub-block j's scale and min from the 12 packed bytes: j < 4 in the low 6
 * bits of bytes j and j + 4; j >= 4 their low 4 bits in byte j + 4, the top
 * 2 in the spare top bits of bytes j - 4 and j. */
static inline void kq_scale_min(int j, const uint8_t *q, uint8_t *d, uint8_t *m)
{
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = (uint8_t)((q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4));
        *m = (uint8_t)((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

static inline void kq_pack_scales(const uint8_t ls[8], const uint8_t lm[8], uint8_t q[12])
{
    for (int j = 0; j < 12; j++)
        q[j] = 0;
    for (int j = 0; j < 8; j++) {
        if (j < 4) {
            q[j] |= ls[j];
            q[j + 4] |= lm[j];
        } else {
            q[j + 4] = (uint8_t)((ls[j] & 0xf) | ((lm[j] & 0xf) << 4));
            q[j - 4] |= (uint8_t)((ls[j] >> 4) << 6);
            q[j] |= (uint8_t)((lm[j] >> 4) << 6);
        }
    }
}

static inline int kq_round(float x, int lo, int hi)
{
    int v = (int)lrintf(x);
    return v < lo ? lo : v > hi ? hi : v;
}

/* Scales and mins of the 8 sub-blocks of 32 of a 256 super-block with
 * values 0..nmax: value = d * ls * q - dmin * lm. Returns d and dmin (F32;
 * the caller stores them as F16 and uses the rounded ones). */
static inline void kq_sub_scales(const float *x, int nmax, float *sc, float *mn)
{
    for (int j = 0; j < 8; j++) {
        float lo = x[32 * j], hi = x[32 * j];
        for (int l = 1; l < 32; l++) {
            lo = fminf(lo, x[32 * j + l]);
            hi = fmaxf(hi, x[32 * j + l]);
        }
        if (lo > 0)
            lo = 0;
        sc[j] = (hi - lo) / (float)nmax;
        mn[j] = -lo;
    }
}

#endif
