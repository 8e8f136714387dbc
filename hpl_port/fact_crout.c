/*
 * fact_crout.c — Crout factorisation: a column (or a part of the recursion)
 * is updated from the left just before it is factored, and its row of U to
 * the right just after; the rest waits for its turn.
 */
#include "hpl_port/blas.h"
#include "hpl_port/fact.h"

int hpl_pfact_crout(hpl_pf_t *pf, int c0, int n)
{
    const int e = c0 + n;
    for (int c = c0; c < e; c++) {
        if (c > c0)
            hpl_pf_gemv_below(pf, c, c0, c - c0, c);
        int rc = hpl_pivot(pf, c);
        if (rc)
            return rc;
        if (c > c0 && c + 1 < e)
            /* U(c, c+1:e) -= L(c, c0:c) U(c0:c, c+1:e) */
            cblas_dgemv(CblasColMajor, CblasTrans, c - c0, e - c - 1, -1.0, &PF_T(pf, c0, c + 1), pf->ldt,
                        &PF_T(pf, c, c0), pf->ldt, 1.0, &PF_T(pf, c, c + 1), pf->ldt);
    }
    return 0;
}

int hpl_rfact_crout(hpl_pf_t *pf, int c0, int n, int c, int w)
{
    const int e = c0 + n;
    if (c > c0)
        hpl_pf_gemm_below(pf, c, c0, c - c0, c, w);
    int rc = hpl_rfact(pf, c, w);
    if (rc || c + w >= e)
        return rc;
    /* the part's rows of U to the right: U12 = L11^-1 (A12 - L10 U02) */
    if (c > c0)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, w, e - c - w, c - c0, -1.0,
                    &PF_T(pf, c, c0), pf->ldt, &PF_T(pf, c0, c + w), pf->ldt, 1.0, &PF_T(pf, c, c + w),
                    pf->ldt);
    hpl_pf_trsm_rows(pf, c, w, c + w, e - c - w);
    return 0;
}
