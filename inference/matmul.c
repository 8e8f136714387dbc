/*
 * matmul.c — the batched matrix product over the pool (matmul.h).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inference/matmul.h"

#define ROWS 4        /* weight rows a thread takes against every token at once */
#define GEMM_MIN 4    /* tokens from which a batch kernel beats dot products */
#define XBLOCK 393216 /* bytes of packed activations a row tile sweeps: in L2 */
#define QPIECE 256    /* values of a token a thread quantizes at a time, generation */
#define STREAM_MIN 8  /* rows a quarter at least, for a type's four-row products */
#define STEP 8        /* units of a share its thread takes at least at a time, generation */

typedef struct mm_job {
    const float *x;
    int ldx, n, cols;
    const inf_mm_in_t *in;
    /* what the kernels read as floats: x, or the rows made from `in` (xf) */
    const float *src;
    int lds;
    float *xf;
    /* a single token: every thread makes and quantizes a copy of its own,
     * ostride[d] bytes from the previous thread's (xf's: ostride_f) */
    int own;
    size_t ostride[3], ostride_f;
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
    struct mm_share *share; /* generation: [matrix * threads + thread] */
} mm_job_t;

/* Generation: each thread's share of each matrix, a contiguous range of
 * rows walked as four quarters side by side (a type's four-row product) or
 * as groups of 4 adjacent rows: its units. The owner takes units from the
 * front, an eighth of what is left at a time (STEP at least); a thread
 * done with its own shares takes the back half of the largest one left. So every thread streams a few long runs of
 * memory (chunks handed out as threads got to them cut the streams short:
 * Qwen3-0.6B's layers read at ~48 GB/s on 2 threads, in shares ~60) while
 * a thread slowed by a neighbour on its core, or an efficiency core, has its
 * work taken over. */
typedef struct mm_share {
    _Atomic uint64_t span; /* units not taken: the first in the low 32 bits, the end in the high */
    int m;                 /* the matrix */
    int a, b, q;           /* the rows; rows a quarter, or 0: units of 4 adjacent rows */
    int tail;              /* rows at the end past the units, the owner's */
    char pad[64 - sizeof(uint64_t) - 5 * sizeof(int)];
} mm_share_t;
_Static_assert(sizeof(mm_share_t) == 64, "a share a cache line");

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
                                    : (const uint8_t *)(j->src + (size_t)t0 * (size_t)j->lds);
        for (int r = a; r < b; r += rstep) {
            const int nr = b - r < rstep ? b - r : rstep;
            g->run(j->cols, (const uint8_t *)m->w + (size_t)r * m->row_bytes, m->row_bytes, nr, xp, j->lds, nt,
                   m->y + (size_t)t0 * (size_t)m->ldy + r, m->ldy);
        }
    }
    if (m->bias)
        for (int t = 0; t < j->n; t++)
            for (int r = a; r < b; r++)
                m->y[(size_t)t * (size_t)m->ldy + r] += m->bias[r];
}

/* The input of matrix m in the form its kernel takes (thread ith's own copy
 * when it made one), and the bytes from one token's to the next. */
static const uint8_t *mm_input(const mm_job_t *j, const inf_mm_t *m, int ith, size_t *xs)
{
    const int s = slot_of(j, m);
    *xs = j->xs[s];
    return (const uint8_t *)j->xq[s] + (j->own ? (size_t)ith * j->ostride[s] : 0);
}

/* Rows [a, b) of m against every token, by dot products, a few rows at a time. */
static void mm_dots(const mm_job_t *j, const inf_mm_t *m, const uint8_t *xq, size_t xs, int a, int b)
{
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

/* Rows [r0, r1) of the matrices taken end to end, against every token of a
 * batch. */
static void mm_rows(const mm_job_t *j, int ith, int r0, int r1)
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
        size_t xs;
        const uint8_t *xq = mm_input(j, m, ith, &xs);
        mm_dots(j, m, xq, xs, a, b);
    }
}

