/*
 * panel.c — one panel's factorisation: gather it, run the recursion (RFACT,
 * NDIV, NBMIN) down to the column-by-column leaves (PFACT), and pack the
 * message the process row receives.
 *
 * The panel is factored in its message buffer, not in A: L2 (this process's
 * rows below the top block) is copied there, and the top block T from its
 * owner to every process of the column, so that each pivot step needs one
 * all-reduce and nothing else (pivot.c). Afterwards the owner of the top
 * block writes it back into A: its upper triangle is U11, which the back
 * substitution needs. Nothing else of the panel's columns is used again.
 */
#include <string.h>

#include "hpl_port/blas.h"
#include "hpl_port/fact.h"

void hpl_pf_ger_below(hpl_pf_t *pf, int c, int cc, int nc)
{
    if (pf->jb - c - 1 > 0)
        cblas_dger(CblasColMajor, pf->jb - c - 1, nc, -1.0, &PF_T(pf, c + 1, c), 1, &PF_T(pf, c, cc),
                   pf->ldt, &PF_T(pf, c + 1, cc), pf->ldt);
    if (pf->ml > 0)
        cblas_dger(CblasColMajor, pf->ml, nc, -1.0, &PF_L(pf, 0, c), 1, &PF_T(pf, c, cc), pf->ldt,
                   &PF_L(pf, 0, cc), pf->ldl);
}

void hpl_pf_gemv_below(hpl_pf_t *pf, int r0, int ka, int kn, int col)
{
    if (pf->jb - r0 > 0)
        cblas_dgemv(CblasColMajor, CblasNoTrans, pf->jb - r0, kn, -1.0, &PF_T(pf, r0, ka), pf->ldt,
                    &PF_T(pf, ka, col), 1, 1.0, &PF_T(pf, r0, col), 1);
    if (pf->ml > 0)
        cblas_dgemv(CblasColMajor, CblasNoTrans, pf->ml, kn, -1.0, &PF_L(pf, 0, ka), pf->ldl,
                    &PF_T(pf, ka, col), 1, 1.0, &PF_L(pf, 0, col), 1);
}

void hpl_pf_gemm_below(hpl_pf_t *pf, int r0, int ka, int kn, int cc, int nc)
{
    if (pf->jb - r0 > 0)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, pf->jb - r0, nc, kn, -1.0,
                    &PF_T(pf, r0, ka), pf->ldt, &PF_T(pf, ka, cc), pf->ldt, 1.0, &PF_T(pf, r0, cc),
                    pf->ldt);
    if (pf->ml > 0)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, pf->ml, nc, kn, -1.0, &PF_L(pf, 0, ka),
                    pf->ldl, &PF_T(pf, ka, cc), pf->ldt, 1.0, &PF_L(pf, 0, cc), pf->ldl);
}

void hpl_pf_trsm_rows(hpl_pf_t *pf, int r0, int nr, int cc, int nc)
{
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, nr, nc, 1.0,
                &PF_T(pf, r0, r0), pf->ldt, &PF_T(pf, r0, cc), pf->ldt);
}

static hpl_pfact_fn *const leaves[] = {hpl_pfact_left, hpl_pfact_crout, hpl_pfact_right};

int hpl_rfact(hpl_pf_t *pf, int c0, int n)
{
    const hpl_algo_t *a = pf->lu->algo;
    if (n <= a->nbmin || n < 2)
        return leaves[a->pfact](pf, c0, n);
    int parts = a->ndiv < n ? a->ndiv : n;
    for (int i = 0; i < parts; i++) {
        int c = c0 + (n * i) / parts, w = c0 + (n * (i + 1)) / parts - c;
        int rc = a->rfact == HPL_FACT_LEFT    ? hpl_rfact_left(pf, c0, n, c, w)
                 : a->rfact == HPL_FACT_CROUT ? hpl_rfact_crout(pf, c0, n, c, w)
                                              : hpl_rfact_right(pf, c0, n, c, w);
        if (rc)
            return rc;
    }
    /* a broadcast waiting to be forwarded should not wait for the whole panel */
    return hpl_lu_poll(pf->lu);
}

static void copy_block(int m, int n, const double *src, size_t lds, double *dst, size_t ldd)
{
    for (int c = 0; c < n; c++)
        memcpy(dst + (size_t)c * ldd, src + (size_t)c * lds, (size_t)m * sizeof(double));
}

static void transpose_square(double *a, int n)
{
    for (int c = 0; c < n; c++)
        for (int r = c + 1; r < n; r++) {
            double x = a[(size_t)c * n + r];
            a[(size_t)c * n + r] = a[(size_t)r * n + c];
            a[(size_t)r * n + c] = x;
        }
}

int hpl_panel_factor(hpl_lu_t *lu, hpl_panel_t *p)
{
    const hpl_grid_t *g = lu->g;
    hpl_mat_t *m = lu->m;
    double t0 = bolt_wtime();
    double *acol = m->a + (size_t)p->jj * m->lda;
    int rc = 0;

    copy_block(p->ml2, p->jb, acol + p->i2, m->lda, p->l2, (size_t)(p->ml2 > 0 ? p->ml2 : 1));
    if (g->myrow == p->prow)
        copy_block(p->jb, p->jb, acol + p->ii, m->lda, p->l1, (size_t)p->jb);
    if (g->nprow > 1) {
        double tb = bolt_wtime();
        rc = bolt_bcast(p->l1, (size_t)p->jb * (size_t)p->jb, BOLT_FLOAT64, p->prow, g->col);
        lu->t->mxswp += bolt_wtime() - tb;
        if (rc)
            return hpl_fail(rc, "panel %d: top block from process row %d", p->k, p->prow);
    }
    hpl_pf_t pf = {.lu = lu, .p = p, .t = p->l1, .ldt = p->jb, .l = p->l2,
                   .ldl = p->ml2 > 0 ? p->ml2 : 1, .ml = p->ml2, .jb = p->jb};
    if ((rc = hpl_rfact(&pf, 0, p->jb)))
        return rc;
    if (g->myrow == p->prow)
        copy_block(p->jb, p->jb, p->l1, (size_t)p->jb, acol + p->ii, m->lda);
    if (!lu->algo->l1_notrans)
        transpose_square(p->l1, p->jb);
    lu->t->pfact += bolt_wtime() - t0;
    return 0;
}
