/*
 * swap.c — the row swaps' plan and the pieces both exchange variants use;
 * the local interchange for a single process row.
 */
#include <string.h>

#include "hpl_port/swap.h"

/* Replays the pivots on row numbers: src (top block) and out positions. */
static void swap_plan(hpl_swap_t *s)
{
    const hpl_panel_t *p = s->p;
    const int jb = p->jb, nb = s->lu->m->nb, P = s->lu->g->nprow;
    for (int c = 0; c < jb; c++)
        s->src[c] = p->j + c;
    s->nout = 0;
    for (int c = 0; c < jb; c++) {
        int gr = (int)p->ipiv[c], *other;
        if (gr < p->j + jb) {
            other = &s->src[gr - p->j];
        } else {
            int o = 0;
            while (o < s->nout && s->outpos[o] != gr)
                o++;
            if (o == s->nout) {
                s->outpos[o] = s->outsrc[o] = gr;
                s->nout++;
            }
            other = &s->outsrc[o];
        }
        int x = s->src[c];
        s->src[c] = *other;
        *other = x;
    }
    for (int r = 0; r < P; r++)
        s->nu[r] = 0;
    for (int c = 0; c < jb; c++)
        s->nu[hpl_owner(s->src[c], nb, P)]++;
}

int hpl_swap_rows_of(const hpl_swap_t *s, int pr, int with_out, int *rows, int *role)
{
    const int nb = s->lu->m->nb, P = s->lu->g->nprow;
    int n = 0;
    for (int c = 0; c < s->p->jb; c++)
        if (hpl_owner(s->src[c], nb, P) == pr) {
            rows[n] = s->src[c];
            role[n++] = c;
        }
    if (with_out && pr == s->p->prow)
        for (int o = 0; o < s->nout; o++) {
            rows[n] = s->outsrc[o];
            role[n++] = -1 - o;
        }
    return n;
}

/* A's local row of my global row gr. */
static inline double *arow(const hpl_swap_t *s, int gr)
{
    const hpl_mat_t *m = s->lu->m;
    int li = hpl_numroc(gr, m->nb, s->lu->g->myrow, s->lu->g->nprow);
    return m->a + (size_t)s->c0 * m->lda + (size_t)li;
}

void hpl_swap_pack(const hpl_swap_t *s, const int *rows, int n, double *dst)
{
    const size_t lda = s->lu->m->lda;
    for (int r = 0; r < n; r++) {
        const double *a = arow(s, rows[r]);
        for (int col = 0; col < s->nn; col++)
            dst[(size_t)col * (size_t)n + (size_t)r] = a[(size_t)col * lda];
    }
}

void hpl_swap_place(const hpl_swap_t *s, int role, const double *blk, int ldb, int r)
{
    const hpl_lu_t *lu = s->lu;
    const int nn = s->nn;
    const double *in = blk + r;
    if (role >= 0) {
        int c = role, jb = s->p->jb;
        if (s->utrans)
            for (int col = 0; col < nn; col++)
                s->u[(size_t)c * (size_t)nn + (size_t)col] = in[(size_t)col * (size_t)ldb];
        else
            for (int col = 0; col < nn; col++)
                s->u[(size_t)col * (size_t)jb + (size_t)c] = in[(size_t)col * (size_t)ldb];
        return;
    }
    int gr = s->outpos[-1 - role];
    if (hpl_owner(gr, lu->m->nb, lu->g->nprow) != lu->g->myrow)
        return;
    double *a = arow(s, gr);
    for (int col = 0; col < nn; col++)
        a[(size_t)col * lu->m->lda] = in[(size_t)col * (size_t)ldb];
}

void hpl_swap_place_all(const hpl_swap_t *s, int pr, int with_out, const double *blk, int *rows,
                        int *role)
{
    int n = hpl_swap_rows_of(s, pr, with_out, rows, role);
    for (int r = 0; r < n; r++)
        hpl_swap_place(s, role[r], blk, n, r);
}

int hpl_swap(hpl_lu_t *lu, const hpl_panel_t *p, int c0, int nn, double *u, int utrans)
{
    const int jb = p->jb, P = lu->g->nprow;
    hpl_swap_t s = {.lu = lu, .p = p, .c0 = c0, .nn = nn, .u = u, .utrans = utrans};
    s.src = lu->iwork;
    s.outpos = s.src + jb;
    s.outsrc = s.outpos + jb;
    s.nu = s.outsrc + jb;
    s.scratch = s.nu + P;
    swap_plan(&s);
    const hpl_algo_t *a = lu->algo;
    int binexch = a->swap == HPL_SWAP_BINEXCH || (a->swap == HPL_SWAP_MIX && nn <= a->swap_threshold);
    return binexch ? hpl_swap_binexch(&s) : hpl_swap_long(&s);
}

void hpl_swap_local(hpl_lu_t *lu, const hpl_panel_t *p, int c0, int nn)
{
    const hpl_mat_t *m = lu->m;
    for (int col = c0; col < c0 + nn; col++) {
        double *a = m->a + (size_t)col * m->lda;
        for (int c = 0; c < p->jb; c++) {
            int r = (int)p->ipiv[c], t = p->j + c;
            if (r != t) {
                double x = a[t];
                a[t] = a[r];
                a[r] = x;
            }
        }
    }
}
