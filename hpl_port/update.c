/*
 * update.c — the trailing update of some local columns with one panel: the
 * row swaps of its pivots, U = L11^-1 U (DTRSM), then A -= L2 U (DGEMM)
 * below the top block; the top block's owner keeps U in A for the back
 * substitution.
 *
 * Across several process rows the swaps go a window of columns at a time
 * (lu->swapw, sized so that the window's U stays in a core's L2 while its
 * DTRSM and DGEMM read it); with one process row they are done in A, chunk
 * by chunk, just before the chunk's DGEMM.
 *
 * While a panel broadcast is in flight the columns go by chunks, and the
 * broadcasts are driven between them: a ring's forwarder passes the next
 * panel on within a chunk's time instead of after its whole update (HPL's
 * probing; Bolt's progress engine runs only inside its calls). A chunk
 * repacks L2 in the DGEMM, so narrow chunks cost: while broadcasts keep the
 * update waiting the chunks widen (twice as wide each time, up to
 * CHUNK_GROWTH times), so a panel that is long in coming, because its
 * sender is behind, is not waited for in the narrowest DGEMMs. Once nothing
 * is in flight the rest goes at once.
 */
#include "hpl_port/blas.h"
#include "hpl_port/pool.h"
#include "hpl_port/report.h"
#include "hpl_port/swap.h"

#define CHUNK_GROWTH 4

static void put_u(hpl_mat_t *m, const hpl_panel_t *p, int cs, int w, const double *u, size_t ldu,
                  int utrans)
{
    for (int col = 0; col < w; col++) {
        double *a = m->a + (size_t)(cs + col) * m->lda + (size_t)p->ii;
        if (utrans)
            for (int c = 0; c < p->jb; c++)
                a[c] = u[(size_t)c * ldu + (size_t)col];
        else
            for (int c = 0; c < p->jb; c++)
                a[c] = u[(size_t)col * ldu + (size_t)c];
    }
}

/* U's columns [cs, cs + w) from A, transposed into ut (ld ldt). */
static void get_ut(const hpl_mat_t *m, const hpl_panel_t *p, int cs, int w, double *ut, size_t ldt)
{
    for (int col = 0; col < w; col++) {
        const double *a = m->a + (size_t)(cs + col) * m->lda + (size_t)p->ii;
        for (int c = 0; c < p->jb; c++)
            ut[(size_t)c * ldt + (size_t)col] = a[c];
    }
}

/* U = L11^-1 U on w columns: U as jb x w (ldu) or, transposed, w x jb. */
static void solve_u(const hpl_algo_t *algo, const hpl_panel_t *p, int w, double *u, size_t ldu, int utrans)
{
    const int jb = p->jb;
    if (utrans)
        cblas_dtrsm(CblasColMajor, CblasRight, algo->l1_notrans ? CblasLower : CblasUpper,
                    algo->l1_notrans ? CblasTrans : CblasNoTrans, CblasUnit, w, jb, 1.0, p->l1, jb, u,
                    (int)ldu);
    else
        cblas_dtrsm(CblasColMajor, CblasLeft, algo->l1_notrans ? CblasLower : CblasUpper,
                    algo->l1_notrans ? CblasNoTrans : CblasTrans, CblasUnit, jb, w, 1.0, p->l1, jb, u,
                    (int)ldu);
}

/* U of the columns [s1, s1 + lu->swapw) (at most to c1) into up->u. */
static int swap_next(hpl_lu_t *lu, hpl_upd_t *up)
{
    int e = up->c1 - up->s1 > lu->swapw ? up->s1 + lu->swapw : up->c1;
    double t0 = bolt_wtime();
    int rc = hpl_swap(lu, up->p, up->s1, e - up->s1, up->u, !lu->algo->u_notrans);
    lu->t->laswp += bolt_wtime() - t0;
    up->s0 = up->s1;
    up->s1 = e;
    return rc;
}

int hpl_update_begin(hpl_lu_t *lu, hpl_panel_t *p, int c0, int c1, double *u, hpl_upd_t *up)
{
    *up = (hpl_upd_t){.p = p, .c0 = c0, .c1 = c1, .u = u, .s0 = c0, .s1 = c0};
    if (lu->g->nprow == 1 || c1 <= c0)
        return 0;
    return swap_next(lu, up);
}

