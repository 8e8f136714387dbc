/*
 * allgather_bruck.c — Bruck's all-gather: ceil(log2 n) steps for any n. In
 * step k a rank sends the first min(2^k, n - 2^k) blocks it holds to
 * rank - 2^k and appends as many from rank + 2^k; at the end block i of its
 * scratch is rank (r + i)'s, put in place by one rotation.
 */
#include "collectives/coll.h"

int coll_allgather_bruck(struct coll_sched *s, const void *in, void *vbuf, size_t bytes)
{
    (void)in; /* it gathers into a rotated scratch copy */
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    char *buf = vbuf, *tmp;
    if (n == 1)
        return coll_sched_error(s);
    tmp = coll_sched_tmp(s, (size_t)n * bytes);
    coll_sched_copy(s, tmp, buf + (size_t)r * bytes, bytes);
    for (int d = 1; d < n; d <<= 1) {
        size_t cnt = (size_t)(d < n - d ? d : n - d);
        coll_sched_send(s, tmp, cnt * bytes, (r - d + n) % n);
        coll_sched_recv(s, tmp + (size_t)d * bytes, cnt * bytes, (r + d) % n);
        coll_sched_round(s);
    }
    /* tmp block i is rank (r + i) % n's: two contiguous pieces. */
    coll_sched_copy(s, buf + (size_t)r * bytes, tmp, (size_t)(n - r) * bytes);
    coll_sched_copy(s, buf, tmp + (size_t)(n - r) * bytes, (size_t)r * bytes);
    return coll_sched_error(s);
}
