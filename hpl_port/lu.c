/*
 * lu.c — the factorisation's main loop, with look-ahead of any depth d, then
 * the back substitution.
 *
 * At iteration k panels k .. k+d-1 are factored and on their way along the
 * process rows, and every column beyond them has the updates of panels
 * 0 .. k-1. The owner column of panel k+d applies panels k .. k+d-1 to that
 * panel's columns alone, factors it and starts its broadcast; then every
 * process updates the rest of its trailing columns with panel k, driving the
 * broadcasts between chunks. Panel k's row swaps on that owner cover the
 * look-ahead panel's columns and the rest in one go (one exchange across
 * the process column, not two). So a panel is factored while the previous one's
 * update runs, and travels while the next update runs. d = 0 is the plain
 * right-looking loop. Iterations -d .. -1 factor the first d panels.
 */
#include <stdlib.h>
#include <string.h>

#include "hpl_port/blas.h"
#include "hpl_port/driver.h"
#include "hpl_port/panel.h"
#include "hpl_port/pool.h"
#include "hpl_port/sys.h"

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

void hpl_lu_destroy(hpl_lu_t *lu)
{
    if (!lu)
        return;
    if (lu->pan) {
        for (int i = 0; i < lu->nslot; i++)
            free(lu->pan[i].buf);
        free(lu->pan);
    }
    free(lu->work);
    free(lu->swapbuf);
    free(lu->ubuf);
    free(lu->ubuf2);
    free(lu->iwork);
    free(lu->sreq);
    free(lu->swapoff);
    free(lu->allreq);
    if (lu->pool) {
        hpl_pool_destroy(lu->pool);
        hpl_blas_set_threads(lu->blas_threads);
    }
    if (lu->pivot_op != BOLT_OP_NULL)
        bolt_op_free(&lu->pivot_op);
    free(lu);
}

/* A large buffer on huge pages where the system has them (a 12 MB panel
 * crosses to the next process 3x faster: single-copy reads pin fewer pages,
 * 0.6 against 2 ms here), and every page touched, so that the page faults
 * (costly in a virtual machine) land here, before the clock starts, not in
 * the first panels. */
static void *alloc_touched(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, (size_t)2 << 20, bytes ? bytes : 1) != 0)
        return NULL;
    hpl_sys_advise_huge(p, bytes);
    memset(p, 0, bytes);
    return p;
}

int hpl_lu_create(const hpl_grid_t *g, const hpl_algo_t *algo, hpl_mat_t *m, int threads, hpl_lu_t **out)
{
    hpl_lu_t *lu = calloc(1, sizeof *lu);
    *out = lu;
    if (!lu)
        return hpl_error(BOLT_ERR_NOMEM, "out of memory for the factorisation's state");
    lu->g = g;
    lu->algo = algo;
    lu->m = m;
    lu->pivot_op = BOLT_OP_NULL;
    const size_t nb = (size_t)m->nb, P = (size_t)g->nprow, Q = (size_t)g->npcol;
    int rc = hpl_pivot_op_create(&lu->pivot_op);
    if (rc)
        return rc;
    /* chunks of about 4e7 flops of DGEMM while a broadcast flies: a few ms */
    double per_col = 2.0 * (m->mp > 0 ? m->mp : 1) * (double)nb;
    int chunk = (int)((4e7 / per_col + (double)nb - 1) / (double)nb) * (int)nb;
    lu->chunk = chunk < (int)nb ? (int)nb : chunk;
    const size_t w = (size_t)(m->nq > 0 ? m->nq : 1);
    /* across process rows, swaps go a few hundred columns at a time, each
     * window's U (jb x swapw) kept within 3/4 of a core's L2 while its DTRSM
     * and DGEMM read it: 2 x 1 at N = 8000, 512 columns beat the whole
     * width by 13%, 2048 by 4% (1 MiB L2; 1 MiB assumed when unknown) */
    uint64_t l2 = hpl_sys_l2_bytes();
    double cols = 0.75 * (double)(l2 ? l2 : (uint64_t)1 << 20) / (8.0 * (double)nb);
    lu->swapw = cols < (double)nb ? (int)nb : cols > 65536 ? 65536 : (int)cols;
    lu->nslot = lu->algo->depth + 2;
    lu->pan = calloc((size_t)lu->nslot, sizeof *lu->pan);
    lu->reqs_per_slot = (int)(2 * Q + 2);
    lu->allreq = malloc((size_t)lu->nslot * (2 * Q + 2) * sizeof *lu->allreq);
    lu->work = malloc(2 * (nb + 2) * sizeof(double));
    lu->ubuf = alloc_touched(nb * w * sizeof(double));
    lu->ubuf2 = alloc_touched(nb * nb * sizeof(double));
    lu->iwork = malloc((12 * nb + 4 * P) * sizeof(int));
    lu->sreq = malloc((4 * P + 4) * sizeof *lu->sreq);
    lu->swapoff = malloc(2 * (P + 1) * sizeof *lu->swapoff);
    if (P > 1) {
        lu->swapcap = 4 * nb * w + w;
        lu->swapbuf = alloc_touched(lu->swapcap * sizeof(double));
    }
    int ok = lu->pan && lu->allreq && lu->work && lu->ubuf && lu->ubuf2 && lu->iwork && lu->sreq && lu->swapoff &&
             (P == 1 || lu->swapbuf);
    size_t count = nb * nb + nb + (size_t)m->mp * nb;
    for (int i = 0; ok && i < lu->nslot; i++) {
        lu->pan[i].buf = alloc_touched(count * sizeof(double));
        lu->pan[i].bc.req = lu->allreq + (size_t)i * (2 * Q + 2);
        for (size_t r = 0; r < 2 * Q + 2; r++)
            lu->pan[i].bc.req[r] = BOLT_REQUEST_NULL;
        ok = lu->pan[i].buf != NULL;
    }
    if (!ok)
        return hpl_error(BOLT_ERR_NOMEM, "out of memory for %d panel buffers of %.1f MiB each",
                         lu->nslot, (double)count * 8.0 / 1048576.0);
    /* one process row: the update is local, so bolt-hpl's own threads take
     * it, BLAS single-threaded in each (across process rows the swaps need
     * the main thread between the DTRSM and DGEMM: the BLAS keeps its own) */
    if (threads > 1 && P == 1) {
        int was = hpl_blas_threads();
        if (hpl_blas_set_threads(1) == 0) {
            lu->blas_threads = was;
            if ((rc = hpl_pool_create(threads, &lu->pool))) {
                hpl_blas_set_threads(was);
                return hpl_error(rc, "cannot start %d threads: %s", threads - 1, bolt_strerror(rc));
            }
        }
    }
    return 0;
}

