/*
 * allreduce_mesh.c — direct reduce-scatter + all-gather for a full mesh:
 * chunk j of every rank's vector goes straight to rank j, which reduces the
 * n copies and sends the result straight to every rank. Two latencies, each
 * rank moving 2(n-1)/n of the vector; each chunk is reduced by one rank
 * (reduce_scatter_direct.c).
 */
#include "collectives/coll.h"

int coll_allreduce_mesh(struct coll_sched *s, const void *in, void *vbuf, size_t count,
                        bolt_datatype_t dt, bolt_op_t op)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    size_t esize = bolt_type_size(dt);
    char *buf = vbuf;
    if (n == 1) {
        coll_sched_copy(s, buf, in, count * esize);
        return coll_sched_error(s);
    }
    size_t *counts = coll_sched_tmp(s, 2 * (size_t)n * sizeof *counts);
    if (!counts)
        return coll_sched_error(s);
    size_t *displs = counts + n;
    for (int i = 0; i < n; i++) {
        displs[i] = coll_part_start(count, n, i);
        counts[i] = coll_part_start(count, n, i + 1) - displs[i];
    }
    /* Chunks leave from the input, which is never copied whole into buf. */
    coll_reduce_scatter_direct(s, in, buf + displs[r] * esize, counts, displs, dt, op);
    coll_sched_round(s);
    for (int k = 1; k < n; k++) {
        int to = (r + k) % n, from = (r + n - k) % n;
        coll_sched_send(s, buf + displs[r] * esize, counts[r] * esize, to);
        coll_sched_recv(s, buf + displs[from] * esize, counts[from] * esize, from);
    }
    coll_sched_round(s);
    return coll_sched_error(s);
}
