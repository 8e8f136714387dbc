/*
 * barrier_dissemination.c — dissemination barrier: in round k every rank
 * signals rank + 2^k and waits for rank - 2^k; after ceil(log2 n) rounds
 * every rank has heard, directly or not, from every other. Any n.
 */
#include "collectives/coll.h"

int coll_barrier_dissemination(struct coll_sched *s)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    for (int d = 1; d < n; d <<= 1) {
        coll_sched_send(s, NULL, 0, (r + d) % n);
        coll_sched_recv(s, NULL, 0, (r - d + n) % n);
        coll_sched_round(s);
    }
    return coll_sched_error(s);
}
