/*
 * bcast_chain.c — pipelined chain broadcast: root -> root+1 -> ... in
 * segments of BOLT_COLL_SEGMENT; each rank forwards a segment while the next
 * one arrives, so a large buffer takes about (segments + n - 2) segment
 * times instead of log2(n) whole-buffer times.
 */
#include "collectives/coll.h"

int coll_bcast_chain(struct coll_sched *s, void *vbuf, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, v = (c->rank - root + n) % n;
    int prev = (c->rank + n - 1) % n, next = (c->rank + 1) % n;
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
