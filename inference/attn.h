/*
 * attn.h — attention of a few query heads that share one key/value head
 * (GQA), over the cache's rows of that head (one after another, position
 * by position), two ways:
 * - a batch of tokens (a prompt) in blocks: a block of tokens against a
 *   chunk of the positions as two small matrix products (the BLAS's SGEMM),
 *   the cache's rows widened to F32 a chunk at a time;
 * - a token or a few (generation) by dot products: scores, softmax, the
 *   weighted sum of the values; an F16 cache through the kernels of
 *   types/f16_attn.c, which widen each row once for all the query heads.
 * Both products and roundings are the same: queries rounded to F16 against
 * an F16 cache, probabilities too, as llama.cpp does; only the order of
 * the sums differs.
 */
#ifndef INF_ATTN_H
#define INF_ATTN_H

#include <stddef.h>
#include <stdint.h>

#include "inference/types.h"

/* tokens a block, positions a chunk, query heads a call at most */
enum { INF_ATTN_TQ = 32, INF_ATTN_KC = 256, INF_ATTN_NH = 8 };

typedef struct {
    const inf_type_t *kt;  /* the cache's type: F16, F32 or Q8_0 */
    const uint8_t *k, *v;  /* the key and value head's rows at position 0 */
    size_t kv_row;         /* bytes from one position to the next (a row: D elements) */
    const float *q;        /* token 0's query of the first head */
    float *o;              /* token 0's output of the first head */
    int nh;                /* query heads (1 .. INF_ATTN_NH), D floats apart in q and o */
    int ld;                /* floats from one token's query (and output) to the next */
    const int *tpos;       /* each token's position: it sees positions 0 .. its own */
    int n, D;              /* tokens, head size */
    float scale;           /* of the scores, 1/sqrt(D) */
} inf_attn_t;

/* The scores s[0 .. n) into probabilities (max subtracted, summed in
 * double), rounded to F16 when f16 (an F16 cache's products take them so):
 * the one softmax of both the dot products' path and the blocks'. */
void inf_attn_softmax(float *s, int n, int f16);
/* Floats of scratch one thread needs for a cache of n_ctx positions, either way. */
size_t inf_attn_scratch(int n_ctx, int D);
/* In blocks. Returns 0 when done, -1 where the build has no BLAS (then the
 * caller takes the dot products). */
int inf_attn_blocked(const inf_attn_t *a, float *scratch);
/* By dot products, token by token. */
void inf_attn_dots(const inf_attn_t *a, float *scratch);

#endif
