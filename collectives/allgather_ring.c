/*
 * allgather_ring.c — ring all-gather: n-1 steps, each rank passing on the
 * block it received in the step before. Bandwidth-optimal, any block sizes
 * (also serves allgatherv). Around the ring of the communicator's plan
 * (linkplan.c: along the fastest links), rank order without one.
 */
#include "collectives/coll.h"

int coll_allgatherv_ring(struct coll_sched *s, const void *in, void *vbuf, const size_t *counts,
                         const size_t *displs)
{
    struct coll_ring g;
    if (coll_ring_get(s, &g) != BOLT_OK)
        return coll_sched_error(s);
    int n = g.n, p = g.me, right = coll_ring_at(&g, p + 1), left = coll_ring_at(&g, p - 1);
    char *buf = vbuf;
    for (int j = 0; j < n - 1; j++) {
        int sb = coll_ring_at(&g, p - j), rb = coll_ring_at(&g, p - j - 1);
        coll_sched_send(s, j == 0 ? in : buf + displs[sb], counts[sb], right);
        coll_sched_recv(s, buf + displs[rb], counts[rb], left);
        coll_sched_round(s);
    }
    return coll_sched_error(s);
}

int coll_allgather_ring(struct coll_sched *s, const void *in, void *buf, size_t bytes)
{
    int n = coll_sched_comm(s)->size;
    size_t *counts = coll_sched_tmp(s, 2 * (size_t)n * sizeof *counts);
    if (!counts)
        return coll_sched_error(s);
    for (int i = 0; i < n; i++) {
        counts[i] = bytes;
        counts[n + i] = (size_t)i * bytes;
    }
    return coll_allgatherv_ring(s, in, buf, counts, counts + n);
}