int hpl_update_cols(hpl_lu_t *lu, hpl_upd_t *up, int a, int b, int poll)
{
    const hpl_grid_t *g = lu->g;
    const hpl_algo_t *algo = lu->algo;
    hpl_mat_t *m = lu->m;
    const hpl_panel_t *p = up->p;
    const int jb = p->jb, utrans = !algo->u_notrans, in_place = g->nprow == 1 && !utrans;
    const int prow_me = g->myrow == p->prow;
    int rc = 0, width = lu->chunk;
    for (int cs = a; cs < b;) {
        int w = b - cs;
        if (poll && w > width && hpl_lu_busy(lu)) {
            w = width;
            if (width < CHUNK_GROWTH * lu->chunk)
                width *= 2;
        }
        double *u;
        size_t ldu;
        if (g->nprow > 1) {
            if (cs >= up->s1 && (rc = swap_next(lu, up)))
                return rc;
            if (w > up->s1 - cs)
                w = up->s1 - cs;
            const size_t off = (size_t)(cs - up->s0);
            u = utrans ? up->u + off : up->u + off * (size_t)jb;
            ldu = utrans ? (size_t)(up->s1 - up->s0) : (size_t)jb;
        } else {
            double t0 = bolt_wtime();
            hpl_swap_local(lu, p, cs, w);
            if (in_place) {
                u = m->a + (size_t)cs * m->lda + (size_t)p->ii;
                ldu = m->lda;
            } else {
                u = up->u;
                ldu = (size_t)w;
                get_ut(m, p, cs, w, u, ldu);
            }
            lu->t->laswp += bolt_wtime() - t0;
        }

        double t1 = bolt_wtime();
        solve_u(algo, p, w, u, ldu, utrans);
        if (prow_me && !in_place)
            put_u(m, p, cs, w, u, ldu, utrans);
        if (p->ml2 > 0)
            cblas_dgemm(CblasColMajor, CblasNoTrans, utrans ? CblasTrans : CblasNoTrans, p->ml2, w, jb,
                        -1.0, p->l2, p->ml2, u, (int)ldu, 1.0, m->a + (size_t)cs * m->lda + (size_t)p->i2,
                        (int)m->lda);
        lu->t->update += bolt_wtime() - t1;
        cs += w;
        if (poll && (rc = hpl_lu_poll(lu)))
            return rc;
    }
    return 0;
}

int hpl_update(hpl_lu_t *lu, hpl_panel_t *p, int c0, int c1, int poll)
{
    hpl_upd_t up;
    int rc = hpl_update_begin(lu, p, c0, c1, lu->ubuf, &up);
    return rc ? rc : hpl_update_cols(lu, &up, c0, c1, poll);
}

/* ---- with bolt-hpl's own threads (one process row) ----
 * Items 0 .. ncol-1: column chunks (their swaps in A, U transposed out when
 * asked, its DTRSM, U back to A); then, once all are done, items of row
 * blocks: the DGEMM of L2's rows against all the columns. Split by rows,
 * each thread packs only its own rows of L2 (split by columns, every thread
 * would pack all of L2 once per chunk). */
#define TCOLS 128 /* columns of a chunk: a few ms of memory-bound work */

static void tjob_item(void *v, int i)
{
    hpl_tjob_t *j = v;
    hpl_lu_t *lu = j->lu;
    hpl_mat_t *m = lu->m;
    const hpl_panel_t *p = j->p;
    const size_t W = (size_t)(j->b - j->a);
    if (i < j->ncol) {
        int c = j->a + i * TCOLS, w = j->b - c < TCOLS ? j->b - c : TCOLS;
        hpl_swap_local(lu, p, c, w);
        if (j->ut) {
            double *u = j->ut + (c - j->a);
            get_ut(m, p, c, w, u, W);
            solve_u(lu->algo, p, w, u, W, 1);
            put_u(m, p, c, w, u, W, 1);
        } else {
            solve_u(lu->algo, p, w, m->a + (size_t)c * m->lda + (size_t)p->ii, m->lda, 0);
        }
        return;
    }
    int r0 = (i - j->ncol) * j->rowh, h = p->ml2 - r0 < j->rowh ? p->ml2 - r0 : j->rowh;
    const double *u = j->ut ? j->ut : m->a + (size_t)j->a * m->lda + (size_t)p->ii;
    const size_t ldu = j->ut ? W : m->lda;
    cblas_dgemm(CblasColMajor, CblasNoTrans, j->ut ? CblasTrans : CblasNoTrans, h, (int)W, p->jb, -1.0,
                p->l2 + r0, p->ml2, u, (int)ldu, 1.0, m->a + (size_t)j->a * m->lda + (size_t)(p->i2 + r0),
                (int)m->lda);
}

void hpl_update_threads_start(hpl_lu_t *lu, hpl_panel_t *p, int a, int b, hpl_tjob_t *j)
{
    const int T = hpl_pool_threads(lu->pool);
    *j = (hpl_tjob_t){.lu = lu, .p = p, .a = a, .b = b, .ut = lu->algo->u_notrans ? NULL : lu->ubuf};
    if (b <= a)
        return;
    j->ncol = (b - a + TCOLS - 1) / TCOLS;
    /* about 4 blocks a thread, of at least 256 rows, whole cache lines */
    int h = (p->ml2 + 4 * T - 1) / (4 * T);
    h = h < 256 ? 256 : (h + 7) / 8 * 8;
    j->rowh = h;
    j->nrow = p->ml2 > 0 ? (p->ml2 + h - 1) / h : 0;
    hpl_pool_start(lu->pool, tjob_item, j, j->ncol + j->nrow, j->ncol);
    j->started = 1;
}

static int poll_between(void *lu)
{
    return hpl_lu_poll(lu);
}

int hpl_update_threads_finish(hpl_lu_t *lu, hpl_tjob_t *j, int poll)
{
    if (!j->started)
        return 0;
    double t0 = bolt_wtime();
    int rc = hpl_pool_help(lu->pool, poll ? poll_between : NULL, lu);
    lu->t->update += bolt_wtime() - t0;
    j->started = 0;
    return rc;
}
