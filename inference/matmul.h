/*
 * matmul.h — y = W x for a batch of activation rows, over the pool's
 * threads: the activations quantized once into each weight type's dot type
 * (by all threads, a share each), then each thread a range of W's rows, a
 * few rows at a time against every token so that a weight row is read once
 * from memory per batch. Up to three matrices sharing one input go in one
 * job (Q, K and V; gate and up).
 */
#ifndef INF_MATMUL_H
#define INF_MATMUL_H

#include "inference/model.h"
#include "inference/pool.h"

typedef struct inf_mm {
    const void *w;       /* rows of row_bytes */
    const inf_type_t *t;
    size_t row_bytes;
    int rows;
    float *y;            /* y[token * ldy + row] */
    int ldy;
    const float *bias;   /* added to each token's row, or NULL */
} inf_mm_t;

/* x: n rows of `cols` (ld ldx); scratch: room for inf_mm_scratch(cols, n)
 * bytes. */
void inf_matmul(inf_pool_t *pool, const float *x, int ldx, int n, int cols, inf_mm_t *m, int nm, void *scratch);
size_t inf_mm_scratch(int cols, int n);
/* The matrix of a weight (expert e of a 3-D one). */
inf_mm_t inf_mm_of(const inf_w_t *w, int e, float *y, int ldy, const float *bias);

#endif
