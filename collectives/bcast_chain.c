/*
 * bcast_chain.c — pipelined chain broadcast: root -> root+1 -> ... in
 * segments of BOLT_COLL_SEGMENT; each rank forwards a segment while the next
 * one arrives, so a large buffer takes about (segments + n - 2) segment
 * times instead of log2(n) whole-buffer times. "+1" is the next rank around
 * the ring of the communicator's plan (linkplan.c), rank order without one.
 */
#include "collectives/coll.h"

int coll_bcast_chain(struct coll_sched *s, void *vbuf, size_t bytes, int root)
{
    struct coll_ring g;
    if (coll_ring_get(s, &g) != BOLT_OK)
        return coll_sched_error(s);
    int n = g.n, v = (g.me - coll_ring_pos(&g, root) + n) % n;
    int prev = coll_ring_at(&g, g.me - 1), next = coll_ring_at(&g, g.me + 1);
    size_t seg = coll_segment_bytes(), m = bytes ? (bytes + seg - 1) / seg : 1;
    char *buf = vbuf;
    if (n == 1)
        return coll_sched_error(s);
    for (size_t k = 0; k <= m; k++) {
        if (v > 0 && k < m) {
            size_t off = k * seg, len = bytes - off < seg ? bytes - off : seg;
            coll_sched_recv(s, buf + off, len, prev);
        }
        /* Forward what arrived in the round before (the root: everything). */
        if (v < n - 1 && (v == 0 ? k < m : k > 0)) {
            size_t kk = v == 0 ? k : k - 1;
            size_t off = kk * seg, len = bytes - off < seg ? bytes - off : seg;
            coll_sched_send(s, buf + off, len, next);
        }
        coll_sched_round(s);
    }
    return coll_sched_error(s);
}
