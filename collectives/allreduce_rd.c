/*
 * allreduce_rd.c — all-reduce by recursive doubling: log2(p) steps, each
 * exchanging the whole vector with the partner across one bit of the rank.
 *
 * Not a power of two: the first 2*rem ranks pair up (even into odd) before,
 * and the odd ones hand the result back after. Partners combine as
 * (lower ranks) op (higher ranks), with the same operands on both sides, so
 * they get the same bits, and non-commutative ops stay in rank order.
 */
#include "collectives/coll.h"

/* Rank of participant newrank after the fold. */
static int rd_rank(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

int coll_allreduce_rd(struct coll_sched *s, const void *in, void *buf, size_t count,
                      bolt_datatype_t dt, bolt_op_t op)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank, p = coll_pof2_floor(n), rem = n - p;
    size_t bytes = count * bolt_type_size(dt);
    coll_sched_copy(s, buf, in, bytes);
    if (n == 1)
        return coll_sched_error(s);
    char *tmp = coll_sched_tmp(s, bytes);
    char *cur = buf, *other = tmp; /* cur holds this rank's partial result */
    /* The same bytes as cur, never written here: sent instead of cur, so the
     * reduction that follows does not write lines the partner just read. */
    const char *out = in;
    int newrank;
    if (r < 2 * rem && r % 2 == 0) {
        coll_sched_send(s, out, bytes, r + 1);
        coll_sched_round(s);
        newrank = -1;
    } else if (r < 2 * rem) {
        coll_sched_recv(s, other, bytes, r - 1);
        coll_sched_round(s);
        coll_sched_reduce(s, other, cur, count, dt, op);
        out = cur;
        newrank = r / 2;
    } else {
        newrank = r - rem;
    }
    for (int mask = 1; newrank >= 0 && mask < p; mask <<= 1) {
        int partner = rd_rank(newrank ^ mask, rem);
        coll_sched_send(s, out, bytes, partner);
        coll_sched_recv(s, other, bytes, partner);
        coll_sched_round(s);
        if (partner < r) {
            coll_sched_reduce(s, other, cur, count, dt, op);
        } else {
            coll_sched_reduce(s, cur, other, count, dt, op);
            char *t = cur;
            cur = other;
            other = t;
        }
        out = cur;
    }
    coll_sched_copy(s, buf, cur, bytes);
    if (r < 2 * rem) {
        if (r % 2)
            coll_sched_send(s, buf, bytes, r - 1);
        else
            coll_sched_recv(s, buf, bytes, r + 1);
        coll_sched_round(s);
    }
    return coll_sched_error(s);
}
