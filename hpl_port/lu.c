/*
 * lu.c — the factorisation's main loop, with look-ahead of any depth d, then
 * the back substitution.
 *
 * At iteration k panels k .. k+d-1 are factored and on their way along the
 * process rows, and every column beyond them has the updates of panels
 * 0 .. k-1. The owner column of panel k+d applies panels k .. k+d-1 to that
 * panel's columns alone, factors it and starts its broadcast; then every
 * process updates the rest of its trailing columns with panel k, driving the
 * broadcasts between chunks. So a panel is factored while the previous one's
 * update runs, and travels while the next update runs. d = 0 is the plain
 * right-looking loop. Iterations -d .. -1 factor the first d panels.
 */
#include <stdlib.h>
#include <string.h>

#include "hpl_port/driver.h"
#include "hpl_port/panel.h"

int hpl_lu_poll(hpl_lu_t *lu)
{
    for (int i = 0; i < lu->nslot; i++) {
        int rc = hpl_bcast_test(lu, &lu->pan[i]);
        if (rc)
            return rc;
    }
    return 0;
}

int hpl_lu_busy(const hpl_lu_t *lu)
{
    for (int i = 0; i < lu->nslot; i++)
        if (lu->pan[i].bc.active)
            return 1;
    return 0;
}

static void panel_init(hpl_lu_t *lu, hpl_panel_t *p, int k)
{
    const hpl_grid_t *g = lu->g;
    const hpl_mat_t *m = lu->m;
    const int nb = m->nb;
    p->k = k;
    p->j = k * nb;
    p->jb = m->n - p->j < nb ? m->n - p->j : nb;
    p->prow = k % g->nprow;
    p->pcol = k % g->npcol;
    p->ii = hpl_numroc(p->j, nb, g->myrow, g->nprow);
    p->i2 = hpl_numroc(p->j + p->jb, nb, g->myrow, g->nprow);
    p->ml2 = m->mp - p->i2;
    p->jj = hpl_numroc(p->j, nb, g->mycol, g->npcol);
    p->l1 = p->buf;
    p->ipiv = p->l1 + (size_t)p->jb * (size_t)p->jb;
    p->l2 = p->ipiv + p->jb;
    p->count = (size_t)p->jb * (size_t)p->jb + (size_t)p->jb + (size_t)p->ml2 * (size_t)p->jb;
}

/* Local column index of the first global column at or after gc (b is N). */
static int local_col(const hpl_lu_t *lu, int gc)
{
    int n1 = lu->m->n + 1;
    return hpl_numroc(gc < n1 ? gc : n1, lu->m->nb, lu->g->mycol, lu->g->npcol);
}

static void lu_free(hpl_lu_t *lu)
{
    if (lu->pan) {
        for (int i = 0; i < lu->nslot; i++)
            free(lu->pan[i].buf);
        free(lu->pan);
    }
    free(lu->work);
    free(lu->swapbuf);
    free(lu->ubuf);
    free(lu->iwork);
    free(lu->sreq);
    free(lu->swapoff);
    free(lu->allreq);
    if (lu->pivot_op != BOLT_OP_NULL)
        bolt_op_free(&lu->pivot_op);
}