/* Units [u0, u1) of share g. */
static void mm_units(const mm_job_t *j, const mm_share_t *g, int ith, int u0, int u1)
{
    const inf_mm_t *m = &j->m[g->m];
    size_t xs;
    const uint8_t *xq = mm_input(j, m, ith, &xs);
    if (!g->q) {
        mm_dots(j, m, xq, xs, g->a + 4 * u0, g->a + 4 * u1);
        return;
    }
    const size_t stride = (size_t)g->q * m->row_bytes;
    for (int r = g->a + u0; r < g->a + u1; r++) {
        float v[4];
        m->t->vec_dot4(j->cols, v, (const uint8_t *)m->w + (size_t)r * m->row_bytes, stride, xq);
        for (int k = 0; k < 4; k++)
            m->y[r + k * g->q] = m->bias ? v[k] + m->bias[r + k * g->q] : v[k];
    }
}

static uint64_t span_of(uint32_t first, uint32_t end)
{
    return (uint64_t)end << 32 | first;
}

/* The shares of generation's products (mm_share_t), set before the job. */
static void mm_shares_init(mm_job_t *j, int nth)
{
    for (int i = 0; i < j->nm; i++) {
        const inf_mm_t *m = &j->m[i];
        int per = (m->rows + nth - 1) / nth;
        per = (per + 3) / 4 * 4;
        for (int t = 0; t < nth; t++) {
            mm_share_t *g = &j->share[i * nth + t];
            const int a = t * per < m->rows ? t * per : m->rows, b = a + per < m->rows ? a + per : m->rows;
            g->m = i;
            g->a = a;
            g->b = b;
            g->q = j->n == 1 && m->t->vec_dot4 && b - a >= 4 * STREAM_MIN ? (b - a) / 4 : 0;
            const int units = (b - a) / 4;
            g->tail = b - a - 4 * units;
            atomic_init(&g->span, span_of(0, (uint32_t)units));
        }
    }
}

static void mm_generation(const mm_job_t *j, int ith, int nth)
{
    for (int i = 0; i < j->nm; i++) {
        mm_share_t *g = &j->share[i * nth + ith];
        uint64_t sp = atomic_load_explicit(&g->span, memory_order_relaxed);
        for (;;) {
            const uint32_t f = (uint32_t)sp, e = (uint32_t)(sp >> 32);
            if (f >= e)
                break;
            /* alone, all at once; else an eighth of what is left, STEP at
             * least (a locked exchange every few rows cost one thread 3%
             * of a token) */
            const uint32_t left = e - f, eighth = left / 8 > STEP ? left / 8 : STEP;
            const uint32_t take = nth == 1 ? left : left < eighth ? left : eighth;
            if (!atomic_compare_exchange_weak_explicit(&g->span, &sp, span_of(f + take, e), memory_order_relaxed,
                                                       memory_order_relaxed))
                continue;
            mm_units(j, g, ith, (int)f, (int)(f + take));
            sp = atomic_load_explicit(&g->span, memory_order_relaxed);
        }
        if (g->tail) {
            size_t xs;
            const uint8_t *xq = mm_input(j, &j->m[i], ith, &xs);
            mm_dots(j, &j->m[i], xq, xs, g->b - g->tail, g->b);
        }
    }
    /* then the back half of the largest share left, while one is worth it */
    for (;;) {
        mm_share_t *best = NULL;
        uint32_t most = 2 * STEP - 1;
        for (int s = 0; s < j->nm * nth; s++) {
            const uint64_t sp = atomic_load_explicit(&j->share[s].span, memory_order_relaxed);
            const uint32_t left = (uint32_t)(sp >> 32) - (uint32_t)sp;
            if ((uint32_t)(sp >> 32) > (uint32_t)sp && left > most) {
                most = left;
                best = &j->share[s];
            }
        }
        if (!best)
            return;
        uint64_t sp = atomic_load_explicit(&best->span, memory_order_relaxed);
        const uint32_t f = (uint32_t)sp, e = (uint32_t)(sp >> 32);
        if (e <= f || e - f < 2 * STEP)
            continue;
        const uint32_t mid = f + (e - f) / 2;
        if (atomic_compare_exchange_strong_explicit(&best->span, &sp, span_of(f, mid), memory_order_relaxed,
                                                    memory_order_relaxed))
            mm_units(j, best, ith, (int)mid, (int)e);
    }
}

