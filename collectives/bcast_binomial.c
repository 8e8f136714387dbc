/*
 * bcast_binomial.c — binomial-tree broadcast: ceil(log2 n) latencies, the
 * whole buffer on every edge. For small buffers.
 */
#include "collectives/coll.h"

/* The parent of vrank v clears its lowest set bit: its bit, returned. */
static int parent_bit(int v, int n)
{
    int mask = 1;
    while (mask < n && !(v & mask))
        mask <<= 1;
    return mask;
}

int coll_bcast_binomial(struct coll_sched *s, void *buf, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, v = (c->rank - root + n) % n, mask = parent_bit(v, n);
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

/* Small broadcasts in a loop are mostly this overhead: a schedule's steps
 * and requests cost more than the messages (2 ranks: 0.108 -> 0.064 us per
 * 4-byte MPI_Bcast). */
int coll_bcast_binomial_now(struct bolt_comm *c, void *buf, size_t bytes, int root, const char *fn)
{
    int n = c->size, v = (c->rank - root + n) % n, mask = parent_bit(v, n);
    int tag = coll_tag_next(c);
    if (v && coll_recv_now(c, buf, bytes, (v - mask + root) % n, tag) != 1)
        return COLL_NOT_NOW;
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (v + mask >= n)
            continue;
        if (coll_send_now(c, buf, bytes, (v + mask + root) % n, tag))
            continue;
        /* This child and the next ones: a schedule, which takes the tag. */
        struct coll_sched *s = coll_sched_new(c, fn, "binomial", COLL_BLOCKING);
        if (!s) {
            c->coll_seq++; /* the tag is spent: messages went out with it */
            return coll_launch(s, NULL, fn);
        }
        for (; mask > 0; mask >>= 1)
            if (v + mask < n)
                coll_sched_send(s, buf, bytes, (v + mask + root) % n);
        coll_sched_round(s);
        return coll_launch(s, NULL, fn);
    }
    c->coll_seq++;
    return BOLT_OK;
}
