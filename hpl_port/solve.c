/*
 * solve.c — back substitution U x = b' over the grid, one block row at a
 * time from the last: the process row of block kb sums, across the row, b'
 * less what the blocks already solved take from it (each process keeps its
 * rows' running sums), the diagonal block's owner solves the small
 * triangle, and the process column of block kb gets x's piece and adds its
 * share to the running sums of the rows above. Each process ends with the
 * entries of x of its own columns.
 */
#include <stdlib.h>
#include <string.h>

#include "hpl_port/blas.h"
#include "hpl_port/hpl.h"

int hpl_pdtrsv(const hpl_grid_t *g, hpl_mat_t *m)
{
    const int n = m->n, nb = m->nb, P = g->nprow, Q = g->npcol;
    const int nblk = (n + nb - 1) / nb, pcol_b = (n / nb) % Q;
    const int lb = hpl_numroc(n, nb, g->mycol, Q); /* b's local column, on pcol_b */
    double *acc = calloc((size_t)(m->mp > 0 ? m->mp : 1), sizeof(double));
    double *v = malloc((size_t)nb * sizeof(double)), *xb = malloc((size_t)nb * sizeof(double));
    free(m->x);
    m->x = calloc((size_t)(m->nqa > 0 ? m->nqa : 1), sizeof(double));
    int rc = 0;
    if (!acc || !v || !xb || !m->x) {
        rc = hpl_error(BOLT_ERR_NOMEM, "back substitution: out of memory");
        goto out;
    }
    for (int kb = nblk - 1; kb >= 0; kb--) {
        const int g0 = kb * nb, w = n - g0 < nb ? n - g0 : nb, pr = kb % P, pc = kb % Q;
        const int li0 = hpl_numroc(g0, nb, g->myrow, P), lj0 = hpl_numroc(g0, nb, g->mycol, Q);
        if (g->myrow == pr) {
            const double *b = m->a + (size_t)lb * m->lda + (size_t)li0;
            for (int i = 0; i < w; i++)
                v[i] = (g->mycol == pcol_b ? b[i] : 0.0) - acc[li0 + i];
            /* (xb: room the non-roots' reduce never writes) */
            if (Q > 1 && (rc = bolt_reduce(g->mycol == pc ? BOLT_IN_PLACE : v, g->mycol == pc ? v : xb,
                                           (size_t)w, BOLT_FLOAT64, BOLT_SUM, pc, g->row))) {
                rc = hpl_fail(rc, "back substitution, block row %d: sum over process row %d", kb, pr);
                goto out;
            }
            if (g->mycol == pc) {
                cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, w,
                            m->a + (size_t)lj0 * m->lda + (size_t)li0, (int)m->lda, v, 1);
                memcpy(xb, v, (size_t)w * sizeof(double));
            }
        }
        if (g->mycol != pc)
            continue;
        if (P > 1 && (rc = bolt_bcast(xb, (size_t)w, BOLT_FLOAT64, pr, g->col))) {
            rc = hpl_fail(rc, "back substitution, block row %d: x down process column %d", kb, pc);
            goto out;
        }
        memcpy(m->x + lj0, xb, (size_t)w * sizeof(double));
        int above = hpl_numroc(g0, nb, g->myrow, P);
        if (above > 0)
            cblas_dgemv(CblasColMajor, CblasNoTrans, above, w, 1.0, m->a + (size_t)lj0 * m->lda,
                        (int)m->lda, xb, 1, 1.0, acc, 1);
    }
out:
    free(acc);
    free(v);
    free(xb);
    return rc;
}