/* RMSNorm's scale of token t of `in`'s h (as rmsnorm in forward.c: the
 * squares summed in double, in order). */
static float in_scale(const mm_job_t *j, int t)
{
    const float *x = j->x + (size_t)t * (size_t)j->ldx;
    const float *a = j->in->add ? j->in->add + (size_t)t * (size_t)j->ldx : NULL;
    double ss = 0;
    if (a)
        for (int c = 0; c < j->cols; c++) {
            const float h = x[c] + a[c];
            ss += (double)h * h;
        }
    else
        for (int c = 0; c < j->cols; c++)
            ss += (double)x[c] * x[c];
    return 1.0f / sqrtf((float)(ss / j->cols) + j->in->eps);
}

/* Columns [c0, c1) of token t's input made from `in` into y (indexed by
 * column), h stored too when `store` (s: in_scale's, for a norm). */
static void in_make(const mm_job_t *j, int t, int c0, int c1, float s, float *y, int store)
{
    const inf_mm_in_t *in = j->in;
    const float *x = j->x + (size_t)t * (size_t)j->ldx;
    if (in->kind == INF_MM_IN_SWIGLU) {
        const float *u = in->up + (size_t)t * (size_t)j->ldx;
        inf_swiglu.run(y + c0, x + c0, u + c0, c1 - c0);
        return;
    }
    const float *a = in->add ? in->add + (size_t)t * (size_t)j->ldx : NULL, *w = in->w;
    float *sum = store && in->sum ? in->sum + (size_t)t * (size_t)j->ldx : NULL;
    /* a loop each way, no test in any */
    if (!a)
        for (int c = c0; c < c1; c++)
            y[c] = x[c] * s * w[c];
    else if (!sum)
        for (int c = c0; c < c1; c++)
            y[c] = (x[c] + a[c]) * s * w[c];
    else
        for (int c = c0; c < c1; c++) {
            const float h = x[c] + a[c];
            sum[c] = h;
            y[c] = h * s * w[c];
        }
}

/* A single token, by each thread for itself: no thread waits for another. */
static void mm_prepare_own(mm_job_t *j, int ith, int nth)
{
    const float *row = j->x;
    if (j->in) {
        float *y = (float *)((uint8_t *)j->xf + (size_t)ith * j->ostride_f);
        const float s = j->in->kind == INF_MM_IN_NORM ? in_scale(j, 0) : 0;
        /* h stored by pieces, each by one thread */
        for (int c0 = 0, piece = 0; c0 < j->cols; c0 += QPIECE, piece++)
            in_make(j, 0, c0, j->cols - c0 < QPIECE ? j->cols : c0 + QPIECE, s, y, piece % nth == ith);
        row = y;
    }
    for (int d = 0; d < j->ndt; d++)
        if (j->dt[d] != GGML_F32)
            inf_type(j->dt[d])->from_float(row, (uint8_t *)j->xq[d] + (size_t)ith * j->ostride[d], j->cols);
}

/* The activations in every form the matrices take: made from `in` and
 * quantized a token (or packed a group) at a time by whichever thread, or
 * by pieces of QPIECE values when there are fewer tokens than threads. */
