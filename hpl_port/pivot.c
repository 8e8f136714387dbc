/*
 * pivot.c — one column's pivot: the search over the whole process column and
 * the row exchange, fused into one all-reduce.
 *
 * Every process of the column holds the panel's top block T (the same on
 * all) above its own rows L. Each proposes its best candidate for column c,
 * the all-reduce keeps the largest |value| (ties to the lower global row, so
 * the winner is the same whatever the order of the fold), and the payload
 * carries the winning row's jb entries. Then every process knows the pivot
 * row: it goes into T's row c everywhere, and the owner of the pivot row puts
 * T's old row c in its place. One message round per column, as HPL's
 * HPL_pdmxswp; with one process row there is no message at all.
 */
#include <math.h>
#include <string.h>

#include "hpl_port/blas.h"
#include "hpl_port/panel.h"

/* Payload: |value|, global row, then the row's jb entries. */
#define PV_ABS 0
#define PV_ROW 1
#define PV_DATA 2

static int pv_better(const double *a, const double *b)
{
    int na = isnan(a[PV_ABS]), nb = isnan(b[PV_ABS]);
    if (na != nb)
        return na; /* a NaN wins, so that it shows in the residual */
    if (a[PV_ABS] != b[PV_ABS])
        return a[PV_ABS] > b[PV_ABS];
    return a[PV_ROW] < b[PV_ROW];
}

static void pv_reduce(const void *in, void *inout, size_t count, bolt_datatype_t dt, void *user)
{
    size_t len = bolt_type_size(dt);
    const char *a = in;
    char *b = inout;
    for (size_t i = 0; i < count; i++, a += len, b += len)
        if (pv_better((const double *)(const void *)a, (double *)(void *)b))
            memcpy(b, a, len);
}

int hpl_pivot_op_create(bolt_op_t *op)
{
    /* commutative: the order is total (value, then row) */
    int rc = bolt_op_create(pv_reduce, 1, NULL, op);
    return rc ? hpl_fail(rc, "pivot: creating the reduction") : 0;
}

static void row_get(const double *base, size_t ld, int r, int n, double *out)
{
    for (int c = 0; c < n; c++)
        out[c] = base[(size_t)c * ld + (size_t)r];
}

static void row_put(double *base, size_t ld, int r, int n, const double *in)
{
    for (int c = 0; c < n; c++)
        base[(size_t)c * ld + (size_t)r] = in[c];
}

static void row_swap(double *a, size_t lda, int ra, double *b, size_t ldb, int rb, int n)
{
    for (int c = 0; c < n; c++) {
        double x = a[(size_t)c * lda + (size_t)ra];
        a[(size_t)c * lda + (size_t)ra] = b[(size_t)c * ldb + (size_t)rb];
        b[(size_t)c * ldb + (size_t)rb] = x;
    }
}

int hpl_pivot(hpl_pf_t *pf, int c)
{
    hpl_lu_t *lu = pf->lu;
    const hpl_grid_t *g = lu->g;
    const hpl_panel_t *p = pf->p;
    const int jb = pf->jb, nb = lu->m->nb;
    double t0 = bolt_wtime();

    /* the best of T's rows c.. (the same everywhere) and of my rows */
    int it = c + (int)cblas_idamax(jb - c, &PF_T(pf, c, c), 1);
    double tabs = fabs(PF_T(pf, it, c));
    int il = -1;
    double labs = -1.0;
    if (pf->ml > 0) {
        il = (int)cblas_idamax(pf->ml, &PF_L(pf, 0, c), 1);
        labs = fabs(PF_L(pf, il, c));
    }
    /* a row of T has a lower global index than any of L: it wins ties */
    int from_l = il >= 0 && (labs > tabs || (isnan(labs) && !isnan(tabs)));
    int grow;
    if (g->nprow == 1) {
        if (from_l) {
            row_swap(pf->t, (size_t)pf->ldt, c, pf->l, (size_t)pf->ldl, il, jb);
            grow = hpl_global(p->i2 + il, nb, g->myrow, g->nprow);
        } else {
            if (it != c)
                row_swap(pf->t, (size_t)pf->ldt, c, pf->t, (size_t)pf->ldt, it, jb);
            grow = p->j + it;
        }
    } else {
        double *mine = lu->work, *best = lu->work + jb + PV_DATA;
        mine[PV_ABS] = from_l ? labs : tabs;
        if (from_l) {
            mine[PV_ROW] = hpl_global(p->i2 + il, nb, g->myrow, g->nprow);
            row_get(pf->l, (size_t)pf->ldl, il, jb, mine + PV_DATA);
        } else {
            mine[PV_ROW] = p->j + it;
            row_get(pf->t, (size_t)pf->ldt, it, jb, mine + PV_DATA);
        }
        bolt_datatype_t dt = bolt_type_bytes((size_t)(jb + PV_DATA) * sizeof(double));
        int rc = bolt_allreduce(mine, best, 1, dt, lu->pivot_op, g->col);
        if (rc)
            return hpl_fail(rc, "panel %d, column %d: pivot search over process column %d", p->k,
                            p->j + c, g->mycol);
        grow = (int)best[PV_ROW];
        if (grow < p->j + jb) {
            int r = grow - p->j;
            if (r != c)
                row_swap(pf->t, (size_t)pf->ldt, c, pf->t, (size_t)pf->ldt, r, jb);
        } else {
            if (hpl_owner(grow, nb, g->nprow) == g->myrow) {
                int lr = hpl_numroc(grow, nb, g->myrow, g->nprow) - p->i2;
                double *old = mine; /* my candidate is spent: reuse its room */
                row_get(pf->t, (size_t)pf->ldt, c, jb, old);
                row_put(pf->l, (size_t)pf->ldl, lr, jb, old);
            }
            row_put(pf->t, (size_t)pf->ldt, c, jb, best + PV_DATA);
        }
    }
    p->ipiv[c] = (double)grow;

    /* scale the column below the diagonal (a zero pivot leaves it: the
     * residual will tell) */
    double piv = PF_T(pf, c, c);
    if (piv != 0.0) {
        double s = 1.0 / piv;
        if (jb - c - 1 > 0)
            cblas_dscal(jb - c - 1, s, &PF_T(pf, c + 1, c), 1);
        if (pf->ml > 0)
            cblas_dscal(pf->ml, s, &PF_L(pf, 0, c), 1);
    }
    lu->t->mxswp += bolt_wtime() - t0;
    return 0;
}
