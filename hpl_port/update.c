/*
 * update.c — the trailing update of some local columns with one panel: the
 * row swaps of its pivots, U = L11^-1 U (DTRSM), then A -= L2 U (DGEMM)
 * below the top block; the top block's owner keeps U in A for the back
 * substitution.
 *
 * While a panel broadcast is in flight the columns go by chunks, and the
 * broadcasts are driven between them: a ring's forwarder passes the next
 * panel on within a chunk's time instead of after its whole update (HPL's
 * probing; Bolt's progress engine runs only inside its calls). Once nothing
 * is in flight the rest goes in chunks as wide as the buffers allow.
 */
#include "hpl_port/blas.h"
#include "hpl_port/report.h"
#include "hpl_port/swap.h"

static void put_u(hpl_mat_t *m, const hpl_panel_t *p, int cs, int w, const double *u, int ldu,
                  int utrans)
{
    for (int col = 0; col < w; col++) {
        double *a = m->a + (size_t)(cs + col) * m->lda + (size_t)p->ii;
        if (utrans)
            for (int c = 0; c < p->jb; c++)
                a[c] = u[(size_t)c * (size_t)ldu + (size_t)col];
        else
            for (int c = 0; c < p->jb; c++)
                a[c] = u[(size_t)col * (size_t)ldu + (size_t)c];
    }
}

static void get_ut(const hpl_mat_t *m, const hpl_panel_t *p, int cs, int w, double *ut)
{
    for (int col = 0; col < w; col++) {
        const double *a = m->a + (size_t)(cs + col) * m->lda + (size_t)p->ii;
        for (int c = 0; c < p->jb; c++)
            ut[(size_t)c * (size_t)w + (size_t)col] = a[c];
    }
}

int hpl_update(hpl_lu_t *lu, hpl_panel_t *p, int c0, int c1, int poll)
{
    const hpl_grid_t *g = lu->g;
    const hpl_algo_t *algo = lu->algo;
    hpl_mat_t *m = lu->m;
    const int jb = p->jb, utrans = !algo->u_notrans, in_place = g->nprow == 1 && !utrans;
    const int prow_me = g->myrow == p->prow;
    int rc = 0;
    for (int cs = c0; cs < c1;) {
        int w = c1 - cs;
        if (w > lu->maxw)
            w = lu->maxw;
        if (poll && w > lu->chunk && hpl_lu_busy(lu))
            w = lu->chunk;
        double t0 = bolt_wtime();
        double *u = lu->ubuf;
        int ldu = utrans ? w : jb;
        if (g->nprow == 1) {
            hpl_swap_local(lu, p, cs, w);
            if (in_place) {
                u = m->a + (size_t)cs * m->lda + (size_t)p->ii;
                ldu = (int)m->lda;
            } else {
                get_ut(m, p, cs, w, u);
            }
        } else if ((rc = hpl_swap(lu, p, cs, w, u, utrans))) {
            return rc;
        }
        double t1 = bolt_wtime();
        lu->t->laswp += t1 - t0;

        const double *l1 = p->l1;
        if (utrans)
            cblas_dtrsm(CblasColMajor, CblasRight, algo->l1_notrans ? CblasLower : CblasUpper,
                        algo->l1_notrans ? CblasTrans : CblasNoTrans, CblasUnit, w, jb, 1.0, l1, jb, u,
                        ldu);
        else
            cblas_dtrsm(CblasColMajor, CblasLeft, algo->l1_notrans ? CblasLower : CblasUpper,
                        algo->l1_notrans ? CblasNoTrans : CblasTrans, CblasUnit, jb, w, 1.0, l1, jb, u,
                        ldu);
        if (prow_me && !in_place)
            put_u(m, p, cs, w, u, ldu, utrans);
        if (p->ml2 > 0)
            cblas_dgemm(CblasColMajor, CblasNoTrans, utrans ? CblasTrans : CblasNoTrans, p->ml2, w, jb,
                        -1.0, p->l2, p->ml2, u, ldu, 1.0, m->a + (size_t)cs * m->lda + (size_t)p->i2,
                        (int)m->lda);
        lu->t->update += bolt_wtime() - t1;
        cs += w;
        if (poll && (rc = hpl_lu_poll(lu)))
            return rc;
    }
    return 0;
}