static void mm_prepare(mm_job_t *j, int ith, int nth)
{
    if (j->own) {
        mm_prepare_own(j, ith, nth);
        return;
    }
    const int pieces = j->n < nth;
    if (j->in) {
        for (int t = pieces ? 0 : ith; t < j->n; t += pieces ? 1 : nth) {
            const float s = j->in->kind == INF_MM_IN_NORM ? in_scale(j, t) : 0;
            float *y = j->xf + (size_t)t * (size_t)j->cols;
            if (!pieces)
                in_make(j, t, 0, j->cols, s, y, 1);
            else
                for (int c0 = ith * QPIECE; c0 < j->cols; c0 += nth * QPIECE)
                    in_make(j, t, c0, j->cols - c0 < QPIECE ? j->cols : c0 + QPIECE, s, y, 1);
        }
        /* a batch kernel packs groups of tokens, not each thread's own */
        for (int d = 0; d < j->ndt; d++)
            if (j->gemm[d]) {
                inf_pool_barrier(j->pool);
                break;
            }
    }
    for (int d = 0; d < j->ndt; d++) {
        const inf_gemm_t *g = j->gemm[d];
        if (g && !g->pack)
            continue;
        if (g) {
            for (int t = ith * g->group; t < j->n; t += nth * g->group)
                g->pack(j->src + (size_t)t * (size_t)j->lds, j->lds, j->n - t < g->group ? j->n - t : g->group, j->cols,
                        (uint8_t *)j->xq[d] + (size_t)(t / g->group) * j->xs[d]);
            continue;
        }
        if (j->dt[d] == GGML_F32)
            continue;
        const inf_type_t *qt = inf_type(j->dt[d]);
        if (!pieces) {
            for (int t = ith; t < j->n; t += nth)
                qt->from_float(j->src + (size_t)t * (size_t)j->lds, (uint8_t *)j->xq[d] + (size_t)t * j->xs[d], j->cols);
            continue;
        }
        /* whole blocks (and Q8_0P pairs) of every dot type in a piece */
        for (int t = 0; t < j->n; t++)
            for (int c0 = ith * QPIECE; c0 < j->cols; c0 += nth * QPIECE)
                qt->from_float(j->src + (size_t)t * (size_t)j->lds + c0,
                               (uint8_t *)j->xq[d] + (size_t)t * j->xs[d] + inf_row_bytes(qt, c0),
                               j->cols - c0 < QPIECE ? j->cols - c0 : QPIECE);
    }
    inf_pool_barrier(j->pool);
}

static void mm_run(void *arg, int ith, int nth)
{
    mm_job_t *j = arg;
    mm_prepare(j, ith, nth);
    int total = 0;
    for (int i = 0; i < j->nm; i++)
        total += j->m[i].rows;
    if (j->n >= GEMM_MIN) {
        /* batches: a thread's share of the rows in one range, in whole
         * blocks of ROWS, so its tiles sweep each activation block once */
        int per = (total + nth - 1) / nth;
        per = (per + ROWS - 1) / ROWS * ROWS;
        const int r0 = ith * per;
        mm_rows(j, ith, r0, r0 + per < total ? r0 + per : total);
        return;
    }
    mm_generation(j, ith, nth);
}

static size_t round64(size_t b)
{
    return (b + 63) & ~(size_t)63;
}

/* Each thread's region holds its own copy of a single token: the rows made
 * from an input and three converted copies, at the same place in every
 * product and on pages of its own. Laid out anew for each product's
 * columns, one thread's copies landed on lines the other had written in
 * the product before, and making and quantizing a 768-value token took
 * 2-4 us instead of 0.3 (each line fetched from the other core). */
struct inf_mm_scratch {
    int cols, n, threads;
    size_t own_stride;
    uint8_t *own;    /* [threads][own_stride] */
    mm_share_t *share; /* generation: [INF_MM_MAX * threads] */
    uint8_t *batch;  /* a batch's rows and converted copies */
};

inf_mm_scratch_t *inf_mm_scratch_new(int cols, int n, int threads)
{
    cols = cols > 0 ? cols : 1;
    n = n > 0 ? n : 1;
    threads = threads > 0 ? threads : 1;
    /* three converted copies at most and the rows made from an input, none
     * over 4 bytes an element (F16 tokens rounded but kept in F32 for SGEMM;
     * F16, BF16; Q8_0 34/32, Q8_K 292/256, packed Q8_0 36/32, packed Q8_K
     * 292/256), tokens rounded up to a whole group, each copy 64-byte aligned */
    const size_t row = round64((size_t)cols * 4 + 64);
    const size_t own_stride = (4 * row + 4095) & ~(size_t)4095;
    const size_t shares = round64(INF_MM_MAX * (size_t)threads * sizeof(mm_share_t));
    const size_t batch = 4 * (row * ((size_t)n + 15) + 64);
    inf_mm_scratch_t *s = malloc(sizeof *s);
    void *mem = NULL;
    if (!s || posix_memalign(&mem, 4096, own_stride * (size_t)threads + shares + batch) != 0) {
        free(s);
        return NULL;
    }
    *s = (inf_mm_scratch_t){.cols = cols, .n = n, .threads = threads, .own_stride = own_stride, .own = mem};
    s->share = (mm_share_t *)(s->own + own_stride * (size_t)threads);
    s->batch = (uint8_t *)s->share + shares;
    return s;
}

