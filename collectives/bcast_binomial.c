/*
 * bcast_binomial.c — binomial-tree broadcast: ceil(log2 n) latencies, the
 * whole buffer on every edge. For small buffers. The tree's layout
 * (tree_binomial.c) is the job's: near first on crowded cores.
 */
#include "collectives/coll.h"

int coll_bcast_binomial(struct coll_sched *s, void *buf, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, v = (c->rank - root + n) % n;
    struct coll_tree t;
    coll_tree_binomial(&t, v, n, coll_tree_near_first());
    if (t.parent >= 0) {
        coll_sched_recv(s, buf, bytes, (t.parent + root) % n);
        coll_sched_round(s);
    }
    for (int i = 0; i < t.nkids; i++)
        coll_sched_send(s, buf, bytes, (t.kid[i] + root) % n);
    coll_sched_round(s);
    return coll_sched_error(s);
}

/* Small broadcasts in a loop are mostly this overhead: a schedule's steps
 * and requests cost more than the messages (2 ranks: 0.108 -> 0.064 us per
 * 4-byte MPI_Bcast). */
int coll_bcast_binomial_now(struct bolt_comm *c, void *buf, size_t bytes, int root, const char *fn)
{
    int n = c->size, v = (c->rank - root + n) % n;
    int tag = coll_tag_next(c);
    struct coll_tree t;
    coll_tree_binomial(&t, v, n, coll_tree_near_first());
    if (t.parent >= 0 && coll_recv_now(c, buf, bytes, (t.parent + root) % n, tag) != 1)
        return COLL_NOT_NOW;
    for (int i = 0; i < t.nkids; i++) {
        if (coll_send_now(c, buf, bytes, (t.kid[i] + root) % n, tag))
            continue;
        /* This child and the next ones: a schedule, which takes the tag. */
        struct coll_sched *s = coll_sched_new(c, fn, "binomial", COLL_BLOCKING);
        if (!s) {
            c->coll_seq++; /* the tag is spent: messages went out with it */
            return coll_launch(s, NULL, fn);
        }
        for (; i < t.nkids; i++)
            coll_sched_send(s, buf, bytes, (t.kid[i] + root) % n);
        coll_sched_round(s);
        return coll_launch(s, NULL, fn);
    }
    c->coll_seq++;
    return BOLT_OK;
}
