/*
 * check.c — HPL's scaled residual ||Ax-b||_oo / (eps (||A||_oo ||x||_oo +
 * ||b||_oo) N), from [A|b] generated again from the seed (the factorisation
 * overwrote it): each process multiplies its blocks by its entries of x, the
 * process row sums the pieces, and the norms are maxima over the grid.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "hpl_port/blas.h"
#include "hpl_port/hpl.h"

int hpl_check(const hpl_grid_t *g, hpl_mat_t *m, uint64_t seed, hpl_resid_t *r)
{
    const int n = m->n, nb = m->nb, pcol_b = (n / nb) % g->npcol;
    const int lb = hpl_numroc(n, nb, g->mycol, g->npcol);
    const size_t mp = (size_t)(m->mp > 0 ? m->mp : 1);
    hpl_matgen(g, m, seed);
    double *res = calloc(2 * mp, sizeof(double)), *rows = res + mp;
    int rc = 0;
    if (!res)
        return hpl_error(BOLT_ERR_NOMEM, "residual check: out of memory");
    /* my share of A x - b, and of the row sums of |A| */
    if (m->mp > 0 && m->nqa > 0)
        cblas_dgemv(CblasColMajor, CblasNoTrans, m->mp, m->nqa, 1.0, m->a, (int)m->lda, m->x, 1, 0.0,
                    res, 1);
    for (int lj = 0; lj < m->nqa; lj++) {
        const double *a = m->a + (size_t)lj * m->lda;
        for (int i = 0; i < m->mp; i++)
            rows[i] += fabs(a[i]);
    }
    double loc[4] = {0, 0, 0, 0}; /* ||Ax-b||, ||A||, ||x||, ||b|| (oo-norms) */
    if (g->mycol == pcol_b)
        for (int i = 0; i < m->mp; i++) {
            double b = m->a[(size_t)lb * m->lda + (size_t)i];
            res[i] -= b;
            loc[3] = fmax(loc[3], fabs(b));
        }
    if (g->npcol > 1 && (rc = bolt_allreduce(BOLT_IN_PLACE, res, 2 * mp, BOLT_FLOAT64, BOLT_SUM, g->row))) {
        rc = hpl_fail(rc, "residual check: sums over process row %d", g->myrow);
        goto out;
    }
    for (int i = 0; i < m->mp; i++) {
        loc[0] = fmax(loc[0], fabs(res[i]));
        loc[1] = fmax(loc[1], rows[i]);
    }
    for (int lj = 0; lj < m->nqa; lj++)
        loc[2] = fmax(loc[2], fabs(m->x[lj]));
    /* a NaN anywhere must not vanish in fmax: carry it on its own */
    double nan_seen = 0;
    for (int i = 0; i < m->mp; i++)
        if (isnan(res[i]))
            nan_seen = 1;
    double all[5] = {loc[0], loc[1], loc[2], loc[3], nan_seen};
    if ((rc = bolt_allreduce(BOLT_IN_PLACE, all, 5, BOLT_FLOAT64, BOLT_MAX, g->all))) {
        rc = hpl_fail(rc, "residual check: norms over the grid");
        goto out;
    }
    r->eps = DBL_EPSILON / 2;
    r->rnorm = all[4] != 0 ? NAN : all[0];
    r->anorm = all[1];
    r->xnorm = all[2];
    r->bnorm = all[3];
    r->resid = r->rnorm / (r->eps * (r->anorm * r->xnorm + r->bnorm) * (double)n);
out:
    free(res);
    return rc;
}