void inf_mm_scratch_free(inf_mm_scratch_t *s)
{
    if (!s)
        return;
    free(s->own);
    free(s);
}

static uint8_t *align64(uint8_t *p)
{
    return (uint8_t *)round64((uintptr_t)p);
}

void inf_matmul(inf_pool_t *pool, const float *x, int ldx, int n, int cols, const inf_mm_in_t *in, inf_mm_t *m,
                int nm, inf_mm_scratch_t *scratch)
{
    const int nth = inf_pool_threads(pool);
    /* the callers' bounds (forward.c: 3 matrices at most, the scratch made
     * for its widest input, its batch and its pool); never split silently */
    if (nm > INF_MM_MAX || cols > scratch->cols || n > scratch->n || nth > scratch->threads)
        abort();
    mm_job_t j = {.x = x, .ldx = ldx, .n = n, .cols = cols, .in = in, .src = x, .lds = ldx, .m = m, .nm = nm,
                  .pool = pool};
    /* a single token is quantized by each thread for itself */
    j.own = n == 1 && nth > 1;
    /* a single token: each thread's copies in its own region, the same
     * distance apart */
    uint8_t *free_at = j.own ? scratch->own : scratch->batch;
    if (in) {
        j.xf = (float *)free_at;
        j.ostride_f = j.own ? scratch->own_stride : 0;
        free_at += j.own ? round64((size_t)cols * sizeof(float)) : (size_t)cols * sizeof(float) * (size_t)n;
        j.src = j.xf;
        j.lds = cols;
    }
    for (int i = 0; i < nm; i++) {
        if (slot_of(&j, &m[i]) >= 0)
            continue;
        const uint32_t dt = m[i].t->dot_type;
        const inf_gemm_t *g = gemm_of(&m[i], n);
        free_at = align64(free_at);
        j.dt[j.ndt] = dt;
        j.gemm[j.ndt] = g;
        if (g) {
            j.xq[j.ndt] = free_at;
            j.xs[j.ndt] = g->group_bytes(cols);
            free_at += j.xs[j.ndt] * (size_t)((n + g->group - 1) / g->group);
        } else if (dt == GGML_F32) {
            j.xq[j.ndt] = j.src;
            j.xs[j.ndt] = (size_t)j.lds * sizeof(float);
            j.ostride[j.ndt] = j.ostride_f;
        } else {
            j.xq[j.ndt] = free_at;
            j.xs[j.ndt] = inf_row_bytes(inf_type(dt), cols);
            j.ostride[j.ndt] = j.own ? scratch->own_stride : 0;
            free_at += j.own ? round64(j.xs[j.ndt]) : j.xs[j.ndt] * (size_t)n;
        }
        j.ndt++;
    }
    if (n < GEMM_MIN) {
        j.share = scratch->share;
        mm_shares_init(&j, nth);
    }
    inf_pool_run(pool, mm_run, &j);
}

inf_mm_t inf_mm_of(const inf_w_t *w, int e, float *y, int ldy, const float *bias)
{
    inf_mm_t m = {.t = w->type, .row_bytes = w->row_bytes, .rows = (int)w->ne[1], .y = y, .ldy = ldy, .bias = bias};
    m.w = (const uint8_t *)w->data + (size_t)e * (size_t)w->ne[1] * w->row_bytes;
    return m;
}
