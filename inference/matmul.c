/*
 * matmul.c — the batched matrix product over the pool (matmul.h).
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "inference/matmul.h"

#define ROWS 4        /* weight rows a thread takes against every token at once */
#define GEMM_MIN 4    /* tokens from which a batch kernel beats dot products */
#define XBLOCK 393216 /* bytes of packed activations a row tile sweeps: in L2 */
#define QPIECE 256    /* values of a token a thread quantizes at a time, generation */
#define STREAM_MIN 8  /* rows a quarter at least, for a type's four-row products */
#define CHUNK_MIN 32  /* rows a thread takes at least, generation: 4 * STREAM_MIN (the last chunks of
                       * ever fewer rows went one row at a time: 6% of stories110M's rows) */

typedef struct mm_job {
    const float *x;
    int ldx, n, cols;
    inf_mm_t *m;
    int nm;
    /* the activations in each distinct form: a dot type (F32 is x itself),
     * or a batch kernel's packed groups */
    uint32_t dt[3];
    const inf_gemm_t *gemm[3];
    const void *xq[3];
    size_t xs[3]; /* bytes from one token's row (or packed group) to the next */
    int ndt;
    inf_pool_t *pool;
    atomic_int next; /* the first row (of all the matrices) no thread has taken */
} mm_job_t;

/* The batch kernel a matrix takes here, or NULL for dot products. */
static const inf_gemm_t *gemm_of(const inf_mm_t *m, int n)
{
    return n >= GEMM_MIN ? m->t->gemm : NULL;
}

static int slot_of(const mm_job_t *j, const inf_mm_t *m)
{
    const inf_gemm_t *g = gemm_of(m, j->n);
    for (int i = 0; i < j->ndt; i++)
        if (g ? j->gemm[i] && (j->gemm[i] == g || (g->pack && j->gemm[i]->pack == g->pack))
              : !j->gemm[i] && j->dt[i] == m->t->dot_type)
            return i;
    return -1;
}

/* Rows [a, b) of m against every token through its batch kernel: tokens in
 * blocks whose packed bytes stay in L2 while tiles of rows sweep them (or
 * all at once to a kernel that blocks for the caches itself). */
static void mm_rows_gemm(const mm_job_t *j, const inf_mm_t *m, int s, int a, int b)
{
    const inf_gemm_t *g = m->t->gemm; /* the slot's may be another type's on the same layout */
    int per = g->whole ? j->n : (int)(XBLOCK / j->xs[s]) * g->group;
    per = per < g->group ? g->group : per;
    const int rstep = g->whole ? b - a : 16;
    for (int t0 = 0; t0 < j->n; t0 += per) {
        const int nt = j->n - t0 < per ? j->n - t0 : per;
        const uint8_t *xp = g->pack ? (const uint8_t *)j->xq[s] + (size_t)(t0 / g->group) * j->xs[s]
                                    : (const uint8_t *)(j->x + (size_t)t0 * (size_t)j->ldx);
        for (int r = a; r < b; r += rstep) {
            const int nr = b - r < rstep ? b - r : rstep;
            g->run(j->cols, (const uint8_t *)m->w + (size_t)r * m->row_bytes, m->row_bytes, nr, xp, j->ldx, nt,
                   m->y + (size_t)t0 * (size_t)m->ldy + r, m->ldy);
        }
    }
    if (m->bias)
        for (int t = 0; t < j->n; t++)
            for (int r = a; r < b; r++)
                m->y[(size_t)t * (size_t)m->ldy + r] += m->bias[r];
}

