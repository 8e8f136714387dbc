/*
 * barrier_dissemination.c — dissemination barrier: in round k every rank
 * signals rank + 2^k and waits for rank - 2^k; after ceil(log2 n) rounds
 * every rank has heard, directly or not, from every other. Any n.
 */
#include "collectives/coll.h"

/* Rounds from the one of distance d; its signal already sent when sent. */
static int rounds_from(struct coll_sched *s, int d, int sent)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    for (; d < n; d <<= 1, sent = 0) {
        if (!sent)
            coll_sched_send(s, NULL, 0, (r + d) % n);
        coll_sched_recv(s, NULL, 0, (r - d + n) % n);
        coll_sched_round(s);
    }
    return coll_sched_error(s);
}

int coll_barrier_dissemination(struct coll_sched *s)
{
    return rounds_from(s, 1, 0);
}

/* Without a schedule while each signal goes and is taken at once: a rank
 * that arrives last leaves at once, and one that waits leaves as soon as
 * the last signal lands, not after a schedule's setup and teardown (2
 * ranks: the waiting rank left ~0.3 us after the other's arrival, so a
 * rooted collective timed after the barrier waited for its root). From
 * the first signal that cannot, the rest as a schedule under the same tag. */
int coll_barrier_dissemination_now(struct bolt_comm *c, const char *fn)
{
    int n = c->size, r = c->rank, d = 1, sent = 0;
    const int tag = coll_tag_take(c);
    struct coll_sched *s;
    for (; d < n; d <<= 1) {
        if (!(sent = coll_send_now(c, NULL, 0, (r + d) % n, tag)) ||
            !coll_take_now(c, NULL, 0, (r - d + n) % n, tag))
            break;
    }
    if (d >= n)
        return BOLT_OK;
    if ((s = coll_sched_resume(c, fn, "dissemination", COLL_BLOCKING, tag)))
        rounds_from(s, d, sent);
    return coll_launch(s, NULL, fn);
}
