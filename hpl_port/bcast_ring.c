/*
 * bcast_ring.c — HPL's ring broadcasts of a panel along the process row:
 *   1ring   the root sends to its right neighbour, each passes it on;
 *   1ringM  the same, but the root's neighbour (the next panel's owner) gets
 *           it alone, straight from the root, and the ring starts after it;
 *   2ring   the root starts two rings, over each half of the row;
 *   2ringM  the neighbour first, then two rings over the rest.
 * Positions are distances from the root (rr); a receiver forwards to at most
 * one process, the root sends to up to three.
 */
#include "hpl_port/panel.h"

/* Whom rr receives from (-1: the root) and sends to (up to 3, the first is
 * sent first). Returns how many it sends to. */
static int ring_shape(int kind, int rr, int q, int *from, int to[3])
{
    int modified = kind == HPL_BCAST_1RINGM || kind == HPL_BCAST_2RINGM;
    int two = kind == HPL_BCAST_2RING || kind == HPL_BCAST_2RINGM;
    int first = modified ? 2 : 1; /* first position of the ring(s) */
    /* ring positions first..q-1; with two rings the second starts at mid */
    int mid = two ? first + (q - first + 1) / 2 : q;
    int n = 0;
    if (rr == 0) {
        *from = -1;
        if (modified && q > 1)
            to[n++] = 1;
        if (first < q)
            to[n++] = first;
        if (two && mid < q && mid != first)
            to[n++] = mid;
        return n;
    }
    if (modified && rr == 1) {
        *from = 0;
        return 0;
    }
    *from = (rr == first || rr == mid) ? 0 : rr - 1;
    int next = rr + 1, end = rr < mid ? mid : q;
    if (next < end)
        to[n++] = next;
    return n;
}

static int ring_send(hpl_lu_t *lu, hpl_panel_t *p, int rr_to)
{
    hpl_bcast_t *b = &p->bc;
    return bolt_isend_overlap(p->buf, p->count * sizeof(double), hpl_bcast_peer(lu, p, rr_to),
                      hpl_bcast_tag(p), lu->g->row, &b->req[b->nreq++]);
}

static int ring_start(hpl_lu_t *lu, hpl_panel_t *p, int rr, int q)
{
    int from, to[3], nto = ring_shape(lu->algo->bcast, rr, q, &from, to);
    hpl_bcast_t *b = &p->bc;
    if (rr == 0) {
        for (int i = 0; i < nto; i++) {
            int rc = ring_send(lu, p, to[i]);
            if (rc)
                return rc;
        }
        b->state = 1; /* sending */
        return 0;
    }
    b->state = 0; /* receiving */
    return bolt_irecv(p->buf, p->count * sizeof(double), hpl_bcast_peer(lu, p, from),
                      hpl_bcast_tag(p), lu->g->row, &b->req[b->nreq++]);
}

static int ring_test(hpl_lu_t *lu, hpl_panel_t *p, int rr, int q)
{
    hpl_bcast_t *b = &p->bc;
    int done, rc;
    if (b->state == 0) {
        if ((rc = hpl_req_test(b, 0, &done)) || !done)
            return rc;
        b->have = 1;
        int from, to[3], nto = ring_shape(lu->algo->bcast, rr, q, &from, to);
        if (nto > 0 && (rc = ring_send(lu, p, to[0])))
            return rc;
        b->state = 1;
    }
    if ((rc = hpl_reqs_test(b, &done)))
        return rc;
    if (done)
        b->active = 0;
    return 0;
}

const hpl_bcast_ops_t hpl_bcast_ring_ops = {ring_start, ring_test};