int hpl_pdgetrf(hpl_lu_t *lup, hpl_times_t *t, struct hpl_progress *pr)
{
    hpl_lu_t lu = *lup; /* a copy: the loop's state, over the shared buffers */
    lu.t = t;
    lu.pr = pr;
    const hpl_grid_t *g = lu.g;
    hpl_mat_t *m = lu.m;
    const int nb = m->nb, npanels = (m->n + nb - 1) / nb, d = lu.algo->depth;
    int rc = 0;
    for (int k = -d; rc == 0 && k < npanels; k++) {
        int mk = k + d, last = mk < npanels ? mk : npanels - 1;
        /* the update with panel k: everything after the last factored panel, b included */
        int gstart = (last + 1) * nb < m->n ? (last + 1) * nb : m->n, rest = local_col(&lu, gstart);
        hpl_panel_t *pk = k >= 0 ? &lu.pan[k % lu.nslot] : NULL;
        hpl_upd_t up = {.p = NULL};
        hpl_tjob_t tj = {.started = 0};
        if (mk < npanels) {
            hpl_panel_t *pm = &lu.pan[mk % lu.nslot];
            if ((rc = hpl_bcast_finish(&lu, pm))) /* the slot's last panel */
                break;
            panel_init(&lu, pm, mk);
            if (g->mycol == pm->pcol) {
                if (pk && k < mk && lu.pool) {
                    /* the workers update the rest with panel k while this
                     * thread brings pm's columns up to date and factors it */
                    if (!(rc = hpl_bcast_wait_data(&lu, pk))) {
                        hpl_update_threads_start(&lu, pk, rest, m->nq, &tj);
                        if (!(rc = hpl_update_begin(&lu, pk, pm->jj, pm->jj + pm->jb, lu.ubuf2, &up)))
                            rc = hpl_update_cols(&lu, &up, pm->jj, pm->jj + pm->jb, 0);
                        up.p = NULL;
                    }
                } else if (pk && k < mk && (!(rc = hpl_bcast_wait_data(&lu, pk))) &&
                           !(rc = hpl_update_begin(&lu, pk, pm->jj, m->nq, lu.ubuf, &up))) {
                    /* panel k's swaps for pm's columns and the rest at once */
                    rc = hpl_update_cols(&lu, &up, pm->jj, pm->jj + pm->jb, 0);
                }
                for (int tk = pk ? k + 1 : 0; rc == 0 && tk < mk; tk++) {
                    hpl_panel_t *pt = &lu.pan[tk % lu.nslot];
                    hpl_upd_t ut;
                    if (!(rc = hpl_bcast_wait_data(&lu, pt)) &&
                        !(rc = hpl_update_begin(&lu, pt, pm->jj, pm->jj + pm->jb, lu.ubuf2, &ut)))
                        rc = hpl_update_cols(&lu, &ut, pm->jj, pm->jj + pm->jb, 0);
                }
                if (rc == 0)
                    rc = hpl_panel_factor(&lu, pm);
            }
            if (rc == 0)
                rc = hpl_bcast_start(&lu, pm);
        }
        if (rc == 0 && pk) {
            if (tj.started)
                ;
            else if (up.p)
                rc = hpl_update_cols(&lu, &up, rest, m->nq, 1);
            else if (!(rc = hpl_bcast_wait_data(&lu, pk))) {
                if (lu.pool)
                    hpl_update_threads_start(&lu, pk, rest, m->nq, &tj);
                else
                    rc = hpl_update(&lu, pk, rest, m->nq, 1);
            }
        }
        /* the workers' job ends in this iteration, whatever happened */
        int trc = hpl_update_threads_finish(&lu, &tj, rc == 0);
        if (rc == 0)
            rc = trc;
        if (rc)
            break;
        if (pr && pk)
            hpl_progress_note(pr, pk->j + pk->jb);
    }
    for (int i = 0; rc == 0 && i < lu.nslot; i++)
        rc = hpl_bcast_finish(&lu, &lu.pan[i]);
    return rc;
}
