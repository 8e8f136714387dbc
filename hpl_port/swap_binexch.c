/*
 * swap_binexch.c — SWAP 0, binary exchange: every process of the column
 * packs the rows it contributes (its rows of U; prow also the displaced top
 * rows), and the blocks are all-gathered by recursive doubling: log2(P)
 * exchanges with the process 1, 2, 4... rows away, each sending everything
 * gathered so far. Few steps, so it suits few columns. With P not a power of
 * two, the processes past the largest power fold into a partner first and
 * get the whole result from it at the end.
 */
#include "hpl_port/swap.h"

#define TAG_RD 101

int hpl_swap_binexch(hpl_swap_t *s)
{
    hpl_lu_t *lu = s->lu;
    const int P = lu->g->nprow, me = lu->g->myrow, prow = s->p->prow;
    const size_t nn = (size_t)s->nn;
    int *rows = s->scratch, *role = rows + 2 * s->p->jb;
    size_t *off = lu->swapoff; /* [P + 1] block offsets, in doubles */
    off[0] = 0;
    for (int r = 0; r < P; r++)
        off[r + 1] = off[r] + ((size_t)s->nu[r] + (r == prow ? (size_t)s->nout : 0)) * nn;
    double *buf = lu->swapbuf;
    int n = hpl_swap_rows_of(s, me, 1, rows, role);
    hpl_swap_pack(s, rows, n, buf + off[me]);

    bolt_comm_t col = lu->g->col;
    int pof2 = 1, rc = 0;
    while (pof2 * 2 <= P)
        pof2 *= 2;
#define SPAN(a, b) (buf + off[a]), ((off[b] - off[a]) * sizeof(double))
    if (me >= pof2) {
        if ((rc = bolt_send(SPAN(me, me + 1), me - pof2, TAG_RD, col)) ||
            (rc = bolt_recv(SPAN(0, P), me - pof2, TAG_RD, col, NULL)))
            return hpl_fail(rc, "row swaps (bin-exch) with process row %d", me - pof2);
    } else {
        if (me + pof2 < P && (rc = bolt_recv(SPAN(me + pof2, me + pof2 + 1), me + pof2, TAG_RD, col, NULL)))
            return hpl_fail(rc, "row swaps (bin-exch) from process row %d", me + pof2);
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int partner = me ^ mask, base = me & ~(mask - 1), pbase = partner & ~(mask - 1);
            int nr = 0;
            bolt_request_t *req = lu->sreq;
            /* my group's blocks and their folded partners' (if any), and the partner's */
            rc = bolt_isend(SPAN(base, base + mask), partner, TAG_RD, col, &req[nr++]);
            if (!rc && base + pof2 < P) {
                int e = base + mask + pof2 < P ? base + mask + pof2 : P;
                rc = bolt_isend(SPAN(base + pof2, e), partner, TAG_RD, col, &req[nr++]);
            }
            if (!rc)
                rc = bolt_irecv(SPAN(pbase, pbase + mask), partner, TAG_RD, col, &req[nr++]);
            if (!rc && pbase + pof2 < P) {
                int e = pbase + mask + pof2 < P ? pbase + mask + pof2 : P;
                rc = bolt_irecv(SPAN(pbase + pof2, e), partner, TAG_RD, col, &req[nr++]);
            }
            if (!rc)
                rc = bolt_waitall(nr, req, NULL);
            if (rc)
                return hpl_fail(rc, "row swaps (bin-exch) with process row %d", partner);
        }
        if (me + pof2 < P && (rc = bolt_send(SPAN(0, P), me + pof2, TAG_RD, col)))
            return hpl_fail(rc, "row swaps (bin-exch) to process row %d", me + pof2);
    }
#undef SPAN
    for (int r = 0; r < P; r++) {
        int nr = hpl_swap_rows_of(s, r, 1, rows, role);
        hpl_swap_unpack(s, role, nr, buf + off[r]);
    }
    return 0;
}
