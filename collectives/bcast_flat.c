/*
 * bcast_flat.c — flat broadcast: the root sends the whole buffer to every
 * other rank in one step. One latency, and no rank waits for another to
 * forward: on a full mesh every link carries the buffer at once, and over
 * single-copy shared memory the receivers do (most of) the copying. The
 * root posts n - 1 messages (select.c: where it is chosen).
 */
#include "collectives/coll.h"

int coll_bcast_flat(struct coll_sched *s, void *buf, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size;
    if (c->rank != root) {
        coll_sched_recv(s, buf, bytes, root);
    } else {
        for (int k = 1; k < n; k++)
            coll_sched_send(s, buf, bytes, (root + k) % n);
    }
    coll_sched_round(s);
    return coll_sched_error(s);
}
