/*
 * attn.h — attention of a batch of tokens (a prompt) for one head, in
 * blocks: a block of tokens against a chunk of the cache's positions as
 * two small matrix products (the BLAS's SGEMM), the cache's rows widened to
 * F32 a chunk at a time. The products and roundings are the dot products'
 * (forward.c's one-token path): queries rounded to F16 against an F16
 * cache, probabilities too, as llama.cpp does; only the order of the sums
 * differs.
 */
#ifndef INF_ATTN_H
#define INF_ATTN_H

#include <stddef.h>
#include <stdint.h>

#include "inference/types.h"

enum { INF_ATTN_TQ = 32, INF_ATTN_KC = 256 }; /* tokens a block, positions a chunk */

typedef struct {
    const inf_type_t *kt;  /* the cache's type: F16, F32 or Q8_0 */
    const uint8_t *k, *v;  /* this head's key and value at position 0 */
    size_t kv_row;         /* bytes from one position to the next */
    const float *q;        /* token 0's query of this head */
    float *o;              /* token 0's output of this head */
    int ld;                /* floats from one token's query (and output) to the next */
    const int *tpos;       /* each token's position: it sees positions 0 .. its own */
    int n, D;              /* tokens, head size */
    float scale;           /* of the scores, 1/sqrt(D) */
} inf_attn_t;

/* The scores s[0 .. n) into probabilities (max subtracted, summed in
 * double), rounded to F16 when f16 (an F16 cache's products take them so):
 * the one softmax of both the dot products' path and the blocks'. */
void inf_attn_softmax(float *s, int n, int f16);
/* Floats of scratch one thread needs for a cache of n_ctx positions. */
size_t inf_attn_scratch(int n_ctx, int D);
/* Returns 0 when done, -1 where the build has no BLAS (then the caller
 * takes the dot products). */
int inf_attn_blocked(const inf_attn_t *a, float *scratch);

#endif
