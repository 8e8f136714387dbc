/*
 * grid.c — the P x Q process grid of one test: which rank sits where, and the
 * communicators of its row (panel broadcasts) and column (pivoting, swaps).
 */
#include "hpl_port/hpl.h"

int hpl_grid_init(bolt_comm_t world, int order, int nprow, int npcol, hpl_grid_t *g)
{
    int wrank, rc;
    *g = (hpl_grid_t){.nprow = nprow, .npcol = npcol, .order = order, .myrow = -1, .mycol = -1};
    if ((rc = bolt_comm_rank(world, &wrank)))
        return hpl_fail(rc, "grid: rank in the job");
    g->in_grid = wrank < nprow * npcol;
    if (g->in_grid) {
        /* row-major: ranks fill a process row before the next (HPL's PMAP 0) */
        g->myrow = order == 0 ? wrank / npcol : wrank % nprow;
        g->mycol = order == 0 ? wrank % npcol : wrank / nprow;
    }
    if ((rc = bolt_comm_split(world, g->in_grid ? 0 : BOLT_UNDEFINED, wrank, &g->all)))
        return hpl_fail(rc, "grid %d x %d: splitting the job", nprow, npcol);
    if (!g->in_grid)
        return 0;
    bolt_comm_rank(g->all, &g->rank);
    bolt_comm_size(g->all, &g->size);
    if ((rc = bolt_comm_split(g->all, g->myrow, g->mycol, &g->row)) ||
        (rc = bolt_comm_split(g->all, g->mycol, g->myrow, &g->col))) {
        hpl_grid_exit(g);
        return hpl_fail(rc, "grid %d x %d: row and column communicators", nprow, npcol);
    }
    return 0;
}

void hpl_grid_exit(hpl_grid_t *g)
{
    if (g->row)
        bolt_comm_free(&g->row);
    if (g->col)
        bolt_comm_free(&g->col);
    if (g->all)
        bolt_comm_free(&g->all);
}
