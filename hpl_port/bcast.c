/*
 * bcast.c — panel broadcasts along the process row: start, drive, wait. The
 * variants (HPL's rings and spread-roll, and Bolt's own broadcast) are
 * non-blocking state machines, so that the trailing update can drive them
 * between its chunks and a forwarder passes a panel on without waiting for
 * its own update to end.
 */
#include "hpl_port/panel.h"

static const hpl_bcast_ops_t *bcast_ops(int kind)
{
    switch (kind) {
    case HPL_BCAST_LONG:
    case HPL_BCAST_LONGM:
        return &hpl_bcast_long_ops;
    case HPL_BCAST_BOLT:
        return &hpl_bcast_bolt_ops;
    default:
        return &hpl_bcast_ring_ops;
    }
}

int hpl_bcast_peer(const hpl_lu_t *lu, const hpl_panel_t *p, int rr)
{
    return (p->pcol + rr) % lu->g->npcol;
}

int hpl_bcast_tag(const hpl_panel_t *p)
{
    return 16 + (p->k % 8192) * 4;
}

int hpl_req_test(hpl_bcast_t *b, int i, int *done)
{
    *done = 1;
    if (b->req[i] == BOLT_REQUEST_NULL)
        return 0;
    bolt_status_t st;
    int rc = bolt_test(&b->req[i], done, &st);
    if (rc == 0 && *done && st.error)
        rc = st.error;
    return rc;
}

int hpl_reqs_test(hpl_bcast_t *b, int *all)
{
    *all = 1;
    for (int i = 0; i < b->nreq; i++) {
        int done, rc = hpl_req_test(b, i, &done);
        if (rc)
            return rc;
        *all &= done;
    }
    return 0;
}

static int rr_of(const hpl_lu_t *lu, const hpl_panel_t *p)
{
    int q = lu->g->npcol;
    return (lu->g->mycol - p->pcol + q) % q;
}

int hpl_bcast_start(hpl_lu_t *lu, hpl_panel_t *p)
{
    hpl_bcast_t *b = &p->bc;
    int q = lu->g->npcol, rr = rr_of(lu, p);
    b->nreq = 0;
    b->state = 0;
    b->sent = 0;
    b->have = rr == 0;
    b->active = q > 1;
    if (!b->active) {
        b->have = 1;
        return 0;
    }
    double t0 = bolt_wtime();
    int rc = bcast_ops(lu->algo->bcast)->start(lu, p, rr, q);
    lu->t->bcast += bolt_wtime() - t0;
    return rc ? hpl_fail(rc, "panel %d: starting its broadcast along process row %d", p->k,
                         lu->g->myrow)
              : 0;
}

int hpl_bcast_test(hpl_lu_t *lu, hpl_panel_t *p)
{
    if (!p->bc.active)
        return 0;
    double t0 = bolt_wtime();
    int rc = bcast_ops(lu->algo->bcast)->test(lu, p, rr_of(lu, p), lu->g->npcol);
    lu->t->bcast += bolt_wtime() - t0;
    return rc ? hpl_fail(rc, "panel %d: broadcast along process row %d (from process column %d)",
                         p->k, lu->g->myrow, p->pcol)
              : 0;
}

/* Until one request of any broadcast completes: in Bolt's wait, which spins,
 * then yields, then sleeps (ranks that outnumber the cores must not spin
 * in a loop of tests). The requests of all the slots are one array, so the
 * one that completes is cleared in its own slot; the variants see it there. */
static int lu_block(hpl_lu_t *lu, const hpl_panel_t *p)
{
    int idx;
    bolt_status_t st;
    double t0 = bolt_wtime();
    int rc = bolt_waitany(lu->nslot * lu->reqs_per_slot, lu->allreq, &idx, &st);
    lu->t->bcast += bolt_wtime() - t0;
    if (rc == 0 && idx < 0) /* nothing in flight, and still waiting: a bug */
        return hpl_error(BOLT_ERR_INTERNAL, "panel %d: waiting for a broadcast with nothing in flight",
                         p->k);
    if (rc == 0 && st.error)
        rc = st.error;
    if (rc)
        return hpl_fail(rc, "panel %d: broadcast along process row %d (from process column %d)", p->k,
                        lu->g->myrow, p->pcol);
    return hpl_lu_poll(lu);
}

int hpl_bcast_wait_data(hpl_lu_t *lu, hpl_panel_t *p)
{
    int rc = hpl_lu_poll(lu);
    while (rc == 0 && !p->bc.have)
        rc = lu_block(lu, p);
    return rc;
}

int hpl_bcast_finish(hpl_lu_t *lu, hpl_panel_t *p)
{
    int rc = hpl_lu_poll(lu);
    while (rc == 0 && p->bc.active)
        rc = lu_block(lu, p);
    return rc;
}
