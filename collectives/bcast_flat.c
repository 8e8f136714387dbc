/*
 * bcast_flat.c — flat broadcast: the root sends the whole buffer to every
 * other rank in one step. One latency, and no rank waits for another to
 * forward: on a full mesh every link carries the buffer at once, and over
 * single-copy shared memory the receivers do (most of) the copying. The
 * root posts n - 1 messages (select.c: where it is chosen), or, blocking and
 * up to the shm transport's slot size, copies the buffer once into shared
 * memory for all of them to read.
 */
#include "collectives/coll.h"

int coll_bcast_flat(struct coll_sched *s, void *buf, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size;
    if (c->rank != root) {
        coll_sched_recv(s, buf, bytes, root);
    } else if (n > 1) {
        /* One copy for all where they share memory (shm's shared slots). */
        int *peers = coll_sched_tmp(s, (size_t)(n - 1) * sizeof *peers);
        if (peers) {
            for (int k = 1; k < n; k++)
                peers[k - 1] = (root + k) % n;
            coll_sched_send_many(s, buf, bytes, peers, n - 1);
        }
    }
    coll_sched_round(s);
    return coll_sched_error(s);
}
