/*
 * fact_left.c — left-looking factorisation: a column (or a part of the
 * recursion) is brought up to date with everything to its left just before
 * it is factored; nothing to its right is touched.
 */
#include "hpl_port/blas.h"
#include "hpl_port/fact.h"

int hpl_pfact_left(hpl_pf_t *pf, int c0, int n)
{
    for (int c = c0; c < c0 + n; c++) {
        if (c > c0) {
            /* U(c0:c, c) = L(c0:c, c0:c)^-1 A(c0:c, c), then the rest of the column */
            cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, c - c0, &PF_T(pf, c0, c0),
                        pf->ldt, &PF_T(pf, c0, c), 1);
            hpl_pf_gemv_below(pf, c, c0, c - c0, c);
        }
        int rc = hpl_pivot(pf, c);
        if (rc)
            return rc;
    }
    return 0;
}

int hpl_rfact_left(hpl_pf_t *pf, int c0, int n, int c, int w)
{
    if (c > c0) {
        hpl_pf_trsm_rows(pf, c0, c - c0, c, w);
        hpl_pf_gemm_below(pf, c, c0, c - c0, c, w);
    }
    return hpl_rfact(pf, c, w);
}
