/*
 * allreduce_rabenseifner.c — Rabenseifner's all-reduce: reduce-scatter by
 * recursive halving, then all-gather by recursive doubling: 2 log2(p) steps
 * moving 2(p-1)/p of the vector.
 *
 * The halving pairs ranks at distance 1, 2, 4, ..., so at every step two
 * aligned groups of consecutive ranks combine, lower group first: rank order
 * holds (non-commutative ops are fine). Each block is reduced by one rank
 * only, then gathered, so all ranks get the same bits. Not a power of two:
 * fold the first 2*rem ranks in pairs as recursive doubling does.
 */
#include "collectives/coll.h"

#define MAX_LEVELS 32

int coll_allreduce_rabenseifner(struct coll_sched *s, const void *in, void *vbuf, size_t count,
                                bolt_datatype_t dt, bolt_op_t op)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank, p = coll_pof2_floor(n), rem = n - p, newrank;
    size_t esize = bolt_type_size(dt), bytes = count * esize;
    char *buf = vbuf;
    coll_sched_copy(s, buf, in, bytes);
    if (n == 1)
        return coll_sched_error(s);
    char *tmp = coll_sched_tmp(s, bytes);
    if (r < 2 * rem && r % 2 == 0) {
        coll_sched_send(s, buf, bytes, r + 1);
        coll_sched_round(s);
        newrank = -1;
    } else if (r < 2 * rem) {
        coll_sched_recv(s, tmp, bytes, r - 1);
        coll_sched_round(s);
        coll_sched_reduce(s, tmp, buf, count, dt, op);
        newrank = r / 2;
    } else {
        newrank = r - rem;
    }
    if (newrank >= 0) {
        /* Blocks of the vector are in units of count/p; lo/hi[k] is this
         * rank's block range before halving step k. */
        int lo[MAX_LEVELS + 1], hi[MAX_LEVELS + 1], k = 0;
        lo[0] = 0;
        hi[0] = p;
        for (int mask = 1; mask < p; mask <<= 1, k++) {
            int partner = newrank ^ mask, mid = (lo[k] + hi[k]) / 2;
            int keep_low = !(newrank & mask);
            int klo = keep_low ? lo[k] : mid, khi = keep_low ? mid : hi[k];
            int slo = keep_low ? mid : lo[k], shi = keep_low ? hi[k] : mid;
            int prank = partner < rem ? partner * 2 + 1 : partner + rem;
            size_t ko = coll_part_start(count, p, klo), kn = coll_part_start(count, p, khi) - ko;
            size_t so = coll_part_start(count, p, slo), sn = coll_part_start(count, p, shi) - so;
            coll_sched_send(s, buf + so * esize, sn * esize, prank);
            coll_sched_recv(s, tmp + ko * esize, kn * esize, prank);
            coll_sched_round(s);
            if (prank < r) {
                coll_sched_reduce(s, tmp + ko * esize, buf + ko * esize, kn, dt, op);
            } else {
                coll_sched_reduce(s, buf + ko * esize, tmp + ko * esize, kn, dt, op);
                coll_sched_copy(s, buf + ko * esize, tmp + ko * esize, kn * esize);
            }
            lo[k + 1] = klo;
            hi[k + 1] = khi;
        }
        for (int mask = p >> 1; mask >= 1; mask >>= 1) {
            k--;
            int partner = newrank ^ mask;
            int prank = partner < rem ? partner * 2 + 1 : partner + rem;
            /* The partner holds the other half of range k. */
            int olo = lo[k + 1] == lo[k] ? hi[k + 1] : lo[k];
            int ohi = lo[k + 1] == lo[k] ? hi[k] : lo[k + 1];
            size_t mo = coll_part_start(count, p, lo[k + 1]);
            size_t mn = coll_part_start(count, p, hi[k + 1]) - mo;
            size_t oo = coll_part_start(count, p, olo), on = coll_part_start(count, p, ohi) - oo;
            coll_sched_send(s, buf + mo * esize, mn * esize, prank);
            coll_sched_recv(s, buf + oo * esize, on * esize, prank);
            coll_sched_round(s);
        }
    }
    if (r < 2 * rem) {
        if (r % 2)
            coll_sched_send(s, buf, bytes, r - 1);
        else
            coll_sched_recv(s, buf, bytes, r + 1);
        coll_sched_round(s);
    }
    return coll_sched_error(s);
}
