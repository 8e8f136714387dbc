/*
 * fact_right.c — right-looking factorisation: once a column (or a part of
 * the recursion) is factored, everything to its right is updated at once.
 */
#include "hpl_port/blas.h"
#include "hpl_port/fact.h"

int hpl_pfact_right(hpl_pf_t *pf, int c0, int n)
{
    const int e = c0 + n;
    for (int c = c0; c < e; c++) {
        int rc = hpl_pivot(pf, c);
        if (rc)
            return rc;
        if (c + 1 < e)
            hpl_pf_ger_below(pf, c, c + 1, e - c - 1);
    }
    return 0;
}

int hpl_rfact_right(hpl_pf_t *pf, int c0, int n, int c, int w)
{
    int rc = hpl_rfact(pf, c, w);
    const int e = c0 + n;
    if (rc || c + w >= e)
        return rc;
    /* U12 = L11^-1 A12, then A22 -= L21 U12 */
    hpl_pf_trsm_rows(pf, c, w, c + w, e - c - w);
    hpl_pf_gemm_below(pf, c + w, c, w, c + w, e - c - w);
    return 0;
}
