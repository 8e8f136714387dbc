/*
 * swap_long.c — SWAP 1, long (spread-roll): prow sends each displaced top
 * row straight to the owner of its new place; U's rows go round the column's
 * ring (roll), each process passing on what it got the step before, P - 1
 * steps in all, every link carrying U about once: the choice for many
 * columns. With equilibration (HPL.dat's EQUIL), U's rows are first spread
 * so that each process starts the roll with jb / P of them, in order (so the
 * ring's steps are even); without it each rolls the rows it holds.
 */
#include <stdlib.h>

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

/* Equilibration: my share of U's rows, in order, into piece (ld = its row
 * count), from my own rows of A and from what the others send; requests
 * from req on (the displaced rows' are before). */
static int long_equil(hpl_swap_t *s, double *piece, double *stage, bolt_request_t *req)
{
    hpl_lu_t *lu = s->lu;
    const hpl_mat_t *m = lu->m;
    const int P = lu->g->nprow, me = lu->g->myrow, jb = s->p->jb, nb = m->nb;
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
    if (!rc)
        rc = bolt_waitall(nr, req, NULL);
    if (rc)
        return hpl_fail(rc, "row swaps (long): equilibrating U's rows over process column %d",
                        lu->g->mycol);
    /* where each row of my share comes from: A (my rows) or a sender's block,
     * which holds its rows of my share in order */
    const double **from = malloc((size_t)(npiece > 0 ? npiece : 1) * sizeof *from);
    size_t *ld = malloc((size_t)(npiece > 0 ? npiece : 1) * sizeof *ld);
    if (!from || !ld) {
        free(from);
        free(ld);
        return hpl_error(BOLT_ERR_NOMEM, "row swaps (long): out of memory");
    }
    const double *a = m->a + (size_t)s->c0 * m->lda;
    for (int c = lo; c < lo + npiece; c++) {
        int own = hpl_owner(s->src[c], nb, P);
        if (own == me) {
            from[c - lo] = a + hpl_numroc(s->src[c], nb, me, P);
            ld[c - lo] = m->lda;
        } else {
            from[c - lo] = in + inoff[own] + taken[own]++;
            ld[c - lo] = (size_t)nin[own];
        }
    }
    for (size_t col = 0; col < nn; col++)
        for (int r = 0; r < npiece; r++)
            piece[col * (size_t)npiece + (size_t)r] = from[r][col * ld[r]];
    free(from);
    free(ld);
    return 0;
}

/* Outs whose new place process row q holds, in order: their roles. */
static int outs_of(const hpl_swap_t *s, int q, int *role)
{
    int n = 0;
    for (int o = 0; o < s->nout; o++)
        if (hpl_owner(s->outpos[o], s->lu->m->nb, s->lu->g->nprow) == q)
            role[n++] = -1 - o;
    return n;
}

int hpl_swap_long(hpl_swap_t *s)
{
    hpl_lu_t *lu = s->lu;
    const int P = lu->g->nprow, me = lu->g->myrow, prow = s->p->prow, jb = s->p->jb;
    const size_t nn = (size_t)s->nn;
    const int equil = lu->algo->equil && P > 2; /* with two the roll is one exchange: nothing to even out */
    bolt_comm_t col = lu->g->col;
    int *rows = s->scratch, *role = rows + 2 * jb;
    /* swapbuf: [ pieces of U (jb x nn) | displaced rows (jb x nn) | staging (2 jb x nn) ] */
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
    size_t mine_off = 0; /* prow: where the block it keeps starts in outs */
    int mine_n = 0;
    if (me == prow) {
        /* the displaced rows, grouped by destination */
        size_t o_off = 0;
        for (int q = 0; q < P && !rc; q++) {
            int n = outs_of(s, q, role);
            if (n == 0)
                continue;
            for (int i = 0; i < n; i++)
                rows[i] = s->outsrc[-1 - role[i]];
            hpl_swap_pack(s, rows, n, outs + o_off);
            if (q != me) {
                rc = bolt_isend(outs + o_off, (size_t)n * nn * sizeof(double), q, TAG_OUT, col,
                                &req[nreq++]);
            } else {
                mine_off = o_off;
                mine_n = n;
            }
            o_off += (size_t)n * nn;
        }
    } else {
        int n = outs_of(s, me, role);
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
    if (nreq)
        rc = bolt_waitall(nreq, req, NULL);
    if (!rc && out_req != BOLT_REQUEST_NULL)
        rc = bolt_wait(&out_req, NULL);
    if (rc)
        return hpl_fail(rc, "row swaps (long): displaced rows over process column %d", lu->g->mycol);

    /* U's rows, then my displaced rows (prow: those it keeps; others: what came) */
    for (int r = 0; r < P; r++) {
        int n;
        if (equil) {
            int lo = share_lo(r, jb, P);
            n = share_lo(r + 1, jb, P) - lo;
            for (int i = 0; i < n; i++)
                role[i] = lo + i;
        } else {
            n = hpl_swap_rows_of(s, r, 0, rows, role);
        }
        hpl_swap_unpack(s, role, n, pieces + poff[r]);
    }
    if (me == prow) {
        outs_of(s, me, role);
        hpl_swap_unpack(s, role, mine_n, outs + mine_off);
    } else {
        int n = outs_of(s, me, role);
        hpl_swap_unpack(s, role, n, outs);
    }
    return 0;
}
