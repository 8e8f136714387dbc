/*
 * swap_long.c — SWAP 1, long (spread-roll): prow sends each displaced top
 * row straight to the owner of its new place; U's rows go round the column's
 * ring (roll), each process passing on what it got the step before, P - 1
 * steps in all, every link carrying U about once: the choice for many
 * columns. With equilibration (HPL.dat's EQUIL), U's rows are first spread
 * so that each process starts the roll with jb / P of them, in order (so the
 * ring's steps are even); without it each rolls the rows it holds.
 */
#include "hpl_port/swap.h"

#define TAG_OUT 111
#define TAG_EQUIL 112
#define TAG_ROLL 113

/* Shares of U's rows, in order: process row pr's starts at row share_lo(pr). */
static int share_lo(int pr, int jb, int P)
{
    return (int)((long)jb * pr / P);
}

static int share_owner(int c, int jb, int P)
{
    return (int)(((long)(c + 1) * P - 1) / jb);
}

/* Copies row r of blk (ld ldb) to row rd of dst (ld ldd), nn columns. */
static void row_copy(const double *blk, int ldb, int r, double *dst, int ldd, int rd, size_t nn)
{
    for (size_t col = 0; col < nn; col++)
        dst[col * (size_t)ldd + (size_t)rd] = blk[col * (size_t)ldb + (size_t)r];
}

/* Equilibration: my share of U's rows, in order, into piece (ld = share);
 * its requests from req on (the displaced rows' are before). */
static int long_equil(hpl_swap_t *s, double *piece, double *stage, bolt_request_t *req)
{
    hpl_lu_t *lu = s->lu;
    const int P = lu->g->nprow, me = lu->g->myrow, jb = s->p->jb, nb = lu->m->nb;
    const size_t nn = (size_t)s->nn;
    int *rows = s->scratch, *nin = rows + jb, *taken = nin + P, *nout = taken + P;
    size_t *inoff = lu->swapoff;
    int nr = 0, rc = 0;
    const int lo = share_lo(me, jb, P), npiece = share_lo(me + 1, jb, P) - lo;
    for (int q = 0; q < P; q++)
        nin[q] = nout[q] = taken[q] = 0;
    for (int c = 0; c < jb; c++) {
        int own = hpl_owner(s->src[c], nb, P), sh = share_owner(c, jb, P);
        if (own == me && sh != me)
            nout[sh]++;
        if (sh == me && own != me)
            nin[own]++;
    }
    double *out = stage, *in = stage + (size_t)jb * nn;
    size_t oo = 0, io = 0;
    for (int q = 0; q < P && !rc; q++) {
        inoff[q] = io;
        if (nout[q]) {
            int n = 0;
            for (int c = 0; c < jb; c++)
                if (hpl_owner(s->src[c], nb, P) == me && share_owner(c, jb, P) == q)
                    rows[n++] = s->src[c];
            hpl_swap_pack(s, rows, n, out + oo);
            rc = bolt_isend(out + oo, (size_t)n * nn * sizeof(double), q, TAG_EQUIL, lu->g->col,
                            &req[nr++]);
            oo += (size_t)n * nn;
        }
        if (!rc && nin[q]) {
            rc = bolt_irecv(in + io, (size_t)nin[q] * nn * sizeof(double), q, TAG_EQUIL, lu->g->col,
                            &req[nr++]);
            io += (size_t)nin[q] * nn;
        }
    }
    /* my own rows of my share, while the others' come */
    for (int c = lo; !rc && c < lo + npiece; c++)
        if (hpl_owner(s->src[c], nb, P) == me) {
            hpl_swap_pack(s, &s->src[c], 1, out + oo);
            row_copy(out + oo, 1, 0, piece, npiece, c - lo, nn);
        }
    if (!rc)
        rc = bolt_waitall(nr, req, NULL);
    if (rc)
        return hpl_fail(rc, "row swaps (long): equilibrating U's rows over process column %d",
                        lu->g->mycol);
    /* each sender's block holds its rows of my share in order */
    for (int c = lo; c < lo + npiece; c++) {
        int own = hpl_owner(s->src[c], nb, P);
        if (own != me)
            row_copy(in + inoff[own], nin[own], taken[own]++, piece, npiece, c - lo, nn);
    }
    return 0;
}