static int lu_setup(hpl_lu_t *lu)
{
    const hpl_grid_t *g = lu->g;
    const hpl_mat_t *m = lu->m;
    const size_t nb = (size_t)m->nb, P = (size_t)g->nprow, Q = (size_t)g->npcol;
    int rc = hpl_pivot_op_create(&lu->pivot_op);
    if (rc)
        return rc;
    /* chunks of about 4e7 flops of DGEMM while a broadcast flies: a few ms */
    double per_col = 2.0 * (m->mp > 0 ? m->mp : 1) * (double)nb;
    int chunk = (int)((4e7 / per_col + (double)nb - 1) / (double)nb) * (int)nb;
    lu->chunk = chunk < (int)nb ? (int)nb : chunk;
    lu->maxw = m->nq < 2048 ? (m->nq > 0 ? m->nq : 1) : 2048;
    if (lu->maxw < lu->chunk)
        lu->maxw = lu->chunk;
    const size_t w = (size_t)lu->maxw;
    lu->nslot = lu->algo->depth + 2;
    lu->pan = calloc((size_t)lu->nslot, sizeof *lu->pan);
    lu->reqs_per_slot = (int)(2 * Q + 2);
    lu->allreq = malloc((size_t)lu->nslot * (2 * Q + 2) * sizeof *lu->allreq);
    lu->work = malloc(2 * (nb + 2) * sizeof(double));
    lu->ubuf = malloc(nb * w * sizeof(double));
    lu->iwork = malloc((10 * nb + 4 * P) * sizeof(int));
    lu->sreq = malloc((4 * P + 4) * sizeof *lu->sreq);
    lu->swapoff = malloc(2 * (P + 1) * sizeof *lu->swapoff);
    if (P > 1) {
        lu->swapcap = 4 * nb * w + w;
        lu->swapbuf = malloc(lu->swapcap * sizeof(double));
    }
    int ok = lu->pan && lu->allreq && lu->work && lu->ubuf && lu->iwork && lu->sreq && lu->swapoff &&
             (P == 1 || lu->swapbuf);
    size_t count = nb * nb + nb + (size_t)m->mp * nb;
    for (int i = 0; ok && i < lu->nslot; i++) {
        lu->pan[i].buf = malloc(count * sizeof(double));
        lu->pan[i].bc.req = lu->allreq + (size_t)i * (2 * Q + 2);
        for (size_t r = 0; r < 2 * Q + 2; r++)
            lu->pan[i].bc.req[r] = BOLT_REQUEST_NULL;
        ok = lu->pan[i].buf != NULL;
    }
    if (!ok)
        return hpl_error(BOLT_ERR_NOMEM, "out of memory for %d panel buffers of %.1f MiB each",
                         lu->nslot, (double)count * 8.0 / 1048576.0);
    return 0;
}

int hpl_pdgetrf(const hpl_grid_t *g, const hpl_algo_t *algo, hpl_mat_t *m, hpl_times_t *t,
                struct hpl_progress *pr)
{
    hpl_lu_t lu = {.g = g, .algo = algo, .m = m, .t = t, .pr = pr, .pivot_op = BOLT_OP_NULL};
    const int nb = m->nb, npanels = (m->n + nb - 1) / nb, d = algo->depth;
    int rc = lu_setup(&lu);
    for (int k = -d; rc == 0 && k < npanels; k++) {
        int mk = k + d;
        if (mk < npanels) {
            hpl_panel_t *pm = &lu.pan[mk % lu.nslot];
            if ((rc = hpl_bcast_finish(&lu, pm))) /* the slot's last panel */
                break;
            panel_init(&lu, pm, mk);
            if (g->mycol == pm->pcol) {
                for (int tk = k > 0 ? k : 0; rc == 0 && tk < mk; tk++) {
                    hpl_panel_t *pt = &lu.pan[tk % lu.nslot];
                    if (!(rc = hpl_bcast_wait_data(&lu, pt)))
                        rc = hpl_update(&lu, pt, pm->jj, pm->jj + pm->jb, 0);
                }
                if (rc || (rc = hpl_panel_factor(&lu, pm)))
                    break;
            }
            if ((rc = hpl_bcast_start(&lu, pm)))
                break;
        }
        if (k < 0)
            continue;
        hpl_panel_t *pk = &lu.pan[k % lu.nslot];
        if ((rc = hpl_bcast_wait_data(&lu, pk)))
            break;
        /* everything after the last factored panel, b included */
        int last = mk < npanels ? mk : npanels - 1;
        int gstart = (last + 1) * nb < m->n ? (last + 1) * nb : m->n;
        rc = hpl_update(&lu, pk, local_col(&lu, gstart), m->nq, 1);
        if (pr)
            hpl_progress_note(pr, pk->j + pk->jb);
    }
    for (int i = 0; rc == 0 && i < lu.nslot; i++)
        rc = hpl_bcast_finish(&lu, &lu.pan[i]);
    lu_free(&lu);
    return rc;
}

int hpl_pdgesv(const hpl_grid_t *g, const hpl_algo_t *algo, hpl_mat_t *m, hpl_times_t *t,
               struct hpl_progress *pr)
{
    int rc = hpl_pdgetrf(g, algo, m, t, pr);
    if (rc)
        return rc;
    double t0 = bolt_wtime();
    rc = hpl_pdtrsv(g, m);
    t->solve += bolt_wtime() - t0;
    return rc;
}
