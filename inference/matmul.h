/*
 * matmul.h — y = W x for a batch of activation rows, over the pool's
 * threads: the activations quantized once into each weight type's dot type
 * (by all threads, a share each), then each thread a range of W's rows, a
 * few rows at a time against every token so that a weight row is read once
 * from memory per batch. A single token (generation) is quantized by every
 * thread for itself, which costs less than making the others wait for it.
 * Up to INF_MM_MAX matrices sharing one input go in one job (Q, K and V;
 * gate and up).
 */
#ifndef INF_MATMUL_H
#define INF_MATMUL_H

#include "inference/model.h"
#include "inference/pool.h"

enum { INF_MM_MAX = 3 };

typedef struct inf_mm {
    const void *w;       /* rows of row_bytes */
    const inf_type_t *t;
    size_t row_bytes;
    int rows;
    float *y;            /* y[token * ldy + row] */
    int ldy;
    const float *bias;   /* added to each token's row, or NULL */
} inf_mm_t;

/* What the products take instead of x itself, made by the threads as they
 * quantize it (so the elementwise passes between the products cost neither
 * a pass of their own nor a wait for one thread doing them):
 *   INF_MM_IN_NORM:   h = x + add (add NULL: h = x), stored into sum
 *                     (ld ldx, not x or add: every thread reads all of
 *                     those while others store) when sum is not NULL; the
 *                     input is RMSNorm(h) with weights w and epsilon eps;
 *   INF_MM_IN_SWIGLU: the input is silu(x) * up (up ld ldx). */
enum { INF_MM_IN_NORM = 1, INF_MM_IN_SWIGLU };
typedef struct inf_mm_in {
    int kind;
    const float *add;
    float *sum;
    const float *w;
    float eps;
    const float *up;
} inf_mm_in_t;

/* Room for the products' converted inputs: of up to `cols` columns and n
 * tokens, on a pool of up to `threads` threads. NULL when out of memory. */
typedef struct inf_mm_scratch inf_mm_scratch_t;
inf_mm_scratch_t *inf_mm_scratch_new(int cols, int n, int threads);
void inf_mm_scratch_free(inf_mm_scratch_t *s);

/* x: n rows of `cols` (ld ldx); m: nm <= INF_MM_MAX matrices; in: NULL
 * (x as it is) or what to make of it; scratch: made for at least these
 * columns, tokens and threads. */
void inf_matmul(inf_pool_t *pool, const float *x, int ldx, int n, int cols, const inf_mm_in_t *in, inf_mm_t *m,
                int nm, inf_mm_scratch_t *scratch);
/* The matrix of a weight (expert e of a 3-D one). */
inf_mm_t inf_mm_of(const inf_w_t *w, int e, float *y, int ldy, const float *bias);

#endif
