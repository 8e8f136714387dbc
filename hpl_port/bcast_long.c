/*
 * bcast_long.c — HPL's spread-roll broadcasts of a panel along the row:
 *   long   the panel is cut into one piece per receiver; the root sends each
 *          receiver its piece (spread), then the receivers pass the pieces
 *          round their ring until every one has them all (roll). The root
 *          sends the panel once and every link carries it about once, which
 *          suits large panels;
 *   longM  the root's neighbour (the next panel's owner) first gets the whole
 *          panel from the root, then the others spread and roll.
 * Requests: [0] the own piece (or, for longM's neighbour, the whole panel);
 * [1..m-1] the pieces from the left neighbour, in the order it sends them;
 * [m..] the sends (the root's m, or a receiver's m - 1).
 */
#include "hpl_port/panel.h"

/* Receivers of the spread: distances first..q-1 from the root. */
static int long_first(const hpl_lu_t *lu, int q)
{
    return lu->algo->bcast == HPL_BCAST_LONGM && q > 2 ? 2 : 1;
}

static void piece(const hpl_panel_t *p, int m, int i, size_t *off, size_t *len)
{
    size_t a = p->count * (size_t)i / (size_t)m, e = p->count * (size_t)(i + 1) / (size_t)m;
    *off = a;
    *len = e - a;
}

static int long_isend(hpl_lu_t *lu, hpl_panel_t *p, int rr_to, size_t off, size_t len)
{
    hpl_bcast_t *b = &p->bc;
    return bolt_isend_overlap(p->buf + off, len * sizeof(double), hpl_bcast_peer(lu, p, rr_to),
                      hpl_bcast_tag(p), lu->g->row, &b->req[b->nreq++]);
}

static int long_irecv(hpl_lu_t *lu, hpl_panel_t *p, int rr_from, size_t off, size_t len, int slot)
{
    return bolt_irecv(p->buf + off, len * sizeof(double), hpl_bcast_peer(lu, p, rr_from),
                      hpl_bcast_tag(p), lu->g->row, &p->bc.req[slot]);
}

static int long_start(hpl_lu_t *lu, hpl_panel_t *p, int rr, int q)
{
    hpl_bcast_t *b = &p->bc;
    int first = long_first(lu, q), m = q - first, rc;
    size_t off, len;
    if (rr == 0) {
        b->nreq = 0;
        if (first == 2 && (rc = long_isend(lu, p, 1, 0, p->count)))
            return rc;
        for (int i = 0; i < m; i++) {
            piece(p, m, i, &off, &len);
            if ((rc = long_isend(lu, p, first + i, off, len)))
                return rc;
        }
        return 0;
    }
    if (rr < first) { /* longM's neighbour: the whole panel, nothing to pass on */
        b->nreq = 1;
        return long_irecv(lu, p, 0, 0, p->count, 0);
    }
    int i = rr - first, left = first + (i - 1 + m) % m;
    b->nreq = m; /* the receives; the sends follow */
    piece(p, m, i, &off, &len);
    if ((rc = long_irecv(lu, p, 0, off, len, 0)))
        return rc;
    for (int s = 1; s < m; s++) { /* piece i - s comes s-th from the left */
        piece(p, m, (i - s + m) % m, &off, &len);
        if ((rc = long_irecv(lu, p, left, off, len, s)))
            return rc;
    }
    return 0;
}

static int long_test(hpl_lu_t *lu, hpl_panel_t *p, int rr, int q)
{
    hpl_bcast_t *b = &p->bc;
    int first = long_first(lu, q), m = q - first, done, rc;
    if (rr >= first) {
        /* receiver i sends pieces i, i-1, ..., i-m+2 to its right, in that
         * order, each once it is here (piece i-m+1 is the right's own) */
        int i = rr - first, right = first + (i + 1) % m;
        while (b->sent < m - 1) {
            if ((rc = hpl_req_test(b, b->sent, &done)) || !done)
                break;
            size_t off, len;
            piece(p, m, (i - b->sent + m) % m, &off, &len);
            if ((rc = long_isend(lu, p, right, off, len)))
                return rc;
            b->sent++;
        }
        if (rc)
            return rc;
    }
    if ((rc = hpl_reqs_test(b, &done)))
        return rc;
    if (rr > 0 && !b->have) {
        int all = 1;
        for (int s = 0; s < (rr < first ? 1 : m) && all; s++)
            all = b->req[s] == BOLT_REQUEST_NULL;
        b->have = all;
    }
    if (done && (rr == 0 || rr < first || b->sent == m - 1))
        b->active = 0;
    return 0;
}

const hpl_bcast_ops_t hpl_bcast_long_ops = {long_start, long_test};
