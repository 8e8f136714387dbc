/*
 * allreduce_oneshot.c — one-shot all-reduce for a full mesh: every rank sends
 * its whole vector to every peer at once (one latency), then each reduces
 * all n vectors itself in rank order, x0 op x1 op ... — the same sequence
 * on every rank, so the same bits, and rank order for non-commutative ops.
 * Costs n-1 copies of the vector per rank: for small vectors.
 */
#include "collectives/coll.h"

int coll_allreduce_oneshot(struct coll_sched *s, void *buf, size_t count, bolt_datatype_t dt,
                           bolt_op_t op)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    size_t bytes = count * bolt_type_size(dt);
    if (n == 1)
        return coll_sched_error(s);
    char *tmp = coll_sched_tmp(s, bytes * (size_t)(n - 1));
    char **vec = coll_sched_tmp(s, (size_t)n * sizeof *vec); /* vec[i]: rank i's vector */
    if (!vec)
        return coll_sched_error(s);
    for (int i = 0; i < n; i++)
        vec[i] = i == r ? buf : tmp ? tmp + (size_t)(i < r ? i : i - 1) * bytes : NULL;
    for (int k = 1; k < n; k++) { /* nearest peers first */
        coll_sched_send(s, buf, bytes, (r + k) % n);
        coll_sched_recv(s, vec[(r + n - k) % n], bytes, (r + n - k) % n);
    }
    coll_sched_round(s);
    for (int i = 1; i < n; i++)
        coll_sched_reduce(s, vec[i - 1], vec[i], count, dt, op);
    coll_sched_copy(s, buf, vec[n - 1], bytes);
    return coll_sched_error(s);
}
