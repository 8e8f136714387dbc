/*
 * reduce_binomial.c — reduce by binomial tree: log2(n) latencies. A node
 * receives its children's partial results at once, then folds them in
 * increasing vrank order (its own block first), so every element is reduced
 * in the same fixed order run after run.
 *
 * Commutative ops use the tree rooted at the root (vranks counted from it).
 * Non-commutative ops need rank order, so their tree is rooted at rank 0 and
 * rank 0 sends the result to the root.
 */
#include <string.h>

#include "collectives/coll.h"

/* This rank's place in the tree: its vrank, the tree's root and the mask
 * of its parent edge (n or more at the tree's root). */
struct place {
    int n, v, top, mask;
};

static struct place place_of(const struct bolt_comm *c, bolt_op_t op, int root)
{
    struct place p = {.n = c->size, .top = coll_op_commutative(op) ? root : 0, .mask = 1};
    p.v = (c->rank - p.top + p.n) % p.n;
    while (p.mask < p.n && !(p.v & p.mask))
        p.mask <<= 1;
    return p;
}

/* The steps of this rank's part from child edge m on (children v + m,
 * v + 2m, ... each bring the reduction of the consecutive vranks after the
 * ones already folded into acc), then acc passed on; with m = 0, only the
 * root's receive of the result from the tree's root is left. */
static int reduce_from(struct coll_sched *s, const struct place *p, const void *acc, void *out, size_t count,
                       bolt_datatype_t dt, bolt_op_t op, int root, int m)
{
    struct bolt_comm *c = coll_sched_comm(s);
    size_t bytes = count * bolt_type_size(dt);
    if (m) {
        char *child[32];
        int nchild = 0;
        /* At the tree's root the last child's block lands in out, and the
         * last fold leaves the result there: no copy of it afterwards (2
         * ranks, 1 MiB of floats: the copy was a sixth of the root's time).
         * Not in place (out is our own block) or when out overlaps it. */
        int last = -1;
        for (int k = m; k < p->mask && p->v + k < p->n; k <<= 1)
            last = k;
        int into_out = !p->v && p->top == root && last > 0 && !coll_overlap(out, bytes, acc, bytes);
        for (int k = m; k < p->mask && p->v + k < p->n; k <<= 1) {
            child[nchild] = into_out && k == last ? out : coll_sched_tmp(s, bytes);
            coll_sched_recv(s, child[nchild++], bytes, (p->v + k + p->top) % p->n);
        }
        coll_sched_round(s);
        for (int k = 0; k < nchild; k++) {
            coll_sched_reduce(s, acc, child[k], count, dt, op);
            acc = child[k];
        }
        if (p->v)
            coll_sched_send(s, acc, bytes, (p->v - p->mask + p->top) % p->n);
        else if (p->top == root)
            coll_sched_copy(s, out, acc, bytes);
        else
            coll_sched_send(s, acc, bytes, root);
    }
    if (c->rank == root && p->top != root)
        coll_sched_recv(s, out, bytes, p->top);
    coll_sched_round(s);
    return coll_sched_error(s);
}

int coll_reduce_binomial(struct coll_sched *s, const void *in, void *out, size_t count, bolt_datatype_t dt,
                         bolt_op_t op, int root)
{
    struct place p = place_of(coll_sched_comm(s), op, root);
    return reduce_from(s, &p, in, out, count, dt, op, root, 1);
}

/* ---- small reduces without a schedule ---------------------------------- */

/* The rest of this rank's part as a schedule under the tag the messages so
 * far had; acc and out stay valid until it ends. */
static int rest(struct bolt_comm *c, int tag, const struct place *p, const void *acc, void *out, size_t count,
                bolt_datatype_t dt, bolt_op_t op, int root, int m, const char *fn)
{
    struct coll_sched *s = coll_sched_resume(c, fn, "binomial", COLL_BLOCKING, tag);
    if (!s)
        return coll_launch(s, NULL, fn);
    reduce_from(s, p, acc, out, count, dt, op, root, m);
    return coll_launch(s, NULL, fn);
}

/* A loop of small reduces is mostly a schedule's overhead (2 ranks, 4 bytes:
 * 0.124 us a call with one, Open MPI 0.082): the same tree and the same
 * order of folds, each child's block taken as it arrives and the result sent
 * on at once, on the stack. From the first message that needs a request, or
 * a send the transport cannot take at once, the rest is a schedule. */
int coll_reduce_binomial_now(struct bolt_comm *c, const void *in, void *out, size_t count, bolt_datatype_t dt,
                             bolt_op_t op, int root, const char *fn)
{
    const size_t bytes = count * bolt_type_size(dt);
    if (bytes > COLL_NOW_MAX)
        return COLL_NOT_NOW;
    const struct place p = place_of(c, op, root);
    const int tag = coll_tag_take(c);
    _Alignas(64) unsigned char buf[2][COLL_NOW_MAX]; /* any element type lands aligned */
    const void *acc = in;
    int m = 1, k = 0;
    for (; m < p.mask && p.v + m < p.n; m <<= 1, k++) {
        void *b = buf[k & 1];
        if (!coll_take_now(c, b, bytes, (p.v + m + p.top) % p.n, tag))
            return rest(c, tag, &p, acc, out, count, dt, op, root, m, fn);
        coll_reduce(acc, b, count, dt, op);
        acc = b;
    }
    const int dest = p.v ? (p.v - p.mask + p.top) % p.n : p.top != root ? root : -1;
    if (dest < 0)
        memmove(out, acc, bytes);
    else if (!coll_send_now(c, acc, bytes, dest, tag))
        return rest(c, tag, &p, acc, out, count, dt, op, root, m, fn); /* no child left: the send on */
    if (c->rank == root && p.top != root && !coll_take_now(c, out, bytes, p.top, tag))
        return rest(c, tag, &p, acc, out, count, dt, op, root, 0, fn);
    return BOLT_OK;
}
