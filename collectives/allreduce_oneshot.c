/*
 * allreduce_oneshot.c — one-shot all-reduce for a full mesh: every rank sends
 * its whole vector to every peer at once (one latency), then each reduces
 * all n vectors itself in rank order, x0 op x1 op ... — the same sequence
 * on every rank, so the same bits, and rank order for non-commutative ops.
 * Costs n-1 copies of the vector per rank: for small vectors.
 */
#include "collectives/coll.h"

int coll_allreduce_oneshot(struct coll_sched *s, const void *in, void *buf, size_t count,
                           bolt_datatype_t dt, bolt_op_t op)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    size_t bytes = count * bolt_type_size(dt);
    if (n == 1) {
        coll_sched_copy(s, buf, in, bytes);
        return coll_sched_error(s);
    }
    char *tmp = coll_sched_tmp(s, bytes * (size_t)(n - 1));
    const char **vec = coll_sched_tmp(s, (size_t)n * sizeof *vec); /* vec[i]: rank i's vector */
    if (!vec)
        return coll_sched_error(s);
    for (int i = 0; i < n; i++)
        vec[i] = i == r ? in : tmp ? tmp + (size_t)(i < r ? i : i - 1) * bytes : NULL;
    for (int k = 1; k < n; k++) { /* nearest peers first */
        coll_sched_send(s, in, bytes, (r + k) % n);
        coll_sched_recv(s, (char *)vec[(r + n - k) % n], bytes, (r + n - k) % n);
    }
    coll_sched_round(s);
    /* x0 op x1 op ...: each step writes into the later operand. Our own
     * vector is only read (it may be the caller's send buffer, and peers read
     * it single-copy): its step folds into buf instead. */
    const char *acc = vec[0];
    for (int i = 1; i < n; i++) {
        char *dst = (char *)vec[i];
        if (i == r) {
            coll_sched_copy(s, buf, in, bytes);
            dst = buf;
        }
        coll_sched_reduce(s, acc, dst, count, dt, op);
        acc = dst;
    }
    coll_sched_copy(s, buf, acc, bytes);
    return coll_sched_error(s);
}
