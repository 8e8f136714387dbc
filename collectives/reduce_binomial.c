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
#include "collectives/coll.h"

int coll_reduce_binomial(struct coll_sched *s, const void *in, void *out, size_t count,
                         bolt_datatype_t dt, bolt_op_t op, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank, mask = 1;
    int top = coll_op_commutative(op) ? root : 0; /* root of the tree */
    int v = (r - top + n) % n;
    size_t bytes = count * bolt_type_size(dt);
    while (mask < n && !(v & mask))
        mask <<= 1;
    /* Children v + 1, v + 2, v + 4, ... each bring the reduction of the
     * consecutive vranks after the ones already folded. */
    int nchild = 0;
    for (int m = 1; m < mask && v + m < n; m <<= 1)
        nchild++;
    char *child[32];
    for (int k = 0, m = 1; k < nchild; k++, m <<= 1) {
        child[k] = coll_sched_tmp(s, bytes);
        coll_sched_recv(s, child[k], bytes, (v + m + top) % n);
    }
    coll_sched_round(s);
    const char *acc = in;
    for (int k = 0; k < nchild; k++) {
        coll_sched_reduce(s, acc, child[k], count, dt, op);
        acc = child[k];
    }
    if (v) {
        coll_sched_send(s, acc, bytes, (v - mask + top) % n);
    } else if (top == root) {
        coll_sched_copy(s, out, acc, bytes);
    } else {
        coll_sched_send(s, acc, bytes, root);
    }
    if (r == root && top != root)
        coll_sched_recv(s, out, bytes, top);
    coll_sched_round(s);
    return coll_sched_error(s);
}
