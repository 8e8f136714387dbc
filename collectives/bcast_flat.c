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

/* A blocking flat broadcast of at most COLL_NOW_MAX bytes without a
 * schedule: the root's one copy for all (or a message each) goes at once, a
 * receiver takes its message as it arrives; from the first that cannot, the
 * rest as the schedule under the same tag. COLL_NOT_NOW (nothing done) for
 * a larger one. On crowded cores a small flat broadcast in a tight loop
 * paid the schedule's cost on every rank. */
int coll_bcast_flat_now(struct bolt_comm *c, void *buf, size_t bytes, int root, const char *fn)
{
    int n = c->size, k;
    if (bytes > COLL_NOW_MAX)
        return COLL_NOT_NOW;
    const int tag = coll_tag_take(c);
    struct coll_sched *s;
    if (c->rank != root) {
        if (coll_take_now(c, buf, bytes, root, tag))
            return BOLT_OK;
        if ((s = coll_sched_resume(c, fn, "flat", COLL_BLOCKING, tag))) {
            coll_sched_recv(s, buf, bytes, root);
            coll_sched_round(s);
        }
        return coll_launch(s, NULL, fn);
    }
    if ((k = coll_send_all_now(c, buf, bytes, root, tag)) == n)
        return BOLT_OK;
    if ((s = coll_sched_resume(c, fn, "flat", COLL_BLOCKING, tag))) {
        for (; k < n; k++)
            coll_sched_send(s, buf, bytes, (root + k) % n);
        coll_sched_round(s);
    }
    return coll_launch(s, NULL, fn);
}
