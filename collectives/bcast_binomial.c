/*
 * bcast_binomial.c — binomial-tree broadcast: ceil(log2 n) latencies, the
 * whole buffer on every edge. For small buffers.
 */
#include "collectives/coll.h"

int coll_bcast_binomial(struct coll_sched *s, void *buf, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, v = (c->rank - root + n) % n, mask = 1;
    /* The parent of vrank v clears its lowest set bit. */
    while (mask < n && !(v & mask))
        mask <<= 1;
    if (v) {
        coll_sched_recv(s, buf, bytes, (v - mask + root) % n);
        coll_sched_round(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            coll_sched_send(s, buf, bytes, (v + mask + root) % n);
    coll_sched_round(s);
    return coll_sched_error(s);
}
