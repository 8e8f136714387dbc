/*
 * allreduce_rd.c — all-reduce by recursive doubling: log2(p) steps, each
 * exchanging the whole vector with the partner across one bit of the rank.
 *
 * Not a power of two: the first 2*rem ranks pair up (even into odd) before,
 * and the odd ones hand the result back after. Partners combine as
 * (lower ranks) op (higher ranks), with the same operands on both sides, so
 * they get the same bits, and non-commutative ops stay in rank order.
 */
#include <string.h>

#include "collectives/coll.h"

/* Rank of participant newrank after the fold. */
static int rd_rank(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

/* Where a rank is: before the fold (PRE), at the doubling step of mask
 * (LOOP), or handing the result back (POST); sent: that step's send went. */
enum { PRE, LOOP, POST };
struct rd_state {
    char *cur, *other; /* cur holds this rank's partial result */
    const char *out;   /* the same bytes as cur, sent instead of it (below) */
    int newrank, mask, stage, sent;
};

/* The steps of this rank from where q is to the end. */
static int rd_from(struct coll_sched *s, struct rd_state *q, void *buf, size_t count, bolt_datatype_t dt,
                   bolt_op_t op)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank, p = coll_pof2_floor(n), rem = n - p;
    size_t bytes = count * bolt_type_size(dt);
    if (q->stage == PRE) {
        if (r < 2 * rem && r % 2 == 0) {
            if (!q->sent)
                coll_sched_send(s, q->out, bytes, r + 1);
            coll_sched_round(s);
            q->newrank = -1;
        } else if (r < 2 * rem) {
            coll_sched_recv(s, q->other, bytes, r - 1);
            coll_sched_round(s);
            coll_sched_reduce(s, q->other, q->cur, count, dt, op);
            q->out = q->cur;
            q->newrank = r / 2;
        } else {
            q->newrank = r - rem;
        }
        q->stage = LOOP;
        q->mask = 1;
        q->sent = 0;
    }
    for (; q->stage == LOOP && q->newrank >= 0 && q->mask < p; q->mask <<= 1) {
        int partner = rd_rank(q->newrank ^ q->mask, rem);
        if (!q->sent)
            coll_sched_send(s, q->out, bytes, partner);
        q->sent = 0;
        coll_sched_recv(s, q->other, bytes, partner);
        coll_sched_round(s);
        if (partner < r) {
            coll_sched_reduce(s, q->other, q->cur, count, dt, op);
        } else {
            coll_sched_reduce(s, q->cur, q->other, count, dt, op);
            char *t = q->cur;
            q->cur = q->other;
            q->other = t;
        }
        q->out = q->cur;
    }
    if (q->stage == LOOP) {
        coll_sched_copy(s, buf, q->cur, bytes);
        q->stage = POST;
    }
    if (r < 2 * rem) {
        if (r % 2 && !q->sent)
            coll_sched_send(s, buf, bytes, r - 1);
        else if (r % 2 == 0)
            coll_sched_recv(s, buf, bytes, r + 1);
        coll_sched_round(s);
    }
    return coll_sched_error(s);
}

int coll_allreduce_rd(struct coll_sched *s, const void *in, void *buf, size_t count,
                      bolt_datatype_t dt, bolt_op_t op)
{
    size_t bytes = count * bolt_type_size(dt);
    coll_sched_copy(s, buf, in, bytes);
    if (coll_sched_comm(s)->size == 1)
        return coll_sched_error(s);
    /* out: the same bytes as cur, never written here: sent instead of cur,
     * so the reduction that follows does not write lines the partner just
     * read. */
    struct rd_state q = {.cur = buf, .other = coll_sched_tmp(s, bytes), .out = in, .stage = PRE};
    return rd_from(s, &q, buf, count, dt, op);
}

/* The rest from q as a schedule under the tag so far. */
static int rd_rest(struct bolt_comm *c, int tag, struct rd_state *q, void *buf, size_t count, bolt_datatype_t dt,
                   bolt_op_t op, const char *fn)
{
    struct coll_sched *s = coll_sched_resume(c, fn, "rd", COLL_EXCHANGE | COLL_BLOCKING, tag);
    if (!s)
        return coll_launch(s, NULL, fn);
    rd_from(s, q, buf, count, dt, op);
    return coll_launch(s, NULL, fn);
}

/* Small all-reduces without a schedule (as coll_reduce_binomial_now): the
 * same partners and operand order, each block taken as it arrives, sent at
 * once, the partner's in a buffer on the stack. */
int coll_allreduce_rd_now(struct bolt_comm *c, const void *in, void *buf, size_t count, bolt_datatype_t dt,
                          bolt_op_t op, const char *fn)
{
    const size_t bytes = count * bolt_type_size(dt);
    if (bytes > COLL_NOW_MAX)
        return COLL_NOT_NOW;
    int n = c->size, r = c->rank, p = coll_pof2_floor(n), rem = n - p;
    const int tag = coll_tag_take(c);
    _Alignas(64) unsigned char tmp[COLL_NOW_MAX];
    struct rd_state q = {.cur = buf, .other = (char *)tmp, .out = in, .stage = PRE};
    memmove(buf, in, bytes);
    if (r < 2 * rem && r % 2 == 0) {
        if (!coll_send_now(c, q.out, bytes, r + 1, tag))
            return rd_rest(c, tag, &q, buf, count, dt, op, fn);
        q.newrank = -1;
    } else if (r < 2 * rem) {
        if (!coll_take_now(c, q.other, bytes, r - 1, tag))
            return rd_rest(c, tag, &q, buf, count, dt, op, fn);
        coll_reduce(q.other, q.cur, count, dt, op);
        q.out = q.cur;
        q.newrank = r / 2;
    } else {
        q.newrank = r - rem;
    }
    q.stage = LOOP;
    q.mask = 1;
    for (; q.newrank >= 0 && q.mask < p; q.mask <<= 1) {
        int partner = rd_rank(q.newrank ^ q.mask, rem);
        if (!coll_send_now(c, q.out, bytes, partner, tag))
            return rd_rest(c, tag, &q, buf, count, dt, op, fn);
        q.sent = 1;
        if (!coll_take_now(c, q.other, bytes, partner, tag))
            return rd_rest(c, tag, &q, buf, count, dt, op, fn);
        q.sent = 0;
        if (partner < r) {
            coll_reduce(q.other, q.cur, count, dt, op);
        } else {
            coll_reduce(q.cur, q.other, count, dt, op);
            char *t = q.cur;
            q.cur = q.other;
            q.other = t;
        }
        q.out = q.cur;
    }
    memmove(buf, q.cur, bytes);
    q.stage = POST;
    if (r < 2 * rem) {
        if (r % 2 && !coll_send_now(c, buf, bytes, r - 1, tag))
            return rd_rest(c, tag, &q, buf, count, dt, op, fn);
        if (r % 2 == 0 && !coll_take_now(c, buf, bytes, r + 1, tag))
            return rd_rest(c, tag, &q, buf, count, dt, op, fn);
    }
    return BOLT_OK;
}
