/*
 * matmul.c — the batched matrix product over the pool (matmul.h).
 */
#include <string.h>

#include "inference/matmul.h"

#define ROWS 4 /* weight rows a thread takes against every token at once */

typedef struct mm_job {
    const float *x;
    int ldx, n, cols;
    inf_mm_t *m;
    int nm;
    /* the activations in each distinct dot type: F32 is x itself */
    uint32_t dt[3];
    const void *xq[3];
    size_t xs[3]; /* bytes from one token's row to the next */
    int ndt;
    uint8_t *scratch;
    inf_pool_t *pool;
} mm_job_t;

static int dot_slot(const mm_job_t *j, uint32_t dt)
{
    for (int i = 0; i < j->ndt; i++)
        if (j->dt[i] == dt)
            return i;
    return 0;
}

static void mm_run(void *arg, int ith, int nth)
{
    mm_job_t *j = arg;
    /* the activations, quantized a token at a time by whichever thread */
    for (int d = 0; d < j->ndt; d++) {
        if (j->dt[d] == GGML_F32)
            continue;
        const inf_type_t *qt = inf_type(j->dt[d]);
        for (int t = ith; t < j->n; t += nth)
            qt->from_float(j->x + (size_t)t * (size_t)j->ldx, (uint8_t *)j->xq[d] + (size_t)t * j->xs[d], j->cols);
    }
    inf_pool_barrier(j->pool);
    /* this thread's rows of all the matrices, in blocks of ROWS */
    int total = 0;
    for (int i = 0; i < j->nm; i++)
        total += j->m[i].rows;
    int per = (total + nth - 1) / nth;
    per = (per + ROWS - 1) / ROWS * ROWS;
    int r0 = ith * per, r1 = r0 + per < total ? r0 + per : total;
    for (int i = 0, base = 0; i < j->nm && r0 < r1; base += j->m[i].rows, i++) {
        const inf_mm_t *m = &j->m[i];
        int a = r0 > base ? r0 - base : 0, b = r1 - base < m->rows ? r1 - base : m->rows;
        if (a >= b)
            continue;
        const int s = dot_slot(j, m->t->dot_type);
        const uint8_t *xq = j->xq[s];
        const size_t xs = j->xs[s];
        inf_vec_dot_fn *dot = m->t->vec_dot;
        for (int r = a; r < b; r += ROWS) {
            int e = r + ROWS < b ? r + ROWS : b;
            for (int t = 0; t < j->n; t++) {
                const void *xt = xq + (size_t)t * xs;
                float *yt = m->y + (size_t)t * (size_t)m->ldy;
                for (int rr = r; rr < e; rr++) {
                    float v;
                    dot(j->cols, &v, (const uint8_t *)m->w + (size_t)rr * m->row_bytes, xt);
                    yt[rr] = m->bias ? v + m->bias[rr] : v;
                }
            }
        }
    }
}

size_t inf_mm_scratch(int cols, int n)
{
    /* two quantized copies at most (Q8_0: 34/32 bytes an element, Q8_K: 292/256) */
    return 2 * ((size_t)cols * 37 / 32 + 64) * (size_t)(n > 0 ? n : 1) + 256;
}

void inf_matmul(inf_pool_t *pool, const float *x, int ldx, int n, int cols, inf_mm_t *m, int nm, void *scratch)
{
    mm_job_t j = {.x = x, .ldx = ldx, .n = n, .cols = cols, .m = m, .nm = nm, .scratch = scratch, .pool = pool};
    uint8_t *free_at = scratch;
    for (int i = 0; i < nm; i++) {
        uint32_t dt = m[i].t->dot_type;
        int seen = 0;
        for (int d = 0; d < j.ndt; d++)
            seen |= j.dt[d] == dt;
        if (seen)
            continue;
        j.dt[j.ndt] = dt;
        if (dt == GGML_F32) {
            j.xq[j.ndt] = x;
            j.xs[j.ndt] = (size_t)ldx * sizeof(float);
        } else {
            j.xq[j.ndt] = free_at;
            j.xs[j.ndt] = inf_row_bytes(inf_type(dt), cols);
            free_at += j.xs[j.ndt] * (size_t)n;
        }
        j.ndt++;
    }
    inf_pool_run(pool, mm_run, &j);
}

inf_mm_t inf_mm_of(const inf_w_t *w, int e, float *y, int ldy, const float *bias)
{
    inf_mm_t m = {.t = w->type, .row_bytes = w->row_bytes, .rows = (int)w->ne[1], .y = y, .ldy = ldy, .bias = bias};
    m.w = (const uint8_t *)w->data + (size_t)e * (size_t)w->ne[1] * w->row_bytes;
    return m;
}
