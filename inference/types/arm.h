/*
 * arm.h — what the 64-bit ARM (NEON) kernels of several types share
 * (types/<type>.c).
 */
#ifndef INF_TYPES_ARM_H
#define INF_TYPES_ARM_H

#if defined(__aarch64__)
#include <arm_neon.h>

/* acc plus the products of a and b's 16 int8 lanes, four lanes of sums:
 * the dot-product instruction where the build targets it (ARMv8.2+,
 * every Apple M-series), else widening multiplies. */
static inline int32x4_t inf_neon_dot16(int32x4_t acc, int8x16_t a, int8x16_t b)
{
#if defined(__ARM_FEATURE_DOTPROD)
    return vdotq_s32(acc, a, b);
#else
    return vaddq_s32(acc, vpaddlq_s16(vmlal_s8(vmull_s8(vget_low_s8(a), vget_low_s8(b)), vget_high_s8(a), vget_high_s8(b))));
#endif
}
#endif

#endif