int hpl_swap_long(hpl_swap_t *s)
{
    hpl_lu_t *lu = s->lu;
    const int P = lu->g->nprow, me = lu->g->myrow, prow = s->p->prow, jb = s->p->jb, nb = lu->m->nb;
    const size_t nn = (size_t)s->nn;
    const int equil = lu->algo->equil;
    bolt_comm_t col = lu->g->col;
    int *rows = s->scratch, *role = rows + 2 * jb;
    /* swapbuf: [ pieces of U (jb x nn) | displaced rows (jb x nn) | staging (2 jb x nn + nn) ] */
    double *pieces = lu->swapbuf, *outs = pieces + (size_t)jb * nn, *stage = outs + (size_t)jb * nn;
    size_t *poff = lu->swapoff + P + 1; /* [P + 1] piece offsets, in doubles */
    int rc = 0, nreq = 0;
    bolt_request_t out_req = BOLT_REQUEST_NULL;
    bolt_request_t *req = lu->sreq;

    /* pieces: each process row's rows of U, as it starts the roll */
    poff[0] = 0;
    for (int r = 0; r < P; r++) {
        int n = equil ? share_lo(r + 1, jb, P) - share_lo(r, jb, P) : s->nu[r];
        poff[r + 1] = poff[r] + (size_t)n * nn;
    }

    /* everything this process sends is packed before anything lands in A */
    if (me == prow) {
        /* the displaced rows, grouped by destination (in order within each) */
        size_t o_off = 0;
        for (int q = 0; q < P && !rc; q++) {
            int n = 0;
            for (int o = 0; o < s->nout; o++)
                if (hpl_owner(s->outpos[o], nb, P) == q) {
                    rows[n] = s->outsrc[o];
                    role[n++] = -1 - o;
                }
            if (n == 0)
                continue;
            hpl_swap_pack(s, rows, n, outs + o_off);
            if (q != me)
                rc = bolt_isend(outs + o_off, (size_t)n * nn * sizeof(double), q, TAG_OUT, col,
                                &req[nreq++]);
            o_off += (size_t)n * nn;
        }
    } else {
        int n = 0;
        for (int o = 0; o < s->nout; o++)
            n += hpl_owner(s->outpos[o], nb, P) == me;
        if (n)
            rc = bolt_irecv(outs, (size_t)n * nn * sizeof(double), prow, TAG_OUT, col, &out_req);
    }
    if (rc)
        return hpl_fail(rc, "row swaps (long): displaced rows from process row %d", prow);

    if (equil) {
        if ((rc = long_equil(s, pieces + poff[me], stage, req + nreq)))
            return rc;
    } else {
        int n = hpl_swap_rows_of(s, me, 0, rows, role);
        hpl_swap_pack(s, rows, n, pieces + poff[me]);
    }

    /* the roll: at step k, pass on the piece of (me - k + 1), get that of (me - k) */
    int right = (me + 1) % P, left = (me - 1 + P) % P;
    for (int k = 1; k < P && !rc; k++) {
        int ps = (me - k + 1 + P) % P, pr = (me - k + P) % P;
        rc = bolt_sendrecv(pieces + poff[ps], (poff[ps + 1] - poff[ps]) * sizeof(double), right,
                           TAG_ROLL, pieces + poff[pr], (poff[pr + 1] - poff[pr]) * sizeof(double),
                           left, TAG_ROLL, col, NULL);
    }
    if (rc)
        return hpl_fail(rc, "row swaps (long): rolling U's rows round process column %d",
                        lu->g->mycol);

    if (!rc && nreq)
        rc = bolt_waitall(nreq, req, NULL);
    if (!rc && out_req != BOLT_REQUEST_NULL)
        rc = bolt_wait(&out_req, NULL);
    if (rc)
        return hpl_fail(rc, "row swaps (long): displaced rows over process column %d", lu->g->mycol);

    /* U's rows, then my displaced rows (prow: those it keeps; others: what came) */
    for (int r = 0; r < P; r++) {
        if (equil) {
            int lo = share_lo(r, jb, P), n = share_lo(r + 1, jb, P) - lo;
            for (int i = 0; i < n; i++)
                hpl_swap_place(s, lo + i, pieces + poff[r], n, i);
        } else {
            hpl_swap_place_all(s, r, 0, pieces + poff[r], rows, role);
        }
    }
    if (me == prow) {
        /* my own block among the displaced ones: find it again */
        size_t o_off = 0;
        for (int q = 0; q < P; q++) {
            int n = 0;
            for (int o = 0; o < s->nout; o++)
                if (hpl_owner(s->outpos[o], nb, P) == q)
                    role[n++] = -1 - o;
            if (q == me)
                for (int i = 0; i < n; i++)
                    hpl_swap_place(s, role[i], outs + o_off, n, i);
            o_off += (size_t)n * nn;
        }
    } else {
        int n = 0;
        for (int o = 0; o < s->nout; o++)
            if (hpl_owner(s->outpos[o], nb, P) == me)
                role[n++] = -1 - o;
        for (int i = 0; i < n; i++)
            hpl_swap_place(s, role[i], outs, n, i);
    }
    return 0;
}