/* Rows [r0, r1) of the matrices taken end to end, against every token. */
static void mm_rows(const mm_job_t *j, int r0, int r1)
{
    for (int i = 0, base = 0; i < j->nm && r0 < r1; base += j->m[i].rows, i++) {
        const inf_mm_t *m = &j->m[i];
        int a = r0 > base ? r0 - base : 0, b = r1 - base < m->rows ? r1 - base : m->rows;
        if (a >= b)
            continue;
        const int s = slot_of(j, m);
        if (j->gemm[s]) {
            mm_rows_gemm(j, m, s, a, b);
            continue;
        }
        const uint8_t *xq = j->xq[s];
        const size_t xs = j->xs[s];
        inf_vec_dot_fn *dot = m->t->vec_dot;
        inf_vec_dot4_fn *dot4 = j->n == 1 ? m->t->vec_dot4 : NULL;
        if (dot4 && b - a >= 4 * STREAM_MIN) {
            /* one token: the rows in four quarters walked side by side */
            const int q = (b - a) / 4;
            const size_t stride = (size_t)q * m->row_bytes;
            for (int r = a; r < a + q; r++) {
                float v[4];
                dot4(j->cols, v, (const uint8_t *)m->w + (size_t)r * m->row_bytes, stride, xq);
                for (int k = 0; k < 4; k++)
                    m->y[r + k * q] = m->bias ? v[k] + m->bias[r + k * q] : v[k];
            }
            a += 4 * q;
        }
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

static void mm_run(void *arg, int ith, int nth)
{
    mm_job_t *j = arg;
    /* the activations, quantized a token (or packed a group) at a time by
     * whichever thread */
    for (int d = 0; d < j->ndt; d++) {
        const inf_gemm_t *g = j->gemm[d];
        if (g && !g->pack)
            continue;
        if (g) {
            for (int t = ith * g->group; t < j->n; t += nth * g->group)
                g->pack(j->x + (size_t)t * (size_t)j->ldx, j->ldx, j->n - t < g->group ? j->n - t : g->group, j->cols,
                        (uint8_t *)j->xq[d] + (size_t)(t / g->group) * j->xs[d]);
            continue;
        }
        if (j->dt[d] == GGML_F32)
            continue;
        const inf_type_t *qt = inf_type(j->dt[d]);
        if (j->n >= nth) {
            for (int t = ith; t < j->n; t += nth)
                qt->from_float(j->x + (size_t)t * (size_t)j->ldx, (uint8_t *)j->xq[d] + (size_t)t * j->xs[d], j->cols);
            continue;
        }
        /* fewer tokens than threads (generation): each token in pieces of
         * QPIECE values, whole blocks (and Q8_0P pairs) of every dot type */
        for (int t = 0; t < j->n; t++)
            for (int c0 = ith * QPIECE; c0 < j->cols; c0 += nth * QPIECE)
                qt->from_float(j->x + (size_t)t * (size_t)j->ldx + c0,
                               (uint8_t *)j->xq[d] + (size_t)t * j->xs[d] + inf_row_bytes(qt, c0),
                               j->cols - c0 < QPIECE ? j->cols - c0 : QPIECE);
    }
    inf_pool_barrier(j->pool);
    int total = 0;
    for (int i = 0; i < j->nm; i++)
        total += j->m[i].rows;
    if (j->n >= GEMM_MIN) {
        /* batches: a thread's share of the rows in one range, in whole
         * blocks of ROWS, so its tiles sweep each activation block once */
        int per = (total + nth - 1) / nth;
        per = (per + ROWS - 1) / ROWS * ROWS;
        const int r0 = ith * per;
        mm_rows(j, r0, r0 + per < total ? r0 + per : total);
        return;
    }
    /* dot products (generation): chunks taken as threads get to them, each
     * a 2 * nth-th of the rows left (guided), so a thread slowed by its
     * neighbour on the core or by a page walk does not leave the others
     * waiting at the end (equal shares idled each of 2 threads ~10% of a
     * token; chunks of a 16th of the rows, ~5%) */
    for (;;) {
        int r0 = atomic_load_explicit(&j->next, memory_order_relaxed), chunk;
        do {
            if (r0 >= total)
                return;
            chunk = nth == 1 ? total - r0 : (total - r0) / (2 * nth);
            chunk = chunk < CHUNK_MIN ? CHUNK_MIN : (chunk + ROWS - 1) / ROWS * ROWS;
        } while (!atomic_compare_exchange_weak_explicit(&j->next, &r0, r0 + chunk, memory_order_relaxed,
                                                        memory_order_relaxed));
        mm_rows(j, r0, r0 + chunk < total ? r0 + chunk : total);
    }
}

size_t inf_mm_scratch(int cols, int n)
{
    /* three converted copies at most, none over 4 bytes an element (F16
     * tokens rounded but kept in F32 for SGEMM; F16, BF16; Q8_0 34/32,
     * Q8_K 292/256, packed Q8_0 36/32, packed Q8_K 292/256), tokens rounded
     * up to a whole group, each copy 64-byte aligned */
    const size_t tokens = (size_t)(n > 0 ? n : 1) + 15;
    return 3 * (((size_t)cols * 4 + 64) * tokens + 64) + 256;
}

void inf_matmul(inf_pool_t *pool, const float *x, int ldx, int n, int cols, inf_mm_t *m, int nm, void *scratch)
{
    mm_job_t j = {.x = x, .ldx = ldx, .n = n, .cols = cols, .m = m, .nm = nm, .pool = pool};
    atomic_init(&j.next, 0);
    uint8_t *free_at = scratch;
    for (int i = 0; i < nm; i++) {
        if (slot_of(&j, &m[i]) >= 0)
            continue;
        const uint32_t dt = m[i].t->dot_type;
        const inf_gemm_t *g = gemm_of(&m[i], n);
        free_at = (uint8_t *)(((uintptr_t)free_at + 63) & ~(uintptr_t)63);
        j.dt[j.ndt] = dt;
        j.gemm[j.ndt] = g;
        if (g) {
            j.xq[j.ndt] = free_at;
            j.xs[j.ndt] = g->group_bytes(cols);
            free_at += j.xs[j.ndt] * (size_t)((n + g->group - 1) / g->group);
        } else if (dt == GGML_F32) {
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
