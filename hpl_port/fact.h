/*
 * fact.h — the BLAS steps the panel's factorisation variants share. Each
 * works on the top block T (rows 0..jb-1, the same on every process of the
 * column) and on this process's rows L below it; "below r0" means T's rows
 * r0..jb-1 and all of L.
 */
#ifndef HPL_FACT_H
#define HPL_FACT_H

#include "hpl_port/panel.h"

/* Below c: columns [cc, cc+nc) -= column c times T's row c there (rank 1). */
void hpl_pf_ger_below(hpl_pf_t *pf, int c, int cc, int nc);
/* Below r0: column col -= columns [ka, ka+kn) times T(ka:ka+kn, col). */
void hpl_pf_gemv_below(hpl_pf_t *pf, int r0, int ka, int kn, int col);
/* Below r0: columns [cc, cc+nc) -= columns [ka, ka+kn) times T(ka:ka+kn, cc:cc+nc). */
void hpl_pf_gemm_below(hpl_pf_t *pf, int r0, int ka, int kn, int cc, int nc);
/* T(r0:r0+nr, cc:cc+nc) = L^-1 T(r0:r0+nr, cc:cc+nc), L = T(r0:r0+nr, r0:r0+nr)'s unit lower triangle. */
void hpl_pf_trsm_rows(hpl_pf_t *pf, int r0, int nr, int cc, int nc);

#endif
