/*
 * barrier_linear.c — fan-in, fan-out barrier: every rank signals rank 0,
 * which, once it heard from all, releases ranks 1, 2, ... n - 1 in turn.
 * Two steps and 2 (n - 1) messages, against ceil(log2 n) steps and
 * n ceil(log2 n) messages for dissemination: for ranks crowding a host's
 * cores, where every message is work the cores share (select.c). Rank 0
 * leaves first and the others in rank order, as Open MPI's linear barrier
 * does, so a collective rooted at 0 or running up the ranks (scan) that
 * follows finds its first sender already out.
 */
#include "collectives/coll.h"

int coll_barrier_linear(struct coll_sched *s)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size;
    if (c->rank != 0) {
        coll_sched_send(s, NULL, 0, 0);
        coll_sched_recv(s, NULL, 0, 0);
        coll_sched_round(s);
        return coll_sched_error(s);
    }
    for (int k = 1; k < n; k++)
        coll_sched_recv(s, NULL, 0, k);
    coll_sched_round(s);
    for (int k = 1; k < n; k++)
        coll_sched_send(s, NULL, 0, k);
    coll_sched_round(s);
    return coll_sched_error(s);
}
