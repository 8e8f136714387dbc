/*
 * bcast_bolt.c — the panel broadcast by Bolt's own non-blocking broadcast,
 * whose algorithm the runtime's cost model picks for the size and the row
 * (BCAST 6 in HPL.dat, an extension of HPL's 0-5).
 */
#include "hpl_port/panel.h"

static int bcast_bolt_start(hpl_lu_t *lu, hpl_panel_t *p, int rr, int q)
{
    hpl_bcast_t *b = &p->bc;
    b->nreq = 1;
    return bolt_ibcast(p->buf, p->count, BOLT_FLOAT64, p->pcol, lu->g->row, &b->req[0]);
}

static int bcast_bolt_test(hpl_lu_t *lu, hpl_panel_t *p, int rr, int q)
{
    int done, rc = hpl_req_test(&p->bc, 0, &done);
    if (rc == 0 && done) {
        p->bc.have = 1;
        p->bc.active = 0;
    }
    return rc;
}

const hpl_bcast_ops_t hpl_bcast_bolt_ops = {bcast_bolt_start, bcast_bolt_test};
