/*
 * bcast_scatter_allgather.c — broadcast as a binomial scatter of n chunks
 * followed by a ring all-gather of them (van de Geijn): about 2 transfers of
 * the buffer in total instead of log2(n). For large buffers. Ranks are
 * counted from the root (vranks), chunk i belongs to vrank i.
 */
#include "collectives/coll.h"

int coll_bcast_scatter_allgather(struct coll_sched *s, void *vbuf, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, v = (c->rank - root + n) % n, mask = 1;
    char *buf = vbuf;
    if (n == 1)
        return coll_sched_error(s);
#define OFF(i) coll_part_start(bytes, n, (i))
#define RANK(vr) (((vr) + root) % n)
    /* Scatter: vrank v receives chunks [v, v + subtree) from its parent. */
    while (mask < n && !(v & mask))
        mask <<= 1;
    int end = v + mask < n ? v + mask : n;
    if (v) {
        coll_sched_recv(s, buf + OFF(v), OFF(end) - OFF(v), RANK(v - mask));
        coll_sched_round(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n) {
            int cend = v + 2 * mask < n ? v + 2 * mask : n;
            if (cend > end)
                cend = end;
            coll_sched_send(s, buf + OFF(v + mask), OFF(cend) - OFF(v + mask), RANK(v + mask));
        }
    coll_sched_round(s);
    /* Ring all-gather over vranks: at step j pass on chunk v - j. */
    for (int j = 0; j < n - 1; j++) {
        int sc = (v - j + n) % n, rc = (v - j - 1 + n) % n;
        coll_sched_send(s, buf + OFF(sc), OFF(sc + 1) - OFF(sc), RANK(v + 1));
        coll_sched_recv(s, buf + OFF(rc), OFF(rc + 1) - OFF(rc), RANK(v - 1 + n));
        coll_sched_round(s);
    }
#undef OFF
#undef RANK
    return coll_sched_error(s);
}
